"""Sharding in types over a mesh of 8 CPU devices with Explicit axes: types, errors, jaxprs,
values and layouts as JAX 0.10.2 gives them (each expected string taken from the reference
on the same program). Not collected by the suite (the name does not start with test_):
tests/execution/test_explicit_sharding.py runs it in a process with 8 devices."""
import re

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax
from xjax.sharding import PartitionSpec as P
from xjax._src.compat.jax_private_compat.core import ShardingTypeError

if xjax.device_count() < 8:
  pytest.skip("needs 8 CPU devices (run through tests/execution/test_explicit_sharding.py)",
              allow_module_level=True)

MESH = xjax.make_mesh((4, 2), ("X", "Y"))
xjax.set_mesh(MESH)
X = xjax.device_put(jnp.arange(32.0).reshape(8, 4), P("X", "Y"))
ROWS = xjax.device_put(jnp.ones((8, 4)), P("X", None))


def typeof(f):
  return str(xjax.typeof(f()))


def test_mesh_and_placed_types():
  assert MESH.axis_types == (xjax.sharding.AxisType.Explicit,) * 2  # make_mesh's default
  assert repr(xjax.sharding.get_abstract_mesh()) == (
      "AbstractMesh('X': 4, 'Y': 2, axis_types=(Explicit, Explicit), device_kind=cpu, "
      "num_cores=None, platform=cpu)")
  assert str(xjax.typeof(X)) == "float32[8@X,4@Y]"
  assert xjax.typeof(X).sharding.spec == P("X", "Y")
  assert str(xjax.typeof(ROWS)) == "float32[8@X,4]"
  assert typeof(lambda: xjax.reshard(X, P(None, "Y"))) == "float32[8,4@Y]"


@pytest.mark.parametrize("f, want", [
    (lambda: X * 2, "float32[8@X,4@Y]"),
    (lambda: X + jnp.ones((8, 4)), "float32[8@X,4@Y]"),
    (lambda: X + jnp.ones(4), "float32[8@X,4@Y]"),
    (lambda: jnp.sin(X) + 1.0, "float32[8@X,4@Y]"),
    (lambda: X.T, "float32[4@Y,8@X]"),
    (lambda: X.reshape(32), "float32[32@(X,Y)]"),
    (lambda: X.reshape(4, 2, 4), "float32[4@X,2,4@Y]"),
    (lambda: X.reshape(8, 2, 2), "float32[8@X,2@Y,2]"),
    (lambda: X[:, None], "float32[8@X,1,4@Y]"),
    (lambda: jnp.expand_dims(X, 0), "float32[1,8@X,4@Y]"),
    (lambda: jnp.concatenate([X, X]), "float32[16@X,4@Y]"),
    (lambda: jnp.concatenate([X, X], 1), "float32[8@X,8@Y]"),
    (lambda: X.max(1), "float32[8@X]"),
    (lambda: X.sum(0), "float32[4@Y]"),
    (lambda: jnp.sum(X), "float32[]"),
    (lambda: jnp.argmax(X, 0), "int32[4@Y]"),
    (lambda: X.astype(jnp.int32), "int32[8@X,4@Y]"),
    (lambda: jnp.where(X > 0, X, 0.0), "float32[8@X,4@Y]"),
    (lambda: X @ jnp.ones((4, 3)), "float32[8@X,3]"),
    (lambda: jnp.ones((3, 8)) @ X, "float32[3,4@Y]"),
    (lambda: jnp.dot(X, jnp.ones((4, 3)), out_sharding=P("X", None)), "float32[8@X,3]"),
    (lambda: jnp.matmul(xjax.device_put(jnp.ones((8, 4)), P(None, "X")), jnp.ones((4, 6)),
                        out_sharding=P("X", None)), "float32[8@X,6]"),
    (lambda: xjax.device_put(jnp.ones((8, 4)), P(None, "X")) @ jnp.ones((4, 6)),
     "float32[8,6]"),
    (lambda: jnp.einsum("bij,bjk->bik", xjax.device_put(jnp.ones((2, 8, 4)), P("Y", "X")),
                        xjax.device_put(jnp.ones((2, 4, 6)), P("Y"))), "float32[2@Y,8@X,6]"),
    (lambda: jnp.reshape(ROWS, (32,), out_sharding=P("X")), "float32[32@X]"),
    (lambda: xjax.lax.broadcast_in_dim(X, (2, 8, 4), (1, 2)), "float32[2,8@X,4@Y]"),
    (lambda: jnp.zeros((8, 4), out_sharding=P("X")), "float32[8@X,4]"),
    (lambda: jnp.full((8, 4), 2.0, out_sharding=P(None, "Y")), "~float32[8,4@Y]"),
    (lambda: jnp.arange(8, out_sharding=P("X")), "int32[8@X]"),
    (lambda: jnp.ones_like(X), "float32[8@X,4@Y]"),
    (lambda: jnp.full_like(X, 3, out_sharding=P()), "float32[8,4]"),
    (lambda: jnp.array([1.0, 2, 3, 4, 5, 6, 7, 8], out_sharding=P("X")), "float32[8@X]"),
    (lambda: jnp.asarray(X, out_sharding=P("Y", None)), "float32[8@Y,4]"),
    (lambda: xjax.random.normal(xjax.random.key(0), (8, 4), out_sharding=P("X", None)),
     "float32[8@X,4]"),
    (lambda: xjax.jit(lambda: jnp.zeros((8, 4), out_sharding=P("X")))(), "float32[8@X,4]"),
    (lambda: jnp.take(ROWS, jnp.array([0, 2]), axis=1), "float32[8@X,2]"),
    (lambda: ROWS[:, jnp.array([0, 2])], "float32[8@X,2]"),
    (lambda: xjax.vmap(lambda r: r[jnp.array([0, 2])])(ROWS), "float32[8@X,2]"),
    (lambda: xjax.grad(lambda a: jnp.take(a, jnp.array([0, 2]), axis=1).sum())(ROWS),
     "float32[8@X,4]"),
    (lambda: xjax.nn.one_hot(xjax.device_put(jnp.arange(8), P("X")), 4), "float32[8@X,4]"),
    (lambda: jnp.cumsum(ROWS, axis=1), "float32[8@X,4]"),
    (lambda: xjax.lax.cumlogsumexp(ROWS, axis=1), "float32[8@X,4]"),
    (lambda: jnp.sort(ROWS, axis=1), "float32[8@X,4]"),
    (lambda: jnp.argsort(ROWS, axis=1), "int32[8@X,4]"),
    (lambda: jnp.fft.fft(ROWS, axis=0), "complex64[8@X,4]"),
    (lambda: jnp.fft.rfft(ROWS, axis=1), "complex64[8@X,3]"),
    (lambda: xjax.jit(lambda a: a * 2)(X), "float32[8@X,4@Y]"),
    (lambda: xjax.grad(lambda a: (a * 2).sum())(X), "float32[8@X,4@Y]"),
    (lambda: xjax.grad(lambda a: (a @ jnp.ones((4, 3))).sum())(X), "float32[8@X,4@Y]"),
    (lambda: xjax.grad(lambda w: jnp.sum(jnp.tanh(ROWS @ w)))(
        xjax.device_put(jnp.ones((4, 6)), P(None, "Y"))), "float32[4,6@Y]"),
    (lambda: xjax.lax.reduce_sum(ROWS, (0,), out_sharding=P("X")), "float32[4@X]"),
    (lambda: xjax.jit(lambda a: xjax.lax.reduce(a, 0.0, xjax.lax.add, (0,),
                                                out_sharding=P("Y")))(ROWS), "float32[4@Y]"),
    (lambda: xjax.lax.reduce(ROWS, 1.0, lambda u, v: u * v + 0, (0,), out_sharding=P("X")),
     "float32[4]"),  # (a computation of one's own does not take it, as in JAX)
    (lambda: jnp.tensordot(ROWS, jnp.ones((4, 3)), 1, out_sharding=P(None, "Y")),
     "float32[8,3@Y]"),
    (lambda: jnp.linalg.tensordot(ROWS, jnp.ones((4, 3)), axes=1), "float32[8@X,3]"),
    (lambda: jnp.repeat(ROWS, jnp.array([1, 2, 0, 1]), axis=1, total_repeat_length=4),
     "float32[8@X,4]"),
    (lambda: jnp.repeat(ROWS, 2, axis=0, out_sharding=P(None)), "float32[16,4]"),
    (lambda: xjax.ops.segment_sum(ROWS, jnp.arange(8) // 2, 4, out_sharding=P("X")),
     "float32[4@X,4]"),
    (lambda: xjax.jit(lambda a: xjax.ops.segment_max(a, jnp.arange(8) % 3, 3,
                                                     out_sharding=P()))(ROWS), "float32[3,4]"),
])
def test_types_follow_the_operations(f, want):
  assert typeof(f) == want


@pytest.mark.parametrize("f, message", [
    (lambda: X + xjax.device_put(jnp.ones((8, 4)), P("Y", None)),
     "add got incompatible shardings for broadcasting: ('X', 'Y'), ('Y', None)."),
    (lambda: jnp.dot(xjax.device_put(jnp.arange(8.0), P("X")),
                     xjax.device_put(jnp.arange(8.0), P("X"))),
     "Contracting dimensions are sharded and it is ambiguous how the output should be "
     "sharded. Please specify the output sharding via the `out_sharding` parameter. Got "
     "lhs_contracting_spec=('X',) and rhs_contracting_spec=('X',)"),
    (lambda: ROWS @ xjax.device_put(jnp.ones((4, 8)), P(None, "X")),
     "dot_general operation with inputs: f32[8@X,4], f32[4,8@X] produces an illegally "
     "sharded result: f32[8@X,8@X]"),
    # JAX 0.10.2's dot_general rule: contracting (or batch) dimensions split differently
    # on the two sides, and any pair split on both, raise
    (lambda: X @ xjax.device_put(jnp.ones((4, 8)), P("X", "Y")),
     "dot_general requires contracting dimensions to have consistent sharding, got ('Y',) "
     "and ('X',)."),
    (lambda: xjax.grad(lambda a: (a @ a.T @ a).sum())(X),
     "Contracting dimensions are sharded and it is ambiguous how the output should be "
     "sharded. Please specify the output sharding via the `out_sharding` parameter. Got "
     "lhs_contracting_spec=('Y',) and rhs_contracting_spec=('Y',)"),
    (lambda: lax.dot_general(X, xjax.device_put(jnp.ones((8, 4)), P("X", None)),
                             (((0, 1), (0, 1)), ((), ()))),
     "Contracting dimensions are sharded and it is ambiguous how the output should be "
     "sharded. Please specify the output sharding via the `out_sharding` parameter. Got "
     "lhs_contracting_spec=('X', 'Y') and rhs_contracting_spec=('X', None)"),
    (lambda: jnp.einsum("bij,bjk->bik", xjax.device_put(jnp.ones((8, 2, 2)), P("X")),
                        xjax.device_put(jnp.ones((8, 2, 2)), P("Y"))),
     "dot_general requires lhs batch dimensions and rhs batch dimensions to have the "
     "consistent sharding, got ('X',) and ('Y',)."),
    (lambda: ROWS.reshape(2, 16),
     "This reshape is not supported. Please specify the sharding of the output via the "
     "`out_sharding` argument of jax.lax.reshape. Got operand type: float32[8@X,4], new "
     "sizes: (2, 16)"),
])
def test_ambiguous_shardings_raise_sharding_type_errors(f, message):
  with pytest.raises(ShardingTypeError) as e:
    f()
  assert str(e.value) == message


def test_repeat_along_a_split_dimension_needs_out_sharding():
  with pytest.raises(ValueError, match="^Please pass sharding to `jnp.repeat` via "
                                       "`out_sharding` parameter.$"):
    jnp.repeat(ROWS, 2, axis=0)
  out = xjax.jit(lambda a: jnp.repeat(a, 2, axis=0, out_sharding=P(None)))(ROWS)
  np.testing.assert_array_equal(out, np.repeat(np.ones((8, 4)), 2, axis=0))


def test_vmap_sees_the_rows_types():
  seen = []

  def row_sum(r):
    seen.append(str(xjax.typeof(r)))
    return r.sum()
  assert str(xjax.typeof(xjax.vmap(row_sum)(X))) == "float32[8@X]"
  assert seen == ["float32[4@Y]"]
  assert typeof(lambda: xjax.vmap(lambda r: r * 2, in_axes=1)(X)) == "float32[4@Y,8@X]"
  assert str(xjax.make_jaxpr(xjax.vmap(lambda r: r * 2))(X)) == (
      "{ lambda ; a:f32[8@X,4@Y]. let b:f32[8@X,4@Y] = mul a 2.0:f32[] in (b,) }")
  with pytest.raises(ShardingTypeError, match="produces an illegally sharded result"):
    xjax.vmap(lambda r: jnp.outer(r, r))(X)  # Y would split two dimensions


def test_shard_map_checks_in_specs_against_the_types():
  seen = []

  def double(a):
    seen.append(xjax.typeof(a).shape)
    return a * 2
  out = xjax.shard_map(double, in_specs=P("X", "Y"), out_specs=P("X", "Y"))(X)
  assert str(xjax.typeof(out)) == "float32[8@X,4@Y]" and float(out.sum()) == 992.0
  assert seen == [(2, 2)]  # each device's block
  total = xjax.shard_map(lambda a: xjax.lax.psum(a, "X"), in_specs=P("X", "Y"),
                         out_specs=P(None, "Y"))(X)
  assert str(xjax.typeof(total)) == "float32[2,4@Y]" and float(total.sum()) == 496.0
  for spec, typed, arg in ((P("X", None), "P('X', 'Y')", X),
                           (P("Y", None), "P('X', 'Y')", X),
                           (P("X", None), "P(None, None)", jnp.ones((8, 4)))):
    with pytest.raises(ValueError, match=re.escape(
        f"in_specs passed to shard_map: {spec} does not match the specs of the input: "
        f"{typed} for arg: float32[8")):
      xjax.shard_map(lambda a: a, in_specs=spec, out_specs=spec)(arg)


def test_scans_and_sorts_along_a_split_dimension_raise():
  with pytest.raises(ShardingTypeError, match=re.escape(
      "Input should be unsharded over the axis being reduced. Got input type=float32[8@X,4] "
      "and axis=0")):
    jnp.cumsum(ROWS, axis=0)
  with pytest.raises(ShardingTypeError, match="Arguments to sort must be unsharded over the "
                                              "sorting dimension. Got arg sharding="):
    jnp.sort(ROWS, axis=0)


_GATHER = ("Use `.at[...].get(out_sharding=)` to provide output PartitionSpec for the gather "
           "indexing as out sharding could not be resolved unambiguously (or would require "
           "collectives on inputs). Got operand=ShapedArray({}), indices=ShapedArray({})")
_AMESH = ("NamedSharding(mesh=AbstractMesh('X': 4, 'Y': 2, axis_types=(Explicit, Explicit), "
          "device_kind=cpu, num_cores=None, platform=cpu), spec={})")


@pytest.mark.parametrize("f, message", [
    # an Array over several devices is indexed by a gather wherever the index cuts
    (lambda: X[0], _GATHER.format("float32[8@X,4@Y]", "int32[1]")),
    (lambda: X[1:3], _GATHER.format("float32[8@X,4@Y]", "int32[1]")),
    (lambda: X[0:4], _GATHER.format("float32[8@X,4@Y]", "int32[1]")),
    (lambda: X[:, 1], _GATHER.format("float32[8@X,4@Y]", "int32[1]")),
    (lambda: ROWS[jnp.array([0, 2])], _GATHER.format("float32[8@X,4]", "int32[2,1]")),
    (lambda: jnp.take(ROWS, jnp.array([0, 2]), axis=0),
     _GATHER.format("float32[8@X,4]", "int32[2,1]")),
    (lambda: xjax.jit(lambda a: a[0:2])(X),
     "slicing on sharded dims where out dim (2) is not divisible by mesh axes (4) with spec "
     "(X) is not implemented. Got input type=f32[8@X,4@Y] and output shape=(2, 4)"),
    (lambda: xjax.jit(lambda a: xjax.lax.dynamic_slice(a, (0, 0), (8, 1)))(X),
     "dynamic_slice on sharded dims where out dim (1) is not divisible by mesh axes (2) with "
     "spec (Y) is not implemented. Got input type=f32[8@X,4@Y] and output shape=(8, 1)"),
    (lambda: xjax.jit(lambda a: xjax.lax.pad(a, 0.0, ((1, 1, 0), (0, 0, 0))))(X),
     "padding on sharded dims where out dim (10) is not divisible by mesh axes (4) with spec "
     "(X) is not implemented. Got input type=f32[8@X,4@Y] and output shape=(10, 4)"),
    (lambda: xjax.lax.dynamic_update_slice(X, jnp.ones((2, 4)), (0, 0)),
     "dynamic_update_slice operand sharding must be equal to update sharding, got operand "
     "sharding float32[8@X,4@Y]({Explicit: ('X', 'Y')}) and update sharding "
     "float32[2,4]({Explicit: ('X', 'Y')})."),
    (lambda: jnp.where(X > 0, X, xjax.device_put(jnp.ones((8, 4)), P("Y", None))),
     "select cases must have the same shardings, got [" + _AMESH.format("P('Y', None)") + ", "
     + _AMESH.format("P('X', 'Y')") + "]."),
    (lambda: jnp.where(X > 0, X, jnp.ones((8, 4))),
     "select cases must have the same shardings, got [" + _AMESH.format("P(None, None)") + ", "
     + _AMESH.format("P('X', 'Y')") + "]."),
    (lambda: xjax.lax.select_n(xjax.device_put(jnp.ones((8, 4), bool), P("Y", None)), X, X),
     "select `which` must be scalar or have the same sharding as cases, got `which` sharding "
     + _AMESH.format("P('Y', None)") + " but case sharding " + _AMESH.format("P('X', 'Y')")
     + "."),
])
def test_cutting_a_split_dimension_or_mixing_splits_raises(f, message):
  with pytest.raises(ShardingTypeError) as e:
    f()
  assert str(e.value) == message


@pytest.mark.parametrize("f, want", [
    (lambda: ROWS[:, 0], "float32[8@X]"),  # (a gather taking dimension 0 whole)
    (lambda: xjax.jit(lambda a: a[0:4])(X), "float32[4@X,4@Y]"),  # 4 rows divide among 4
    (lambda: xjax.jit(lambda a: xjax.lax.slice(a, (0, 0), (8, 2)))(X), "float32[8@X,2@Y]"),
    (lambda: xjax.jit(lambda a: a[::2])(xjax.device_put(jnp.ones((16, 4)), P("X"))),
     "float32[8@X,4]"),
    (lambda: xjax.jit(lambda a: xjax.lax.pad(a, 0.0, ((2, 2, 0), (0, 0, 0))))(X),
     "float32[12@X,4@Y]"),
    (lambda: xjax.lax.select_n(True, X, X), "float32[8@X,4@Y]"),
    (lambda: xjax.vmap(lambda a, b: a * b)(ROWS, xjax.device_put(jnp.ones(8), P("X"))),
     "float32[8@X,4]"),
    (lambda: xjax.vmap(lambda a, b: a * b.sum(), in_axes=(0, None))(
        ROWS, xjax.device_put(jnp.ones((4, 8)), P(None, "Y"))), "float32[8@X,4]"),
])
def test_cuts_that_divide_among_the_devices_keep_the_split(f, want):
  assert typeof(f) == want


@pytest.mark.parametrize("f, message", [
    (lambda: xjax.vmap(lambda a, b: a + b)(X, xjax.device_put(jnp.ones((8, 4)), P("Y", None))),
     "Mapped away dimension of inputs passed to vmap should be sharded the same. Got "
     "inconsistent axis specs: X vs Y"),
    (lambda: xjax.vmap(lambda a, b: a * b)(jnp.ones(8), ROWS),
     "Mapped away dimension of inputs passed to vmap should be sharded the same. Got "
     "inconsistent axis specs: None vs X"),
    (lambda: xjax.vmap(lambda a, b: a * b)(xjax.device_put(jnp.ones((8, 4)), P(("X", "Y"))),
                                           xjax.device_put(jnp.ones(8), P("X"))),
     "Mapped away dimension of inputs passed to vmap should be sharded the same. Got "
     "inconsistent axis specs: ('X', 'Y') vs X"),
    (lambda: xjax.vmap(lambda a, b: a * b, in_axes=(0, None))(
        ROWS, xjax.device_put(jnp.ones((4, 8)), P(None, "X"))),
     "Unmapped values passed to vmap cannot be sharded along the mesh axis you are vmapping "
     "over. Got type: f32[4,8@X], in_axes: None and vmapped mesh axis: ('X',)"),
])
def test_vmap_over_inputs_split_differently_raises(f, message):
  with pytest.raises(ValueError) as e:
    f()
  assert str(e.value) == message


def test_jaxprs_print_the_types():
  assert str(xjax.make_jaxpr(lambda a: a + 1)(X)) == (
      "{ lambda ; a:f32[8@X,4@Y]. let b:f32[8@X,4@Y] = add a 1.0:f32[] in (b,) }")
  assert str(xjax.make_jaxpr(lambda a: jnp.dot(a, a.T, out_sharding=P("X", None)))(X)) == (
      "{ lambda ; a:f32[8@X,4@Y]. let\n"
      "    b:f32[4@Y,8@X] = transpose[permutation=(1, 0)] a\n"
      "    c:f32[8@X,8] = dot_general[\n"
      "      dimension_numbers=(([1], [0]), ([], []))\n"
      "      preferred_element_type=float32\n"
      "    ] a b\n"
      "  in (c,) }")


def test_values_and_layouts_follow_the_types():
  host = np.arange(32.0, dtype=np.float32).reshape(8, 4)
  for got, want, spec in [(X * 2, host * 2, P("X", "Y")), (X.sum(0), host.sum(0), P("Y")),
                          (xjax.jit(lambda a: a.sum(1))(X), host.sum(1), P("X")),
                          (xjax.jit(lambda a: a.T + 1)(X), host.T + 1, P("Y", "X")),
                          (X @ jnp.ones((4, 3)), host @ np.ones((4, 3)), P("X", None))]:
    np.testing.assert_array_equal(np.asarray(got), want)
    assert got.sharding.spec == spec and got.sharding.mesh == MESH


def test_data_and_tensor_parallel_mlp_trains_as_on_one_device():
  """Batch split over X, the hidden layer over Y: the losses are those of the same
  training on one device (JAX 0.10.2 gives these, on one device and on this mesh)."""
  k1, k2 = xjax.random.split(xjax.random.key(0))
  params = {"w1": xjax.device_put(xjax.random.normal(k1, (16, 32)) * 0.1, P(None, "Y")),
            "b1": xjax.device_put(jnp.zeros(32), P("Y")),
            "w2": xjax.device_put(xjax.random.normal(k2, (32, 4)) * 0.1, P("Y", None)),
            "b2": xjax.device_put(jnp.zeros(4), P())}
  x = xjax.device_put(xjax.random.normal(xjax.random.key(1), (64, 16)), P("X", None))
  y = xjax.device_put(xjax.nn.one_hot(
      xjax.random.randint(xjax.random.key(2), (64,), 0, 4), 4), P("X", None))

  def loss(p, x, y):
    h = xjax.nn.relu(x @ p["w1"] + p["b1"])
    logits = jnp.dot(h, p["w2"], out_sharding=P("X", None)) + p["b2"]
    return -jnp.mean(jnp.sum(xjax.nn.log_softmax(logits) * y, axis=-1))

  @xjax.jit
  def step(p, x, y):
    value, g = xjax.value_and_grad(loss)(p, x, y)
    return xjax.tree.map(lambda a, b: a - 0.1 * b, p, g), value

  compiled = step.lower(params, x, y).compile()  # the program over the mesh, as JAX's
  hlo = compiled.as_text()
  counts = {op: len(re.findall(rf"\b{op}(-start)?\(", hlo))
            for op in ("all-reduce", "all-gather", "reduce-scatter", "all-to-all")}
  assert counts == {"all-reduce": 2, "all-gather": 0, "reduce-scatter": 0, "all-to-all": 0}
  assert compiled.input_shardings[0][0]["w1"].spec == P(None, "Y")
  first, value = compiled(params, x, y)
  assert float(value) == 1.394510269165039
  losses = []
  for _ in range(5):
    params, value = step(params, x, y)
    losses.append(float(value))
  assert losses == [1.394510269165039, 1.386703610420227, 1.3794395923614502,
                    1.372548222541809, 1.3660461902618408]
  assert {k: str(xjax.typeof(v)) for k, v in params.items()} == {
      "w1": "float32[16,32@Y]", "b1": "float32[32@Y]", "w2": "float32[32@Y,4]",
      "b2": "float32[4]"}


def test_vmap_spmd_axis_name():
  """Over Explicit axes the batch's split is in the types, which spmd_axis_name must name
  (JAX's ValueError otherwise); over Auto axes it splits the batch dimension of the
  sharding constraints made under the vmap."""
  assert typeof(lambda: xjax.vmap(lambda r: r * 2, spmd_axis_name="X")(ROWS)) == "float32[8@X,4]"
  assert typeof(lambda: xjax.vmap(lambda r: r * 2, spmd_axis_name="X")(jnp.ones((8, 4)))) == (
      "float32[8,4]")
  with pytest.raises(ValueError) as e:
    xjax.vmap(lambda r: r, spmd_axis_name="Y")(ROWS)
  assert str(e.value) == (
      "Only one of spmd_axis_name or arrays sharded on `Explicit` mesh axis type is allowed. "
      "Got spmd_axis_name=('Y',) and arrays sharded on explicit_mesh_axis=('X',)")
  auto = xjax.make_mesh((4, 2), ("X", "Y"), axis_types=(xjax.sharding.AxisType.Auto,) * 2)
  f = xjax.vmap(lambda r: xjax.lax.with_sharding_constraint(
      r * 2, xjax.sharding.NamedSharding(auto, P("Y"))), spmd_axis_name="X")
  with xjax.set_mesh(auto):
    out = xjax.jit(f)(jnp.arange(32.0).reshape(8, 4))
  assert out.sharding.spec == P("X", "Y")
  np.testing.assert_array_equal(np.asarray(out), np.arange(32.0).reshape(8, 4) * 2)


def test_programs_over_the_mesh_check_deleted_inputs_and_nans():
  double = xjax.jit(lambda a: a * 2)
  x = xjax.device_put(jnp.arange(8.0), P("X"))
  double(x)
  x.delete()
  with pytest.raises(RuntimeError, match=re.escape("Array has been deleted with "
                                                   "shape=float32[8@X].")):
    double(x)
  y = xjax.device_put(jnp.arange(8.0), P("X"))
  xjax.config.update("jax_debug_nans", True)
  try:
    with pytest.raises(FloatingPointError, match=re.escape("invalid value (nan) encountered in")):
      xjax.jit(lambda a: jnp.log(a - 1.0))(y)
  finally:
    xjax.config.update("jax_debug_nans", False)
  np.testing.assert_array_equal(np.asarray(xjax.jit(lambda a: a + 1)(y)), np.arange(8.0) + 1)


IMG = xjax.device_put(jnp.arange(8 * 3 * 8 * 8.0).reshape(8, 3, 8, 8) / 100, P("X"))
KERNEL = jnp.arange(4 * 3 * 3 * 3.0).reshape(4, 3, 3, 3) / 10
_CONV = xjax.lax.conv_general_dilated
_max_pool = lambda a, w, s: xjax.lax.reduce_window(a, -jnp.inf, xjax.lax.max, w, s, "VALID")


@pytest.mark.parametrize("f, want", [
    (lambda: _CONV(IMG, KERNEL, (1, 1), "SAME"), "float32[8@X,4,8,8]"),
    (lambda: _CONV(xjax.device_put(jnp.ones((8, 3, 8, 8)), P(None, None, "X", "Y")), KERNEL,
                   (1, 1), "SAME"), "float32[8,4,8@X,8@Y]"),
    (lambda: _CONV(IMG, KERNEL, (2, 2), "VALID"), "float32[8@X,4,3,3]"),
    (lambda: _CONV(xjax.device_put(jnp.ones((8, 8, 8, 3)), P("X")), jnp.ones((3, 3, 3, 4)),
                   (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")),
     "float32[8@X,8,8,4]"),
    (lambda: _CONV(IMG, KERNEL, (1, 1), "SAME", out_sharding=P("X", "Y")),
     "float32[8@X,4@Y,8,8]"),
    (lambda: _CONV(IMG, xjax.device_put(KERNEL, P("X")), (1, 1), "SAME", out_sharding=P("X")),
     "float32[8@X,4,8,8]"),
    (lambda: _CONV(jnp.ones((8, 3, 8, 8)), KERNEL, (1, 1), "SAME", out_sharding=P("X")),
     "float32[8@X,4,8,8]"),
    (lambda: xjax.grad(lambda a: _CONV(a, KERNEL, (1, 1), "SAME").sum())(IMG),
     "float32[8@X,3,8,8]"),
    (lambda: xjax.grad(lambda k: _CONV(IMG, k, (1, 1), "SAME").sum())(KERNEL), "float32[4,3,3,3]"),
    (lambda: xjax.grad(lambda w: (ROWS @ w).sum())(jnp.ones((4, 6))), "float32[4,6]"),
    (lambda: jnp.dot(xjax.device_put(jnp.arange(8.0), P("X")),
                     xjax.device_put(jnp.arange(8.0), P("X")), out_sharding=P()), "float32[]"),
    (lambda: xjax.vmap(lambda a: _CONV(a, KERNEL, (1, 1), "SAME"))(
        xjax.device_put(jnp.ones((8, 2, 3, 8, 8)), P("X"))), "float32[8@X,2,4,8,8]"),
    (lambda: _max_pool(ROWS, (1, 2), (1, 2)), "float32[8@X,2]"),
    (lambda: _max_pool(ROWS, (2, 1), (2, 1)), "float32[4@X,4]"),
    (lambda: xjax.lax.reduce_window(X, 0.0, xjax.lax.add, (1, 2), (1, 2), "VALID"),
     "float32[8@X,2@Y]"),
    (lambda: xjax.lax.reduce_window(ROWS, 0.0, xjax.lax.add, (1, 2), (1, 1), "SAME"),
     "float32[8@X,4]"),
    (lambda: xjax.lax.reduce_window(ROWS, 1.0, xjax.lax.mul, (1, 2), (1, 2), "VALID"),
     "float32[8@X,2]"),
    (lambda: xjax.grad(lambda a: _max_pool(a, (1, 2), (1, 2)).sum())(ROWS), "float32[8@X,4]"),
    (lambda: xjax.grad(lambda a: xjax.lax.reduce_window(a, 0.0, xjax.lax.add, (1, 2), (1, 2),
                                                        "VALID").sum())(ROWS), "float32[8@X,4]"),
    (lambda: xjax.vmap(lambda r: xjax.lax.reduce_window(r, 0.0, xjax.lax.add, (2,), (2,),
                                                        "VALID"))(ROWS), "float32[8@X,2]"),
    (lambda: jnp.split(X, 2, axis=1), ["float32[8@X,2@Y]", "float32[8@X,2@Y]"]),
    (lambda: xjax.lax.split(X, (4, 4), axis=0), ["float32[4@X,4@Y]", "float32[4@X,4@Y]"]),
    (lambda: jnp.array_split(ROWS, 3, axis=1), ["float32[8@X,2]", "float32[8@X,1]",
                                                "float32[8@X,1]"]),
])
def test_convolutions_windows_and_splits_keep_the_split(f, want):
  got = f()
  assert ([str(xjax.typeof(g)) for g in got] if isinstance(got, list)
          else str(xjax.typeof(got))) == want


@pytest.mark.parametrize("f, message", [
    (lambda: _CONV(xjax.device_put(jnp.ones((8, 4, 8, 8)), P(None, "X")), jnp.ones((4, 4, 3, 3)),
                   (1, 1), "SAME"),
     "Please specify the output sharding via `out_sharding` parameter of `conv_general_dilated`"),
    (lambda: _CONV(IMG, xjax.device_put(KERNEL, P("X")), (1, 1), "SAME"),
     "Please specify the output sharding via `out_sharding` parameter of `conv_general_dilated`"),
    (lambda: _CONV(xjax.device_put(jnp.ones((8, 3, 8, 8)), P(None, None, "X")), KERNEL, (2, 2),
                   "VALID"),
     "conv_general_dilated on sharded dims where out dim (3) is not divisible by mesh axes (4) "
     "with spec (X) is not implemented. Got input type=f32[8,3,8@X,8] and output "
     "shape=(np.int64(8), np.int64(4), np.int64(3), np.int64(3))"),
    (lambda: jnp.convolve(xjax.device_put(jnp.ones(8), P("X")), jnp.ones(3)),
     "conv_general_dilated on sharded dims where out dim (10) is not divisible by mesh axes (4) "
     "with spec (X) is not implemented. Got input type=f32[1,1,8@X] and output "
     "shape=(np.int64(1), np.int64(1), np.int64(10))"),
    (lambda: _max_pool(ROWS, (3, 1), (1, 1)),
     "reduce_window on sharded dims where out dim (6) is not divisible by mesh axes (4) with "
     "spec (X) is not implemented. Got input type=f32[8@X,4] and output shape=(6, 4)"),
    (lambda: xjax.lax.reduce_window(ROWS, -jnp.inf, xjax.lax.max, (1, 2), (1, 2), "VALID",
                                    base_dilation=(2, 1)),
     "reduce_window on sharded dims where out dim (15) is not divisible by mesh axes (4) with "
     "spec (X) is not implemented. Got input type=f32[8@X,4] and output shape=(15, 2)"),
    (lambda: jnp.split(ROWS, [2], axis=0),
     "split on sharded dims where out dim (2) is not divisible by mesh axes (4) with spec (X) "
     "is not implemented. Got input type=f32[8@X,4] and output shape=(np.int64(2), 4)"),
    (lambda: xjax.jit(lambda a: jnp.split(a, [2], axis=0))(ROWS),
     "split on sharded dims where out dim (2) is not divisible by mesh axes (4) with spec (X) "
     "is not implemented. Got input type=f32[8@X,4] and output shape=(np.int64(2), 4)"),
])
def test_convolutions_windows_and_splits_refuse_as_jax(f, message):
  with pytest.raises(ShardingTypeError) as e:
    f()
  assert str(e.value) == message


def test_convolution_out_sharding_is_its_parameter_and_values_follow():
  jaxpr = str(xjax.make_jaxpr(lambda a, b: _CONV(a, b, (1, 1), "SAME", out_sharding=P("X", "Y")))(
      IMG, KERNEL))
  assert "c:f32[8@X,4@Y,8,8] = conv_general_dilated[" in jaxpr
  assert ("out_sharding=NamedSharding(mesh=AbstractMesh('X': 4, 'Y': 2, axis_types=(Explicit, "
          "Explicit), device_kind=cpu, num_cores=None, platform=cpu), spec=P('X', 'Y'))") in jaxpr
  grads = str(xjax.make_jaxpr(xjax.grad(lambda a, b: _CONV(a, b, (1, 1), "SAME").sum(),
                                        (0, 1)))(IMG, KERNEL))
  assert "spec=P(None, None, None, None))" in grads and "spec=P('X', None, None, None))" in grads
  out = _CONV(IMG, KERNEL, (1, 1), "SAME", out_sharding=P("X", "Y"))
  assert out.sharding.spec == P("X", "Y", None, None)
  # (JAX's values; their last bits vary between CPUs, JAX's too)
  np.testing.assert_allclose([float(out.sum()), float(np.asarray(out)[3, 2, 4, 5])],
                             [1926081.5, 1235.510986328125], rtol=1e-6)
  pooled = _max_pool(xjax.device_put(jnp.arange(32.0).reshape(8, 4), P("X")), (1, 2), (1, 2))
  assert pooled.sharding.spec == P("X", None)
  np.testing.assert_array_equal(np.asarray(pooled), np.arange(32.0).reshape(8, 2, 2).max(-1))


BATCH = xjax.device_put(jnp.broadcast_to(jnp.eye(4) * 4 + jnp.ones((4, 4)), (8, 4, 4)), P("X"))
_LA = xjax.lax.linalg


def _types(got):
  return ([str(xjax.typeof(g)) for g in got] if isinstance(got, (list, tuple))
          else str(xjax.typeof(got)))


@pytest.mark.parametrize("f, want", [
    (lambda: _LA.eigh(BATCH), ["float32[8@X,4,4]", "float32[8@X,4]"]),
    (lambda: _LA.svd(BATCH), ["float32[8@X,4,4]", "float32[8@X,4]", "float32[8@X,4,4]"]),
    (lambda: _LA.svd(BATCH, compute_uv=False), "float32[8@X,4]"),
    (lambda: _LA.lu(BATCH), ["float32[8@X,4,4]", "int32[8@X,4]", "int32[8@X,4]"]),
    (lambda: _LA.eig(BATCH), ["complex64[8@X,4]", "complex64[8@X,4,4]", "complex64[8@X,4,4]"]),
    (lambda: _LA.schur(BATCH), ["float32[8@X,4,4]", "float32[8@X,4,4]"]),
    (lambda: _LA.hessenberg(BATCH), ["float32[8@X,4,4]", "float32[8@X,3]"]),
    (lambda: _LA.tridiagonal(BATCH), ["float32[8@X,4,4]", "float32[8@X,4]", "float32[8@X,3]",
                                      "float32[8@X,3]"]),
    (lambda: _LA.householder_product(BATCH, xjax.device_put(jnp.ones((8, 4)), P("X"))),
     "float32[8@X,4,4]"),
    (lambda: _LA.symmetric_product(BATCH, BATCH), "float32[8@X,4,4]"),
    (lambda: _LA.tridiagonal_solve(*[xjax.device_put(jnp.ones((8, 4)), P("X"))] * 3,
                                   xjax.device_put(jnp.ones((8, 4, 2)), P("X"))),
     "float32[8@X,4,2]"),
    (lambda: _LA.lu_pivots_to_permutation(xjax.device_put(jnp.zeros((8, 4), jnp.int32), P("X")),
                                          4), "int32[8@X,4]"),
    (lambda: _LA.triangular_solve(BATCH, BATCH, left_side=True), "float32[8@X,4,4]"),
    (lambda: _LA.triangular_solve(xjax.device_put(jnp.ones((8, 4, 4)), P("X", "Y")), BATCH,
                                  left_side=True), "float32[8@X,4@Y,4]"),
    (lambda: _LA.triangular_solve(BATCH, xjax.device_put(jnp.ones((8, 4, 4)), P("X", "Y")),
                                  left_side=False), "float32[8@X,4@Y,4]"),
    (lambda: jnp.linalg.eigh(BATCH), ["float32[8@X,4]", "float32[8@X,4,4]"]),
    (lambda: jnp.linalg.svd(BATCH), ["float32[8@X,4,4]", "float32[8@X,4]", "float32[8@X,4,4]"]),
    (lambda: jnp.linalg.solve(BATCH, xjax.device_put(jnp.ones((8, 4, 1)), P("X"))),
     "float32[8@X,4,1]"),
    (lambda: jnp.linalg.det(BATCH), "float32[8@X]"),
    (lambda: jnp.linalg.slogdet(BATCH), ["float32[8@X]", "float32[8@X]"]),
    (lambda: jnp.linalg.pinv(BATCH), "float32[8@X,4,4]"),
    (lambda: xjax.vmap(_LA.cholesky)(BATCH), "float32[8@X,4,4]"),
    (lambda: xjax.grad(lambda b: _LA.eigh(b)[0].sum())(BATCH), "float32[8@X,4,4]"),
    (lambda: jnp.where(xjax.device_put(jnp.arange(8) > 2, P("X")), jnp.ones(8), 1),
     "float32[8@X]"),
    (lambda: jnp.diagonal(BATCH, axis1=-2, axis2=-1), "float32[8@X,4]"),
])
def test_linear_algebra_keeps_batch_splits(f, want):
  assert _types(f()) == want


@pytest.mark.parametrize("f, message", [
    (lambda: _LA.qr(xjax.device_put(jnp.ones((8, 4, 4)), P(None, "Y"))),
     "Input 0 to qr must be unsharded on non-batch dimensions, but got P(None, 'Y', None)."),
    (lambda: _LA.householder_product(BATCH, jnp.ones((8, 4))),
     "All inputs to householder_product must have the same batch sharding, but got [('X',), "
     "(None,)]."),
    (lambda: _LA.triangular_solve(BATCH, xjax.device_put(jnp.ones((8, 4, 4)), P(None, None, "Y")),
                                  left_side=True),
     "All inputs to triangular_solve must have the same batch sharding, but got ('X',) and "
     "(None,)."),
    (lambda: _LA.triangular_solve(BATCH, xjax.device_put(jnp.ones((8, 4, 4)), P("Y")),
                                  left_side=True),
     "All inputs to triangular_solve must have the same batch sharding, but got ('X',) and "
     "('Y',)."),
    (lambda: _LA.triangular_solve(xjax.device_put(jnp.ones((8, 4, 4)), P("X", None, "Y")), BATCH,
                                  left_side=True),
     "triangular solve input `a` must be unsharded on the contracting axis, but got "
     "P('X', None, 'Y') with left_side=True and transpose_a=False."),
    (lambda: _LA.triangular_solve(xjax.device_put(jnp.ones((8, 4, 4)), P("X", "Y")), BATCH,
                                  left_side=True, transpose_a=True),
     "triangular solve input `a` must be unsharded on the contracting axis, but got "
     "P('X', 'Y', None) with left_side=True and transpose_a=True."),
])
def test_linear_algebra_refuses_split_matrices(f, message):
  with pytest.raises(ShardingTypeError) as e:
    f()
  assert str(e.value) == message


def test_linear_algebra_values_over_the_mesh():
  host = np.broadcast_to(np.eye(4) * 4 + np.ones((4, 4)), (8, 4, 4))
  np.testing.assert_allclose(np.asarray(jnp.linalg.det(BATCH)), np.linalg.det(host), rtol=1e-5)
  w, v = jnp.linalg.eigh(BATCH)
  np.testing.assert_allclose(np.asarray(w), np.linalg.eigvalsh(host), rtol=1e-5)
  assert w.sharding.spec == P("X", None)


# Partial-manual shard_map (axis_names=): X manual, Y left Explicit. Expected strings, values
# and errors are JAX 0.10.2's on the same programs (its types add the varying axes, "{V:X}",
# which xjax's types do not record: the body types are compared up to that suffix).

def _manual_x(f, in_specs=P("X"), out_specs=P("X")):
  return xjax.shard_map(f, in_specs=in_specs, out_specs=out_specs, axis_names={"X"})


def test_partial_manual_blocks_keep_the_other_axes_in_their_types():
  seen = []

  def body(a):
    seen.append(str(xjax.typeof(a)).split("{")[0])
    seen.append(str(xjax.typeof(xjax.lax.all_gather(a, "X", tiled=True))).split("{")[0])
    seen.append(str(xjax.typeof(a.sum(0))).split("{")[0])
    return a * 2 + xjax.lax.psum(a, "X")
  out = _manual_x(body)(X)
  assert seen == ["float32[2,4@Y]", "float32[8,4@Y]", "float32[4@Y]"]
  assert str(xjax.typeof(out)) == "float32[8@X,4@Y]" and out.sharding.spec == P("X", "Y")
  x = np.arange(32.0).reshape(8, 4)
  np.testing.assert_array_equal(out, 2 * x + np.tile(x.reshape(4, 2, 4).sum(0), (4, 1)))
  assert str(xjax.sharding.get_abstract_mesh()).startswith("AbstractMesh('X': 4, 'Y': 2, "
                                                           "axis_types=(Explicit, Explicit)")
  inner = []
  _manual_x(lambda a: inner.append(xjax.sharding.get_abstract_mesh().axis_types) or a)(X)
  assert inner == [(xjax.sharding.AxisType.Manual, xjax.sharding.AxisType.Explicit)]


def test_partial_manual_layouts_and_specs():
  x = np.arange(32.0).reshape(8, 4)
  for spec, arg, body_type, out_type in (
      (P("X"), ROWS, "float32[2,4]", "float32[8@X,4]"),
      (P(), X, "float32[8,4@Y]", "float32[8,4@Y]"),
      (P("X"), xjax.reshard(X, P("Y", "X")), "float32[2@Y,4]", "float32[8@(X,Y),4]"),
      (P(None, "X"), xjax.reshard(X, P("Y", "X")), "float32[8@Y,1]", "float32[8@Y,4@X]")):
    seen = []
    out = _manual_x(lambda a: seen.append(str(xjax.typeof(a)).split("{")[0]) or a, spec,
                    spec)(arg)
    assert (seen, str(xjax.typeof(out))) == ([body_type], out_type)
    np.testing.assert_array_equal(out, np.ones((8, 4)) if arg is ROWS else x)
  inferred = xjax.shard_map(lambda a: a + 1, out_specs=P("X"), axis_names={"X"})(X)
  assert str(xjax.typeof(inferred)) == "float32[8@X,4@Y]"
  total = _manual_x(lambda a: xjax.lax.psum(a, "X"), out_specs=P())(X)
  assert str(xjax.typeof(total)) == "float32[2,4@Y]"
  np.testing.assert_array_equal(total, x.reshape(4, 2, 4).sum(0))
  with pytest.raises(ValueError, match=re.escape(
      "Sharding spec ('Y',) implies that array axis 1 is partitioned 2 times, but does not "
      "evenly divide the dimension size 1. Got shape: (8, 1)")):
    _manual_x(lambda a: a, P(None, "X"), P(None, "X"))(X)


def test_partial_manual_collectives():
  x = np.arange(32.0).reshape(8, 4)
  shift = [(i, (i + 1) % 4) for i in range(4)]
  shifted = _manual_x(lambda a: xjax.lax.ppermute(a, "X", shift))(X)
  np.testing.assert_array_equal(shifted, np.roll(x, 2, axis=0))
  assert str(xjax.typeof(shifted)) == "float32[8@X,4@Y]"
  scaled = _manual_x(lambda a: a * xjax.lax.axis_index("X"))(X)
  np.testing.assert_array_equal(scaled, x * np.repeat(np.arange(4), 2)[:, None])
  gathered = _manual_x(lambda a: xjax.lax.all_gather(a, "X", tiled=True)[::4])(X)
  np.testing.assert_array_equal(gathered, np.tile(x[::4], (4, 1)))
  smapped = xjax.smap(lambda a: a * xjax.lax.axis_index("X"), out_axes=0, axis_name="X")(X)
  assert str(xjax.typeof(smapped)) == "float32[8@X,4@Y]"
  np.testing.assert_array_equal(smapped, x * np.repeat(np.arange(4), 2)[:, None])


def test_partial_manual_errors():
  for names, cls, msg in (
      (["X"], TypeError, "`axis_names` argument of shard_map should be of type `frozenset` "
                         "or `set`. Got type: <class 'list'>"),
      ("X", TypeError, "`axis_names` argument of shard_map should be of type `frozenset` "
                       "or `set`. Got type: <class 'str'>"),
      ({"Z"}, ValueError, "jax.shard_map requires axis_names=frozenset({'Z'}) to be a subset "
                          "of mesh.axis_names=frozenset({")):
    with pytest.raises(cls, match=re.escape(msg)):
      xjax.shard_map(lambda a: a, in_specs=P("X"), out_specs=P("X"), axis_names=names)(X)
  for in_specs, out_specs, what in ((P("X", "Y"), P("X"), "in_specs"),
                                    (P("X"), P("X", "Y"), "out_specs")):
    with pytest.raises(ValueError, match=re.escape(
        f"shard_map {what} argument must refer to an axis marked as manual "
        f"(frozenset({{'X'}})), but:\n\n  {what} refers to 'Y'")):
      _manual_x(lambda a: a, in_specs, out_specs)(X)
  with pytest.raises(NameError, match="Found an unbound axis name: Y"):
    _manual_x(lambda a: xjax.lax.psum(a, "Y"))(X)
  with pytest.raises(ValueError, match=re.escape(
      "out_specs is P() which implies that the corresponding output value is only varying "
      "across mesh axes {} and not {X}, but it was inferred to be possibly varying over {X}")):
    _manual_x(lambda a: a, out_specs=P())(X)


def test_partial_manual_grad_and_vmap():
  f = _manual_x(lambda a: jnp.sin(a) * xjax.lax.psum(a, "X"))
  x = np.arange(32.0, dtype=np.float32).reshape(8, 4)
  total = np.tile(x.reshape(4, 2, 4).sum(0), (4, 1))
  # d/dx_i sum_j sin(x_j) s_j, with s the psum over X: cos(x) s + sum over X of sin(x)
  want = np.cos(x) * total + np.tile(np.sin(x).reshape(4, 2, 4).sum(0), (4, 1))
  for arg, typed in ((X, "float32[8@X,4@Y]"), (xjax.device_put(jnp.asarray(x), P("X")),
                                               "float32[8@X,4]")):
    g = xjax.grad(lambda a: f(a).sum())(arg)
    assert str(xjax.typeof(g)) == typed
    np.testing.assert_allclose(g, want, rtol=2e-5, atol=1e-3)
  g = xjax.jit(xjax.grad(lambda a: f(a).sum()))(X)
  np.testing.assert_allclose(g, want, rtol=2e-5, atol=1e-3)
  stacked = xjax.reshard(jnp.stack([X, X + 1]), P(None, "X", "Y"))
  v = xjax.vmap(f)(stacked)
  assert str(xjax.typeof(v)) == "float32[2,8@X,4@Y]"
  np.testing.assert_allclose(v[1], np.sin(x + 1) * (total + 4), rtol=2e-5, atol=1e-3)
  v = xjax.vmap(f, in_axes=1, out_axes=1)(xjax.reshard(jnp.stack([X, X + 1], 1),
                                                       P("X", None, "Y")))
  assert str(xjax.typeof(v)) == "float32[8@X,2,4@Y]"
  np.testing.assert_allclose(v[:, 0], np.sin(x) * total, rtol=2e-5, atol=1e-3)


def test_data_parallel_over_manual_x_tensor_parallel_over_explicit_y():
  rng = np.random.RandomState(0)
  w1, w2 = rng.randn(16, 32).astype(np.float32) * 0.3, rng.randn(32, 1).astype(np.float32) * 0.3
  xs, ys = rng.randn(32, 16).astype(np.float32), rng.randn(32, 1).astype(np.float32)

  def loss(p, x, y):
    h = jnp.tanh(x @ p["w1"])  # float32[8,32@Y] on each X block
    return jnp.mean((jnp.matmul(h, p["w2"], out_sharding=P()) - y) ** 2)

  def dp_loss(p, x, y):
    return xjax.shard_map(lambda p, x, y: xjax.lax.pmean(loss(p, x, y), "X"),
                          in_specs=(P(), P("X"), P("X")), out_specs=P(),
                          axis_names={"X"})(p, x, y)

  @xjax.jit
  def step(p, x, y):
    l, g = xjax.value_and_grad(dp_loss)(p, x, y)
    return l, xjax.tree.map(lambda w, d: w - 0.1 * d, p, g)

  p = {"w1": xjax.device_put(w1, P(None, "Y")), "w2": xjax.device_put(w2, P("Y", None))}
  x, y = xjax.device_put(xs, P("X")), xjax.device_put(ys, P("X"))
  text = step.lower(p, x, y).as_text()
  groups = re.findall(r"replica_groups = dense<([^>]*)>", text)
  assert groups and set(groups) == {"[[0, 2, 4, 6], [1, 3, 5, 7]]"}  # all over X
  losses = []
  for _ in range(3):
    l, p = step(p, x, y)
    losses.append(float(l))
  assert {k: str(xjax.typeof(v)) for k, v in p.items()} == {"w1": "float32[16,32@Y]",
                                                             "w2": "float32[32@Y,1]"}
  # one device, NumPy: the same three steps of full-batch gradient descent
  a, b, want = w1.astype(np.float64), w2.astype(np.float64), []
  for _ in range(3):
    h = np.tanh(xs @ a)
    r = h @ b - ys
    want.append(float(np.mean(r ** 2)))
    dr = 2 * r / r.size
    db, da = h.T @ dr, xs.T @ ((dr @ b.T) * (1 - h ** 2))
    a, b = a - 0.1 * da, b - 0.1 * db
  np.testing.assert_allclose(losses, want, rtol=1e-5)
  np.testing.assert_allclose(losses, [3.062002182006836, 0.6610945463180542,
                                      0.41738638281822205], rtol=1e-6)  # JAX 0.10.2's


@pytest.mark.parametrize("f, want", [
    (lambda: jnp.stack([X, X]), "float32[2,8@X,4@Y]"),
    (lambda: jnp.stack([X, X], 1), "float32[8@X,2,4@Y]"),
    (lambda: jnp.stack([X, X], -1), "float32[8@X,4@Y,2]"),
    (lambda: jnp.stack([X, X.astype(jnp.int32)]), "float32[2,8@X,4@Y]"),
    (lambda: jnp.stack(X), "float32[8@X,4@Y]"),
    (lambda: jnp.concatenate([X[None], X[None]]), "float32[2,8@X,4@Y]"),
    (lambda: xjax.jit(lambda a: jnp.stack([a, a]))(X), "float32[2,8@X,4@Y]"),
    (lambda: xjax.vmap(lambda a: jnp.stack([a, a]))(X), "float32[8@X,2,4@Y]"),
    (lambda: xjax.grad(lambda a: jnp.stack([a, 2 * a]).sum())(X), "float32[8@X,4@Y]"),
    (lambda: jnp.unstack(jnp.stack([X, X]))[1], "float32[8@X,4@Y]"),
    (lambda: xjax.jit(lambda a: jnp.unstack(a)[1])(jnp.stack([X, X])), "float32[8@X,4@Y]"),
    (lambda: jnp.tile(X, (1, 1)), "float32[8@X,4@Y]"),
    (lambda: jnp.tile(X, (2, 1, 1)), "float32[2,8@X,4@Y]"),
])
def test_stacking_keeps_the_split(f, want):
  assert typeof(f) == want


def _named(spec):
  return ("NamedSharding(mesh=AbstractMesh('X': 4, 'Y': 2, axis_types=(Explicit, Explicit), "
          f"device_kind=cpu, num_cores=None, platform=cpu), spec={spec})")


@pytest.mark.parametrize("f, message", [
    (lambda: jnp.stack([X, jnp.ones((8, 4))]), "All operands should have the same sharding. "
     f"Got shardings {_named(P('X', 'Y'))}, {_named(P(None, None))}"),
    (lambda: jnp.concatenate([X, ROWS]), "All operands should have the same sharding. "
     f"Got shardings {_named(P('X', 'Y'))}, {_named(P('X', None))}"),
    (lambda: xjax.jit(lambda a: jnp.concatenate([a, jnp.ones((8, 4))]))(X),
     "All operands should have the same sharding. "
     f"Got shardings {_named(P('X', 'Y'))}, {_named(P(None, None))}"),
    (lambda: jnp.unstack(X), "unstack operand cannot be sharded on the unstacking axis 0. "
     "Got operand type=f32[8@X,4@Y]"),
    (lambda: jnp.tile(X, (2, 1)), "Operand cannot be sharded on dimension 0 when the tiling "
     "is non-trivial. Got input type: float32[8@X,4@Y] with reps: (2, 1)"),
    (lambda: jnp.tile(X, (2,)), "Operand cannot be sharded on dimension 1 when the tiling "
     "is non-trivial. Got input type: float32[8@X,4@Y] with reps: (1, 2)"),
])
def test_stacking_refuses_mixed_or_cut_splits(f, message):
  with pytest.raises(ShardingTypeError) as e:
    f()
  assert str(e.value) == message


@pytest.mark.parametrize("f, want", [
    (lambda: xjax.vmap(lambda a: (a, jnp.ones(3)))(ROWS)[1], "float32[8@X,3]"),
    (lambda: xjax.vmap(lambda a: jnp.ones(3), out_axes=1)(ROWS), "float32[3,8@X]"),
    (lambda: xjax.vmap(lambda a, b: b, in_axes=(0, None))(ROWS, jnp.ones(3)), "float32[8@X,3]"),
    (lambda: xjax.vmap(lambda a: jnp.ones(3), in_axes=1)(
        xjax.device_put(jnp.ones((3, 8)), P(None, "X"))), "float32[8@X,3]"),
    (lambda: xjax.jit(xjax.vmap(lambda a: jnp.ones(3)))(ROWS), "float32[8@X,3]"),
    (lambda: xjax.vmap(lambda a: jnp.float32(2.0))(ROWS), "float32[8@X]"),
    (lambda: xjax.vmap(lambda a: 2.0)(ROWS), "~float32[8]"),  # (a Python scalar: unsplit)
    (lambda: xjax.vmap(xjax.vmap(lambda a: 1.0))(X), "~float32[8@X,4]"),
    (lambda: xjax.vmap(lambda a: jnp.where(a > 0, a, jnp.zeros(4)))(ROWS), "float32[8@X,4]"),
    (lambda: xjax.vmap(lambda a: jnp.concatenate([a, jnp.ones(4)]))(ROWS), "float32[8@X,8]"),
])
def test_unbatched_vmap_values_take_the_mapped_split(f, want):
  assert typeof(f) == want


def test_vmap_stack_of_an_unbatched_value_refuses_as_jax():
  with pytest.raises(ShardingTypeError) as e:
    xjax.vmap(lambda a: jnp.stack([a, jnp.ones(4)]))(ROWS)
  assert str(e.value) == ("All operands should have the same sharding. Got shardings "
                          f"{_named(P('X', None))}, {_named(P(None, None))}")


_GLOBAL = np.arange(64.0, dtype=np.float32).reshape(8, 8)


@pytest.mark.parametrize("make, want", [
    (lambda s: xjax.make_array_from_callback(_GLOBAL.shape, s, lambda i: _GLOBAL[i]),
     "float32[8@X,8]"),
    (lambda s: xjax.make_array_from_process_local_data(s, _GLOBAL), "float32[8@X,8]"),
    (lambda s: xjax.make_array_from_single_device_arrays(
        _GLOBAL.shape, s, [xjax.device_put(_GLOBAL[i], d)
                           for d, i in s.addressable_devices_indices_map((8, 8)).items()]),
     "float32[8@X,8]"),
])
def test_global_arrays_carry_their_split_in_their_types(make, want):
  """Arrays assembled from pieces over Explicit axes are typed as device_put's (the
  multi-process way to feed a step typed by its shardings)."""
  a = make(xjax.sharding.NamedSharding(MESH, P("X")))
  assert str(xjax.typeof(a)) == want
  np.testing.assert_array_equal(a, _GLOBAL)


def test_reshard_to_a_sharding_over_the_abstract_mesh():
  # (as JAX 0.10.2 and flax's Variables in explicit mode: over the context mesh)
  target = xjax.sharding.NamedSharding(xjax.sharding.get_abstract_mesh(), P("X", "Y"))
  out = xjax.reshard(jnp.ones((8, 4)), target)
  assert out.sharding == xjax.sharding.NamedSharding(MESH, P("X", "Y"))
  assert str(xjax.typeof(out)) == "float32[8@X,4@Y]"


def test_eval_shape_gives_the_split_in_the_type():
  # (as JAX 0.10.2: the result's struct carries a NamedSharding over the abstract mesh)
  for out in (xjax.eval_shape(lambda a: a * 2, X), xjax.jit(lambda a: a * 2).eval_shape(X)):
    assert out.sharding == xjax.sharding.NamedSharding(
        xjax.sharding.get_abstract_mesh(), P("X", "Y"))
  assert xjax.eval_shape(lambda a: a.sum(), X).sharding == xjax.sharding.NamedSharding(
      xjax.sharding.get_abstract_mesh(), P())   # (unsplit, over the Explicit mesh)


def test_with_sharding_constraint_asserts_over_explicit_axes_as_jax():
  """Every axis of the context mesh Explicit: the constraint asserts the type's split (the
  value is returned as it is); elsewhere it may name Auto axes only."""
  wsc = xjax.lax.with_sharding_constraint
  f = xjax.jit(lambda a: wsc(a * 2, P("X", "Y")))
  assert typeof(lambda: f(X)) == "float32[8@X,4@Y]"
  np.testing.assert_array_equal(wsc(X, P("X", "Y")), X)
  with pytest.raises(AssertionError, match=re.escape(
      "`with_sharding_constraint` acts as an assert when all axes of mesh are of type "
      "`Explicit`. The array sharding: P('X', None) did not match the sharding provided: "
      "P(None, 'X').")):
    xjax.jit(lambda a: wsc(a, P(None, "X")))(ROWS)
  with pytest.raises(ValueError, match=re.escape(
      "P(UNCONSTRAINED, None) cannot contain `P.UNCONSTRAINED` when no mesh axis_types are "
      "`Auto`. Got mesh axis_types: (Explicit, Explicit)")):
    xjax.jit(lambda a: wsc(a, P(P.UNCONSTRAINED, None)))(ROWS)
  auto_y = xjax.make_mesh((4, 2), ("X", "Y"), axis_types=(xjax.sharding.AxisType.Explicit,
                                                          xjax.sharding.AxisType.Auto))
  with xjax.set_mesh(auto_y):
    rows = xjax.device_put(np.ones((8, 4), np.float32), P("X", None))
    out = xjax.jit(lambda a: wsc(a * 2, P(None, "Y")))(rows)
    np.testing.assert_array_equal(out, np.full((8, 4), 2.0))
    with pytest.raises(ValueError, match="can only refer to Auto axes of the mesh"):
      xjax.jit(lambda a: wsc(a, P("X", "Y")))(rows)


def test_jit_out_shardings_over_explicit_axes_type_the_results():
  """JAX reads an array's type from its sharding: results laid out by ``out_shardings``
  over Explicit axes are typed so (the traced result's type is not)."""
  f = xjax.jit(lambda a: a * 2, out_shardings=P("X"))
  out = f(jnp.ones((8, 4)))
  assert str(xjax.typeof(out)) == "float32[8@X,4]"
  assert out.sharding == xjax.sharding.NamedSharding(MESH, P("X"))
  np.testing.assert_array_equal(out, np.full((8, 4), 2.0))
  assert str(xjax.typeof(xjax.jit(lambda a: a + 1)(jnp.ones((8, 4))))) == "float32[8,4]"


def test_reshard_is_its_own_equation_and_transposes_to_the_operands_type():
  """JAX's ``reshard`` equation (printed without parameters); its cotangent goes back to
  the operand's type; under vmap the mapped dimension keeps its Explicit axes."""
  assert str(xjax.make_jaxpr(lambda a: xjax.reshard(a, P(None, "Y")) * 2)(ROWS)) == (
      "{ lambda ; a:f32[8@X,4]. let\n    b:f32[8,4@Y] = reshard a\n"
      "    c:f32[8,4@Y] = mul b 2.0:f32[]\n  in (c,) }")
  g = xjax.jit(xjax.grad(lambda a: (xjax.reshard(a, P(None, "Y")) ** 2).sum()))(ROWS)
  assert str(xjax.typeof(g)) == "float32[8@X,4]" and float(g.sum()) == 64.0
  g = xjax.grad(lambda a: (xjax.reshard(a, P("X")) ** 2).sum())(jnp.ones((8, 4)))
  assert str(xjax.typeof(g)) == "float32[8,4]" and g.sharding.spec == P(None, None)
  assert typeof(lambda: xjax.vmap(lambda a: xjax.reshard(a, P("Y")))(ROWS)) == (
      "float32[8@X,4@Y]")


def test_auto_axes_casts_its_arguments_to_the_auto_mesh():
  """flax's ``nnx.Embed(out_sharding=)``: a gather of rows split over X by indices split
  over Y inside ``auto_axes``, whose arguments lose the axes made Auto (JAX's mesh_cast)."""
  emb = xjax.reshard(jnp.arange(32.).reshape(8, 4), P("X"))
  idx = xjax.reshard(jnp.arange(4) * 2, P("Y"))
  with pytest.raises(ShardingTypeError, match="for the gather indexing"):
    jnp.take(emb, idx, axis=0)
  take = xjax.sharding.auto_axes(lambda e, i: jnp.take(e, i, axis=0), out_sharding=P("X"))
  want = [[0., 1., 2., 3.], [8., 9., 10., 11.], [16., 17., 18., 19.], [24., 25., 26., 27.]]
  for f in (take, xjax.jit(take)):
    out = f(emb, idx)
    assert str(xjax.typeof(out)) == "float32[4@X,4]" and out.tolist() == want
  assert str(xjax.make_jaxpr(xjax.sharding.auto_axes(lambda e: e * 2, out_sharding=P("X")))(
      X)) == ("{ lambda ; a:f32[8@X,4@Y]. let\n    b:f32[8,4] = reshard a\n"
              "    c:f32[8,4] = mul b 2.0:f32[]\n    d:f32[8@X,4] = reshard c\n  in (d,) }")


def test_computations_under_set_mesh_run_over_it_results_replicated():
  """JAX 0.10.2 (recorded on 8 devices): under ``set_mesh`` computations of uncommitted
  values run over the mesh, their results replicated there and committed; over Explicit
  axes the spec reads the type (``P(None,)``), host data put by ``jnp.array`` is ``P()``;
  ``jax.device_put`` of host data without a target, and ``with mesh:``, place nothing."""
  rep = lambda *spec: xjax.sharding.NamedSharding(MESH, P(*spec))
  x = jnp.arange(8.)
  assert x.sharding == rep(None) and x.committed and len(x.devices()) == 8
  assert str(xjax.typeof(x)) == "float32[8]"
  assert (x * 2).sharding == rep(None) and xjax.jit(lambda a: a + 1)(x).sharding == rep(None)
  assert jnp.zeros(3).sharding == rep(None) and jnp.ones((2, 2)).sharding == rep(None, None)
  assert xjax.random.normal(xjax.random.key(0), (4,)).sharding == rep(None)
  assert jnp.array([1, 2]).sharding == rep() and jnp.asarray(np.ones(2)).sharding == rep()
  assert x[2].sharding == rep() and float(jnp.sum(x)) == 28.0
  assert (X @ jnp.ones((4, 3))).sharding == rep("X", None)
  assert isinstance(xjax.device_put(np.ones(3)).sharding, xjax.sharding.SingleDeviceSharding)
  np.testing.assert_array_equal(x * 2, np.arange(8.) * 2)
  sub = xjax.make_mesh((2,), ("Z",), devices=xjax.devices()[2:4])
  with xjax.set_mesh(sub):
    y = jnp.ones(2)
    assert y.sharding == xjax.sharding.NamedSharding(sub, P(None))
    assert y.devices() == set(xjax.devices()[2:4])
  auto = xjax.make_mesh((4, 2), ("X", "Y"), axis_types=(xjax.sharding.AxisType.Auto,) * 2)
  with xjax.set_mesh(auto):
    assert jnp.arange(8.).sharding == xjax.sharding.NamedSharding(auto, P())
  with pytest.warns(DeprecationWarning, match="`with mesh:` context manager has been "
                                                "deprecated"):
    with auto:
      pass


def test_jit_in_shardings_refuse_committed_arguments_laid_out_otherwise():
  """JAX 0.10.2: an uncommitted argument is moved to ``in_shardings`` (and its layout
  propagates to the result); a committed one laid out otherwise is its ValueError, except
  between two single devices (moved)."""
  mesh = xjax.make_mesh((8,), ("x",))
  x_split = xjax.sharding.NamedSharding(mesh, P("x"))
  f = xjax.jit(lambda a: a * 2, in_shardings=x_split)
  with xjax.set_mesh(None):
    assert f(jnp.arange(8.)).sharding.spec == P("x")
  with pytest.raises(ValueError, match="Sharding passed to jit does not match the sharding "
                                       "on the respective arg"):
    f(xjax.device_put(jnp.arange(8.), xjax.sharding.NamedSharding(mesh, P())))
  with pytest.raises(ValueError, match="arg sharding: SingleDeviceSharding"):
    f(xjax.device_put(jnp.arange(8.), xjax.devices()[1]))
  one = xjax.sharding.SingleDeviceSharding(xjax.devices()[0])
  g = xjax.jit(lambda a: a * 2, in_shardings=one)
  assert g(xjax.device_put(np.arange(4.), xjax.devices()[3])).devices() == {xjax.devices()[0]}


def _layout(v):
  """Type, spec and the spec's mesh axis types, as the probe of JAX 0.10.2 printed them."""
  return (str(xjax.typeof(v)), v.sharding.spec,
          tuple(t.name for t in v.sharding.mesh.axis_types))


def test_explicit_axes_over_an_auto_mesh_types_values_and_keeps_their_layouts():
  """JAX 0.10.2 (recorded on 8 devices; Keras's ModelParallel initializers): inside
  ``explicit_axes`` over an Auto mesh, values resharded or made with ``out_sharding=`` are
  typed over the Explicit abstract mesh (laid out over the concrete mesh, whose axis types
  their shardings take); back outside, their types lose the split but their layouts stay
  (XLA's, over Auto axes), eagerly, under ``jit`` and for ``grad``."""
  auto = xjax.make_mesh((4, 2), ("batch", "model"),
                        axis_types=(xjax.sharding.AxisType.Auto,) * 2)
  explicit_axes = xjax.sharding.explicit_axes
  seen = []

  def body(a):
    b = a * 2
    seen.append((_layout(a), _layout(b)))
    return b, jnp.sum(b, axis=0)

  def traced(a):
    b = a * 2
    seen.append(str(xjax.typeof(b)))
    return b

  def init():
    x = jnp.zeros((8, 4), out_sharding=P("batch", "model"))
    y = xjax.random.normal(xjax.random.key(0), (8, 4), out_sharding=P("batch"))
    if not isinstance(x, xjax.core.Tracer):
      seen.append((_layout(x), _layout(y)))
    return x + y

  with xjax.set_mesh(auto):
    x = jnp.arange(8.).reshape(4, 2)
    b, s = explicit_axes(body)(x, in_sharding=P("batch"))
    assert seen.pop() == (("float32[4@batch,2]", P("batch", None), ("Explicit", "Explicit")),) * 2
    assert _layout(b) == ("float32[4,2]", P("batch"), ("Auto", "Auto"))
    assert _layout(s) == ("float32[2]", P(), ("Auto", "Auto"))
    np.testing.assert_array_equal(b, np.arange(8.).reshape(4, 2) * 2)
    b, _ = explicit_axes(body, axes=("batch",))(x, in_sharding=P("batch"))
    assert seen.pop() == (("float32[4@batch,2]", P("batch", None), ("Explicit", "Auto")),) * 2
    assert _layout(b) == ("float32[4,2]", P("batch"), ("Auto", "Auto"))
    out = xjax.jit(lambda a: explicit_axes(traced)(a, in_sharding=P("batch", "model")))(x)
    assert seen.pop() == "float32[4@batch,2@model]"
    assert _layout(out) == ("float32[4,2]", P("batch", "model"), ("Auto", "Auto"))
    assert str(xjax.make_jaxpr(lambda a: explicit_axes(traced, axes="model")(
        a, in_sharding=P(None, "model")))(x)) == (
            "{ lambda ; a:f32[4,2]. let\n    b:f32[4,2@model] = reshard a\n"
            "    c:f32[4,2@model] = mul b 2.0:f32[]\n    d:f32[4,2] = reshard c\n  in (d,) }")
    g = xjax.grad(lambda a: jnp.sum(explicit_axes(traced)(a, in_sharding=P("batch")) ** 2))(x)
    assert _layout(g) == ("float32[4,2]", P("batch"), ("Auto", "Auto"))
    np.testing.assert_array_equal(g, 8 * np.arange(8.).reshape(4, 2))
    r = explicit_axes(init)(in_sharding=None)
    assert seen.pop() == (("float32[8@batch,4@model]", P("batch", "model"),
                           ("Explicit", "Explicit")),
                          ("float32[8@batch,4]", P("batch", None), ("Explicit", "Explicit")))
    assert _layout(r) == ("float32[8,4]", P("batch", "model"), ("Auto", "Auto"))
    r2 = xjax.jit(lambda: explicit_axes(init)(in_sharding=None))()
    assert _layout(r2) == ("float32[8,4]", P("batch", "model"), ("Auto", "Auto"))
    np.testing.assert_array_equal(r, r2)
  mixed = xjax.make_mesh((4, 2), ("batch", "model"), axis_types=(
      xjax.sharding.AxisType.Explicit, xjax.sharding.AxisType.Auto))
  with xjax.set_mesh(mixed):
    m = explicit_axes(lambda a: a + 1, axes="model")(jnp.ones((4, 2)),
                                                       in_sharding=P("batch", "model"))
    assert _layout(m) == ("float32[4@batch,2]", P("batch", "model"), ("Explicit", "Auto"))
    # under jit too: over a mesh with Auto axes a result's layout is XLA's (JAX leaves it
    # unspecified), which keeps the split over "model"
    m = xjax.jit(lambda a: explicit_axes(lambda b: b + 1, axes="model")(
        a, in_sharding=P("batch", "model")))(jnp.ones((4, 2)))
    assert _layout(m) == ("float32[4@batch,2]", P("batch", "model"), ("Explicit", "Auto"))


def test_second_order_derivatives_of_split_arrays():
  """JAX 0.10.2 (8 devices, the mesh above): jacrev and hessian of functions of split
  arrays (reduce_sum's and gather's transposes type their results by the operand, as a
  parameter of the broadcast, which vmap splits as the operand)."""
  x = xjax.device_put(jnp.arange(8.), P("X"))
  hess = xjax.hessian(lambda a: jnp.sum(a ** 3))(x)
  assert str(xjax.typeof(hess)) == "float32[8@X,8]"
  np.testing.assert_array_equal(hess, np.diag(6 * np.arange(8.)))
  jac = xjax.jacrev(lambda a: jnp.sin(a).sum())(x)
  assert str(xjax.typeof(jac)) == "float32[8@X]"
  np.testing.assert_allclose(jac, np.cos(np.arange(8.)), rtol=1e-6)
  m = xjax.jacrev(lambda a: a.sum(1))(X)
  assert str(xjax.typeof(m)) == "float32[8,8@X,4@Y]"
  np.testing.assert_array_equal(m, np.repeat(np.eye(8)[:, :, None], 4, axis=2))
  g = xjax.jacrev(lambda a: a[:, jnp.array([1, 3])].sum())(ROWS)
  assert str(xjax.typeof(g)) == "float32[8@X,4]"
  np.testing.assert_array_equal(g, np.tile([0., 1., 0., 1.], (8, 1)))
  # JAX's jaxpr: the seed resharded onto the mesh, the typed broadcast of reduce_sum's
  # transpose
  assert str(xjax.make_jaxpr(xjax.grad(lambda a: jnp.sum(a ** 2)))(x)) == (
      "{ lambda ; a:f32[8@X]. let\n    b:f32[8@X] = integer_pow[y=2] a\n"
      "    c:f32[8@X] = mul 2.0:f32[] a\n"
      "    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] b\n"
      "    d:f32[] = reshard 1.0:f32[]\n    e:f32[8@X] = broadcast_in_dim d\n"
      "    f:f32[8@X] = mul e c\n  in (f,) }")


@pytest.mark.parametrize("f, want", [
    # JAX 0.10.2 (8 devices): Jacobian blocks are typed as JAX's (the basis split as each
    # input, the blocks keeping the other operand's splits), by a conversion's parameter
    (lambda x: xjax.jacrev(lambda a: a * 2)(x), "float32[8,8@X]"),
    (lambda x: xjax.jacfwd(lambda a: a * 2)(x), "float32[8@X,8]"),
    (lambda x: xjax.jacfwd(lambda a: a.sum(1))(X), "float32[8@X,8,4]"),
    (lambda x: xjax.jacrev(lambda a: a * 2)(X), "float32[8,4,8@X,4@Y]"),
    (lambda x: xjax.jacfwd(lambda d: {"o": d["a"] * 2})({"a": x})["o"]["a"],
     "float32[8@X,8]"),
    (lambda x: xjax.vmap(xjax.jacfwd(lambda r: jnp.sin(r) * 2))(X), "float32[8@X,4@Y,4]"),
])
def test_jacobians_of_split_arrays_are_typed_as_jax(f, want):
  out = f(xjax.device_put(jnp.arange(8.), P("X")))
  assert str(xjax.typeof(out)) == want


def test_jacobian_jaxpr_and_cotangent_type_checks():
  x = xjax.device_put(jnp.arange(8.), P("X"))
  assert str(xjax.make_jaxpr(xjax.jacfwd(lambda a: a * 2))(x)).splitlines()[7:] == [
      "    h:f32[8,8@X] = convert_element_type[new_dtype=float32 weak_type=False] g",
      "    _:f32[8@X] = mul a 2.0:f32[]",
      "    i:f32[8,8@X] = mul h 2.0:f32[]",
      "    j:f32[8@X,8] = transpose[permutation=(1, 0)] i",
      "    k:f32[8@X,8] = split[axis=1 sizes=(np.int64(8),)] j",
      "  in (k,) }"]
  np.testing.assert_array_equal(xjax.jacfwd(lambda a: a * 2)(x), 2 * np.eye(8))
  with pytest.raises(ValueError, match=re.escape(
      "unexpected JAX type (e.g. shape/dtype) for argument to VJP function: got float32[8], "
      "but expected float32[8@X] because the corresponding output of the differentiated "
      "function had JAX type float32[8@X]")):
    xjax.vjp(lambda a: a * 2, x)[1](jnp.ones(8))
  with pytest.raises(ValueError, match=re.escape(
      "Got tangent aval float32[8] for primal aval float32[8@X] but expected float32[8@X].")):
    xjax.linearize(lambda a: a * 2, x)[1](jnp.ones(8))
  ct = xjax.device_put(jnp.ones(8), P("X"))
  assert str(xjax.typeof(xjax.vjp(lambda a: a * 2, x)[1](ct)[0])) == "float32[8@X]"


def test_use_abstract_mesh_of_another_shape_inside_jit():
  """JAX 0.10.2 (its "Distributed arrays" page, 8 devices): inside ``jit`` an abstract
  mesh of another shape (the same devices, reshaped) types and lays out values over it;
  ``auto_axes``' abstract mesh keeps the devices' description."""
  @xjax.jit
  def f(a):
    abstract = xjax.sharding.AbstractMesh((8,), ("A",), (xjax.sharding.AxisType.Explicit,))
    with xjax.sharding.use_abstract_mesh(abstract):
      return xjax.reshard(a, P("A", None)) * 2
  z = f(X)
  assert str(xjax.typeof(z)) == "float32[8@A,4]"
  assert repr(z.sharding) == ("NamedSharding(mesh=Mesh('A': 8, axis_types=(Explicit,)), "
                              "spec=P('A', None), memory_kind=device)")
  np.testing.assert_array_equal(z, 2 * np.arange(32.).reshape(8, 4))
  seen = []
  xjax.sharding.auto_axes(lambda a: seen.append(repr(xjax.sharding.get_abstract_mesh())) or a,
                          out_sharding=P("X", None))(X)
  assert seen == ["AbstractMesh('X': 4, 'Y': 2, axis_types=(Auto, Auto), device_kind=cpu, "
                  "num_cores=None, platform=cpu)"]


X3 = xjax.device_put(jnp.arange(64.0).reshape(8, 4, 2), P("X", None, "Y"))
FLAT = xjax.device_put(jnp.arange(32.0), P(("X", "Y")))
UNSUPPORTED_RESHAPE = "This reshape is not supported"


@pytest.mark.parametrize("f, want", [   # (JAX 0.10.2's types, or its ShardingTypeError)
    (lambda: FLAT.reshape(4, 8), "float32[4@X,8@Y]"),    # a split's axes go piece by piece
    (lambda: FLAT.reshape(8, 4), "float32[8@(X,Y),4]"),
    (lambda: FLAT.reshape(2, 16), UNSUPPORTED_RESHAPE),
    (lambda: X3.reshape(8, 8), UNSUPPORTED_RESHAPE),     # a sharded dim after an unsharded one
    (lambda: X3.reshape(32, 2), "float32[32@X,2@Y]"),
    (lambda: xjax.device_put(jnp.ones((1, 8, 4)), P(None, "X")).reshape(32), UNSUPPORTED_RESHAPE),
    (lambda: xjax.device_put(jnp.ones((1, 8, 4)), P(None, "X")).reshape(8, 4),
     "float32[8@X,4]"),
    (lambda: X.reshape(2, 2, 2, 4), UNSUPPORTED_RESHAPE),   # two dimensions split
    (lambda: X.at[0:8].add(1.0), "float32[8@X,4@Y]"),      # whole windows keep the split
    (lambda: X.at[0, 0].set(1.0, out_sharding=P("X", "Y")), "float32[8@X,4@Y]"),
    (lambda: X.at[0].set(jnp.ones(4)), "Use `.at[...].set/add/mul/...(out_sharding=)`"),
    (lambda: X.at[:, 1].set(2.0), "Use `.at[...].set/add/mul/...(out_sharding=)`"),
    (lambda: lax.top_k(X, 2)[0], "The input should be unsharded over the axis along which "
                                 "to compute the top_k values."),
    (lambda: lax.top_k(ROWS, 2)[0], "float32[8@X,2]"),
])
def test_reshapes_scatters_and_top_k_type_as_jax(f, want):
  if want.startswith("float32"):
    assert typeof(f) == want
  else:
    with pytest.raises(ShardingTypeError, match=re.escape(want)):
      f()


def test_control_flow_types_include_the_split_and_tril_keeps_it():
  other = xjax.reshard(X, P("X", None))
  with pytest.raises(TypeError, match=re.escape(
      "The output of true_fun has type float32[8@X,4@Y] but the corresponding output of "
      "false_fun has type float32[8@X,4].")):
    lax.cond(True, lambda: X, lambda: other)
  for loop, name in ((lambda: lax.while_loop(lambda a: False,
                                             lambda a: xjax.reshard(a, P("X", None)), X),
                      "while_loop"),
                     (lambda: lax.scan(lambda c, _: (xjax.reshard(c, P("X", None)), None), X,
                                       length=2), "scan")):
    with pytest.raises(TypeError, match=re.escape(
        f"{name} body function carry input and carry output must have equal types")):
      loop()
  assert typeof(lambda: jnp.tril(X)) == typeof(lambda: jnp.triu(X, 1)) == "float32[8@X,4@Y]"
  np.testing.assert_array_equal(np.asarray(jnp.tril(X)), np.tril(np.arange(32.0).reshape(8, 4)))


def test_abstract_inputs_and_placement_errors_as_jax():
  sds = xjax.ShapeDtypeStruct((8, 4), jnp.float32,
                              sharding=xjax.sharding.NamedSharding(MESH, P("X", None)))
  assert str(xjax.eval_shape(lambda a: a * 2, sds).sharding.spec) == "P('X', None)"
  with pytest.raises(ShardingTypeError, match=re.escape(
      "dot_general operation with inputs: f32[8@X,4], f32[4,8@X] produces an illegally "
      "sharded result: f32[8@X,8@X]")):
    xjax.eval_shape(lambda a: a @ a.T, sds)
  with pytest.raises(ValueError, match=re.escape(
      "Sharding spec ('X', 'Y') implies that array axis 0 is partitioned 8 times, but does "
      "not evenly divide the dimension size 6. Got shape: (6, 4) and sharding "
      "NamedSharding(mesh=AbstractMesh('X': 4, 'Y': 2")):
    xjax.device_put(np.ones((6, 4)), xjax.sharding.NamedSharding(MESH, P(("X", "Y"))))
  with pytest.raises(ValueError, match=re.escape(
      "Resource axis: Z of P('Z',) is not found in mesh: ('X', 'Y').")):
    xjax.reshard(X, P("Z"))


def test_cotangents_take_their_operands_types_and_scan_elements_keep_their_split():
  value, grad = xjax.value_and_grad(lambda a: (a * X).sum())(ROWS)
  assert str(xjax.typeof(grad)) == "float32[8@X,4]"   # ROWS's type, as JAX's
  np.testing.assert_array_equal(np.asarray(grad), np.arange(32.0).reshape(8, 4))
  assert typeof(lambda: lax.reshape(X, (8, 4), out_sharding=P("X", None))) == "float32[8@X,4]"
  cols = xjax.reshard(X, P(None, "Y"))
  with pytest.raises(TypeError, match=re.escape(
      "scan body function carry input and carry output must have equal types")):
    lax.scan(lambda c, row: (c + row, c), jnp.zeros(4, jnp.float32), cols)
  total, _ = lax.scan(lambda c, row: (c + row, c), jnp.zeros(4, jnp.float32, out_sharding=P("Y")),
                      cols)
  assert str(xjax.typeof(total)) == "float32[4@Y]"
  np.testing.assert_array_equal(np.asarray(total), np.arange(32.0).reshape(8, 4).sum(0))
  # stacked outputs: a new unsplit leading dimension over the element's split (JAX's types)
  assert typeof(lambda: lax.scan(lambda c, _: (c, c), X, length=2)[1]) == "float32[2,8@X,4@Y]"
  assert typeof(lambda: lax.map(lambda r: r * 2, cols)) == "float32[8,4@Y]"
  scanned = lambda a: lax.scan(lambda c, row: (c + row.sum(), row * c), 0., a)[1].sum()
  assert typeof(lambda: xjax.grad(scanned)(cols)) == "float32[8,4@Y]"


KEYS = xjax.device_put(xjax.random.split(xjax.random.key(0), 8), P("X"))
UINTS = xjax.device_put(jnp.arange(32, dtype=jnp.uint32).reshape(8, 4), P("X", "Y"))


@pytest.mark.parametrize("f, want", [
    # primitives whose rules keep the operand's split (they once returned unsplit types)
    (lambda: xjax.lax.round(X), "float32[8@X,4@Y]"),
    (lambda: jnp.round(ROWS, 1), "float32[8@X,4]"),
    (lambda: jnp.signbit(ROWS), "bool[8@X,4]"),
    (lambda: xjax.lax.bitcast_convert_type(X, jnp.uint32), "uint32[8@X,4@Y]"),
    (lambda: xjax.lax.bitcast_convert_type(X, jnp.uint8), "uint8[8@X,4@Y,4]"),
    (lambda: xjax.lax.bitcast_convert_type(
        xjax.device_put(jnp.ones((8, 4, 2), jnp.float16), P("X", "Y")), jnp.float32),
     "float32[8@X,4@Y]"),
    (lambda: xjax.lax.reduce_precision(ROWS, 5, 10), "float32[8@X,4]"),
    (lambda: xjax.lax.zeta(X + 1, ROWS), "float32[8@X,4@Y]"),
    (lambda: xjax.lax.reduce((X, X), (0.0, 0.0), lambda a, b: (a[0] + b[0], a[1] * b[1]), (1,))[1],
     "float32[8@X]"),
    (lambda: jnp.frexp(ROWS)[1], "int32[8@X,4]"),
    (lambda: jnp.ldexp(ROWS, 2), "float32[8@X,4]"),
    (lambda: jnp.copysign(ROWS, -1.0), "float32[8@X,4]"),
    (lambda: jnp.spacing(X), "float32[8@X,4@Y]"),
    (lambda: jnp.floor_divide(X, 2.0), "float32[8@X,4@Y]"),
    (lambda: jnp.divmod(X, 2.0)[0], "float32[8@X,4@Y]"),
    (lambda: jnp.piecewise(ROWS, [ROWS > 1], [lambda a: a * 2, lambda a: a]), "float32[8@X,4]"),
    (lambda: xjax.lax.approx_max_k(ROWS, 2)[1], "int32[8@X,2]"),
    (lambda: jnp.tile(ROWS, (1, 2)), "float32[8@X,8]"),
    (lambda: jnp.tile(ROWS, (1, 1, 2)), "float32[1,8@X,8]"),
    (lambda: jnp.asarray([ROWS > 1]), "bool[1,8@X,4]"),
    (lambda: jnp.array((X,)), "float32[1,8@X,4@Y]"),
    (lambda: jnp.matmul(xjax.device_put(jnp.ones((4, 8, 4)), P("X", None, "Y")),
                        jnp.ones((1, 4, 3))), "float32[4@X,8,3]"),
    # key arrays keep their split through the key primitives
    (lambda: xjax.random.key_data(KEYS), "uint32[8@X,2]"),
    (lambda: xjax.vmap(lambda k: xjax.random.bits(k, (3,)))(KEYS), "uint32[8@X,3]"),
    (lambda: xjax.vmap(xjax.random.fold_in, (0, None))(KEYS, 3), "key<fry>[8@X]"),
    (lambda: xjax.vmap(xjax.random.split)(KEYS), "key<fry>[8@X,2]"),
    (lambda: xjax.random.wrap_key_data(xjax.device_put(jnp.ones((8, 2), jnp.uint32), P("X"))),
     "key<fry>[8@X]"),
    (lambda: xjax.vmap(lambda k: xjax.random.normal(k, (2,)))(KEYS), "float32[8@X,2]"),
    # samplers without a shape give unsplit results over an all-Explicit mesh, as JAX's
    (lambda: xjax.random.gamma(xjax.random.key(0), ROWS + 1), "float32[8,4]"),
    (lambda: xjax.random.dirichlet(xjax.random.key(0), ROWS + 1), "float32[8,4]"),
    (lambda: xjax.random.gamma(xjax.random.key(0), ROWS + 1, out_sharding=P("X")),
     "float32[8@X,4]"),
    (lambda: xjax.random.normal(xjax.random.key(0)), "float32[]"),
    # NumPy broadcasting of operands of different ranks (a causal mask over a batch)
    (lambda: jnp.where(jnp.tril(jnp.ones((4, 4), bool)),
                       xjax.device_put(jnp.ones((8, 4, 4)), P("X")), -jnp.inf),
     "float32[8@X,4,4]"),
    # a gather with out_sharding= runs over Auto axes, operand and indices resharded
    (lambda: xjax.device_put(jnp.ones((16, 4)), P(None, "Y")).at[
        xjax.device_put(jnp.arange(48, dtype=jnp.int32).reshape(8, 6) % 16, P("X", None))
    ].get(out_sharding=P("X", None, "Y")), "float32[8@X,6,4@Y]"),
    # and a scatter with out_sharding= likewise, eagerly and under jit
    (lambda: jnp.zeros((8, 4)).at[xjax.device_put(jnp.arange(8) % 3, P("X"))].add(
        ROWS, out_sharding=P("X")), "float32[8@X,4]"),
    (lambda: xjax.jit(lambda r, i: jnp.zeros((8, 4)).at[i].add(r, out_sharding=P("X")))(
        ROWS, xjax.device_put(jnp.arange(8) % 3, P("X"))), "float32[8@X,4]"),
])
def test_rules_keep_splits(f, want):
  assert typeof(f) == want


@pytest.mark.parametrize("f, error, message", [
    (lambda: xjax.lax.approx_max_k(X, 2), ShardingTypeError,
     "reduction dimension -1 in operand float32[8@X,4@Y] should be unsharded i.e. the spec "
     "of that dim should be `None`."),
    (lambda: jnp.array([ROWS, X]), ShardingTypeError, "All operands should have the same sharding"),
    (lambda: jnp.cumsum(X), ShardingTypeError,
     "The input should be fully replicated when axis is not specified to cumsum. Got input "
     "type=float32[8@X,4@Y]"),
    (lambda: jnp.nonzero(X > 2, size=3), ShardingTypeError,
     "The input should be fully replicated when axis is not specified to cumsum. Got input "
     "type=bool[8@X,4@Y]"),
    (lambda: jnp.matmul(xjax.device_put(jnp.ones((4, 8, 4)), P("X", None, "Y")),
                        jnp.ones((4, 4, 3))), ValueError,
     "Incompatible types for matmul arguments: float32[4@X,8,4@Y] and float32[4,4,3]"),
    (lambda: xjax.random.beta(xjax.random.key(0), ROWS + 1, ROWS + 1), ValueError,
     "Mapped away dimension of inputs passed to vmap should be sharded the same. Got "
     "inconsistent axis specs: None vs X"),
])
def test_rules_refuse_as_jax(f, error, message):
  with pytest.raises(error) as e:
    f()
  assert message in str(e.value)


@pytest.mark.parametrize("name, make, typed, total", [
    ("zeros", lambda I: I.zeros, "float32[8@X,4@Y]", 0.0),
    ("constant", lambda I: I.constant(0.5), "float32[8@X,4@Y]", 16.0),
    ("normal", lambda I: I.normal(), "float32[8@X,4@Y]", float.fromhex("0x1.2965860000000p-2")),
    ("glorot", lambda I: I.glorot_uniform(), "float32[8@X,4@Y]",
     float.fromhex("0x1.8933280000000p+3")),
    ("he", lambda I: I.he_normal(), "float32[8@X,4@Y]", float.fromhex("0x1.dc09a00000000p+3")),
    # (JAX draws complex kernels unsplit, out_sharding or not)
    ("complex", lambda I: I.lecun_normal(dtype=jnp.complex64), "complex64[8,4]",
     float.fromhex("0x1.50e4180000000p+3")),
])
def test_initializers_take_out_sharding(name, make, typed, total):
  # JAX 0.10.2's types and sums (of the jitted draw's magnitudes) on this mesh
  init, key = make(xjax.nn.initializers), xjax.random.key(0)
  a = xjax.jit(lambda k: init(k, (8, 4), out_sharding=P("X", "Y")))(key)
  assert str(xjax.typeof(a)) == typed
  assert float(jnp.sum(jnp.abs(a))) == total
  eager = init(key, (8, 4), out_sharding=P(None, "Y"))
  assert str(xjax.typeof(eager)) == typed.replace("8@X", "8")
  with pytest.raises(NotImplementedError):
    xjax.nn.initializers.orthogonal()(key, (4, 4), out_sharding=P("X"))
