"""pmap and shard_map over 4 CPU devices, with XLA collectives (run by tests/api/test_pmap.py in
a subprocess).  Expected values, layouts and messages are those of JAX 0.10.2."""
import numpy as np
import pytest

import xjax as jax
import xjax.numpy as jnp
from xjax import lax, shard_map
from xjax.sharding import Mesh, NamedSharding, PartitionSpec as P

if jax.device_count() < 4:
  pytest.skip("needs 4 CPU devices (run through tests/api/test_pmap.py)", allow_module_level=True)

mesh = Mesh(np.array(jax.devices()).reshape(2, 2), ("x", "y"))
X = np.arange(16.0, dtype=np.float32).reshape(4, 4)
A = np.arange(8.0, dtype=np.float32).reshape(4, 2)


def _lists(outs):
  return [np.asarray(o).tolist() for o in outs]


def test_pmap_collectives():
  pm = jax.pmap(lambda a: (
      lax.psum(a, "i"), lax.pmean(a, "i"), lax.axis_index("i"), lax.all_gather(a, "i"),
      lax.ppermute(a, "i", [(i, (i + 1) % 4) for i in range(4)]),
      lax.pshuffle(a, "i", [3, 2, 1, 0]),
      lax.psum_scatter(jnp.arange(8.0).reshape(4, 2) * a[0], "i"),
      lax.all_to_all(jnp.arange(8.0).reshape(4, 2) + a[0], "i", 0, 0)), axis_name="i")
  rows = [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0]]
  assert _lists(pm(A)) == [
      [[12.0, 16.0]] * 4, [[3.0, 4.0]] * 4, [0, 1, 2, 3], [rows] * 4,
      [[6.0, 7.0], [0.0, 1.0], [2.0, 3.0], [4.0, 5.0]],
      [[6.0, 7.0], [4.0, 5.0], [2.0, 3.0], [0.0, 1.0]],
      [[0.0, 12.0], [24.0, 36.0], [48.0, 60.0], [72.0, 84.0]],
      [[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0]],
       [[2.0, 3.0], [4.0, 5.0], [6.0, 7.0], [8.0, 9.0]],
       [[4.0, 5.0], [6.0, 7.0], [8.0, 9.0], [10.0, 11.0]],
       [[6.0, 7.0], [8.0, 9.0], [10.0, 11.0], [12.0, 13.0]]]]


def test_pmap_results_are_split_over_the_devices():
  out = jax.pmap(lambda a: a * 2)(A)
  np.testing.assert_array_equal(out, A * 2)
  pmesh = Mesh(np.array(jax.devices()), ("_internal_pmap_axis_name",))
  assert out.sharding == NamedSharding(pmesh, P("_internal_pmap_axis_name"))
  assert [s.device for s in out.addressable_shards] == jax.devices()
  np.testing.assert_array_equal(out[2], A[2] * 2)
  assert "Array([[ 0.,  2.]," in repr(out)


def test_pmap_composes_with_grad_jit_vmap():
  grads = jax.pmap(jax.grad(lambda w, x: lax.pmean(((w * x) ** 2).sum(), "i")),
                   axis_name="i", in_axes=(None, 0))(np.ones(2, np.float32), A)
  np.testing.assert_allclose(grads, [[0, 2], [8, 18], [32, 50], [72, 98]])
  f = jax.pmap(lambda a: jax.vmap(lambda r: lax.psum(r, "i") * r)(a), axis_name="i")
  B = np.arange(24.0, dtype=np.float32).reshape(4, 3, 2)
  np.testing.assert_allclose(f(B), B.sum(0) * B)
  jitted = jax.jit(lambda a: jax.pmap(lambda r: lax.psum(r, "i"), axis_name="i")(a) + 1)
  np.testing.assert_allclose(jitted(A), np.broadcast_to(A.sum(0) + 1, (4, 2)))
  inner_jit = jax.pmap(jax.jit(lambda r: jnp.sin(r)))
  np.testing.assert_allclose(inner_jit(A), np.sin(A), rtol=1e-6)
  total = jax.grad(lambda a: jax.pmap(lambda r: (r ** 2).sum())(a).sum())(A)
  np.testing.assert_allclose(total, 2 * A)


def test_pmap_axes_statics_and_sizes():
  out = jax.pmap(lambda a, b, k: a * k + b, in_axes=(1, None), static_broadcasted_argnums=2,
                 out_axes=1)(A.T, np.ones(1, np.float32), 3.0)
  np.testing.assert_allclose(out, (A * 3 + 1).T)
  two = jax.pmap(lambda a: lax.psum(a, "i"), axis_name="i")(A[:2])
  np.testing.assert_allclose(two, [[2.0, 4.0]] * 2)
  assert two.devices() == set(jax.devices()[:2])
  with pytest.raises(ValueError, match="requires 5 logical devices, but only 4"):
    jax.pmap(lambda a: a)(np.ones((5, 2)))
  with pytest.raises(ValueError, match=r"inconsistent sizes for array axes to be mapped"):
    jax.pmap(lambda a, b: a + b)(np.ones((4, 2)), np.ones((3, 2)))
  with pytest.raises(NameError, match="unbound axis name: j"):
    jax.pmap(lambda a: lax.psum(a, "j"), axis_name="i")(A)


def test_shard_map_psum_and_grad():
  f = shard_map(lambda a, w: lax.psum((a * w).sum(), ("x", "y")), mesh=mesh,
                in_specs=(P("x", "y"), P()), out_specs=P())
  assert float(f(X, 2.0)) == 240.0
  ga, gw = jax.grad(f, argnums=(0, 1))(X, 2.0)
  np.testing.assert_array_equal(ga, np.full((4, 4), 2.0))
  assert float(gw) == 120.0
  text = jax.jit(f).lower(X, 2.0).as_text()
  for piece in ('call_target_name = "SPMDFullToShardShape", mhlo.sharding = "{manual}"',
                'mhlo.sharding = "{devices=[2,2]0,1,2,3}"', '"stablehlo.all_reduce"',
                "replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>"):
    assert piece in text


def test_shard_map_collectives_over_one_mesh_axis():
  g = shard_map(lambda a: (
      lax.all_gather(a, "x", tiled=True), lax.axis_index("y") + 0 * a[:1, :1],
      lax.ppermute(a, "x", [(0, 1), (1, 0)]),
      lax.psum_scatter(a, "y", scatter_dimension=1, tiled=True),
      lax.all_to_all(a, "y", 0, 1, tiled=True), lax.pmax(a, "x")),
      mesh=mesh, check_vma=False, in_specs=P("x", "y"),
      out_specs=(P(None, "y"), P("x", "y"), P("x", "y"), P("x", "y"), P("x", "y"),
                 P(None, "y")))
  assert _lists(g(X)) == [
      X.tolist(), [[0.0, 1.0], [0.0, 1.0]],
      [[8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0], [0.0, 1.0, 2.0, 3.0],
       [4.0, 5.0, 6.0, 7.0]],
      [[2.0, 4.0], [10.0, 12.0], [18.0, 20.0], [26.0, 28.0]],
      [[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0]],
      [[8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0]]]


def test_shard_map_layout_jvp_vmap_and_experimental_name():
  from xjax.experimental.shard_map import shard_map as old_name
  f = old_name(lambda a: jnp.sin(a) * 2, mesh=mesh, in_specs=P("x"), out_specs=P("x"))
  out = f(X)
  assert out.sharding == NamedSharding(mesh, P("x"))
  np.testing.assert_allclose(out, np.sin(X) * 2, rtol=1e-6)
  _, tangent = jax.jvp(f, (X,), (np.ones_like(X),))
  np.testing.assert_allclose(tangent, 2 * np.cos(X), rtol=1e-6)
  batched = jax.vmap(f)(np.stack([X, X + 1]))
  np.testing.assert_allclose(batched, np.sin(np.stack([X, X + 1])) * 2, rtol=1e-6)


def test_shard_map_errors():
  msg = (r"out_specs is P\(\) which implies that the corresponding output value is only "
         r"varying across mesh axes \{\} and not \{x\}")
  with pytest.raises(ValueError, match=msg):
    shard_map(lambda a: a, mesh=mesh, in_specs=P("x"), out_specs=P())(X)
  out = shard_map(lambda a: a, mesh=mesh, in_specs=P("x"), out_specs=P(), check_vma=False)(X)
  assert out.shape == (2, 4)
  with pytest.raises(ValueError, match=r"maps array axis 0 \(of size 3\) to mesh axis 'x' "
                                       r"\(of size 2\), but 2 does not evenly divide 3"):
    shard_map(lambda a: a, mesh=mesh, in_specs=P("x"), out_specs=P("x"))(np.ones(3))
  with pytest.raises(ValueError, match="in_specs refers to 'z'"):
    shard_map(lambda a: a, mesh=mesh, in_specs=P("z"), out_specs=P("x"))(X)
  with pytest.raises(NameError, match="unbound axis name: q"):
    shard_map(lambda a: lax.psum(a, "q"), mesh=mesh, in_specs=P("x"), out_specs=P("x"))(X)


def test_nested_pmap_is_a_value_error_as_in_jax():
  inner = jax.pmap(lambda x: lax.psum(x, "j"), axis_name="j")
  with pytest.raises(ValueError, match="context mesh"):
    jax.pmap(inner, axis_name="i")(jnp.arange(4.0).reshape(2, 2))


def test_pmap_axes_are_pytree_prefixes():
  f = jax.pmap(lambda a, b: (a * 2, (b[0] + 1, {"s": a.sum()})), in_axes=(0, (0, None)),
               out_axes=(0, (1, {"s": 0})))
  out = f(A, (A, 3.0))
  assert _lists(jax.tree.leaves(out)) == [  # (JAX 0.10.2's)
      [[0.0, 2.0], [4.0, 6.0], [8.0, 10.0], [12.0, 14.0]],
      [[1.0, 3.0, 5.0, 7.0], [2.0, 4.0, 6.0, 8.0]], [1.0, 5.0, 9.0, 13.0]]
  tail = ("\n\nThe 'full pytree' here is the tuple of arguments passed positionally to the "
          "pmapped function, and the value of `in_axes` must be a tree prefix of that tuple. "
          "But it was not a prefix.\n\nCheck that the value of the `in_axes` argument to "
          "`pmap` is a tree prefix of the tuple of arguments passed positionally to the "
          "pmapped function.")
  with pytest.raises(ValueError) as info:
    jax.pmap(lambda a: a, in_axes=(0, 0))(A)
  assert str(info.value) == (
      "pytree structure error: different lengths of tuple at key path\n    pmap in_axes[0]\n"
      "At that key path, the prefix pytree pmap in_axes has a subtree of type tuple of length "
      "2, but the full pytree has a subtree of the same type but of length 1." + tail)
  with pytest.raises(ValueError) as info:
    jax.pmap(lambda a: a, in_axes=[0])(A)
  assert str(info.value) == (
      "pytree structure error: different types at key path\n    pmap in_axes[0]\nAt that "
      "key path, the prefix pytree pmap in_axes has a subtree of type\n    <class 'list'>\n"
      "but at the same key path the full pytree has a subtree of different type\n    "
      "<class 'tuple'>." + tail)


@jax.tree_util.register_dataclass
@__import__("dataclasses").dataclass
class _Pair:
  first: object
  second: object


def test_sharding_and_spec_prefixes_through_custom_nodes():
  one = Mesh(np.array(jax.devices()), ("i",))
  pair = _Pair(jnp.asarray(A), (jnp.asarray(A), jnp.ones(4)))
  shardings = _Pair(NamedSharding(one, P("i")), NamedSharding(one, P()))
  out = jax.jit(lambda p: p.first * 2 + p.second[0], in_shardings=(shardings,))(pair)
  np.testing.assert_array_equal(np.asarray(out), A * 3)
  specs = _Pair(P("i"), (P("i"), None))
  total = shard_map(lambda p: p.first + p.second[0] + p.second[1].sum(), mesh=one,
                    in_specs=(specs,), out_specs=P("i"))(pair)
  np.testing.assert_array_equal(np.asarray(total), A * 2 + 4)
  # eagerly, the result's sharding names out_specs as given (JAX 0.10.2: P(None,))
  y = shard_map(lambda a: a * 2, mesh=one, in_specs=P(), out_specs=P(None),
                check_vma=False)(jnp.asarray(A))
  assert y.sharding.spec == P(None) and y.sharding.spec != P()


def test_experimental_shard_map_keeps_its_older_signature():
  """``jax.experimental.shard_map.shard_map(f, mesh, in_specs, out_specs, check_rep)``: the
  mesh and specs positional, reading the name warns (JAX 0.10.2's text)."""
  import warnings
  import xjax.experimental.shard_map as old_module
  with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    old = old_module.shard_map
  assert [str(w.message) for w in caught] == [
      "jax.experimental.shard_map is deprecated in v0.8.0. Used jax.shard_map instead."]
  np.testing.assert_allclose(old(lambda a: a * 2, mesh, P("x"), P("x"))(X), X * 2)
  summed = old(lambda a: jax.lax.psum(a, "x"), mesh, P("x"), P(), check_rep=False)(X)
  np.testing.assert_allclose(summed, X.reshape(2, -1, *X.shape[1:]).sum(0))
  with pytest.raises(TypeError, match=r"shard_map\(\) got an unexpected keyword argument"):
    old(lambda a: a, mesh=mesh, in_specs=P("x"), out_specs=P("x"), axis_names={"x"})


def test_eager_shard_map_prints_each_device_block(capsys):
  """JAX 0.10.2 runs a shard_map called at the top level one operation at a time: printing
  a value lists each device's block (replicated values on every device), jax.debug.print
  prints once per distinct block, and the values match the compiled call."""
  auto = Mesh(np.array(jax.devices()).reshape(2, 2), ("i", "j"),
              axis_types=(jax.sharding.AxisType.Auto,) * 2)

  def body(b):
    print(b)
    s = lax.psum(b, "j")
    print(s)
    jax.debug.print("block {}", s.sum())
    return s

  f = shard_map(body, mesh=auto, in_specs=P("i", "j"), out_specs=P("i"))
  out = f(X)
  printed = capsys.readouterr().out
  assert printed.startswith(
      "On cpu:0 at mesh coordinates (i, j,) = (0, 0):\n[[0. 1.]\n [4. 5.]]\n\n"
      "On cpu:1 at mesh coordinates (i, j,) = (0, 1):\n[[2. 3.]\n [6. 7.]]\n\n")
  assert ("On cpu:1 at mesh coordinates (i, j,) = (0, 1):\n[[ 2.  4.]\n [10. 12.]]\n\n"
          in printed)  # (the psum: the same on both devices along j)
  assert printed.endswith("block 28.0\nblock 92.0\n")
  np.testing.assert_array_equal(out, X[:, :2] + X[:, 2:])
  np.testing.assert_array_equal(jax.jit(f)(X), out)
  capsys.readouterr()


def test_eager_shard_map_branches_on_replicated_values():
  """A value that varies over no mesh axis is concrete in an eager body (Python control flow
  may read it); one that varies is not (JAX's TracerBoolConversionError), and the out_specs
  check names JAX's eager helper ``_rem_singleton``."""
  def body(b):
    total = lax.psum(b.sum(), ("x", "y"))
    return total * 2 if total > 100 else total

  assert float(shard_map(body, mesh=mesh, in_specs=P("x", "y"), out_specs=P())(X)) == 240.0
  with pytest.raises(jax.errors.TracerBoolConversionError):
    shard_map(lambda b: b if b.sum() > 0 else -b, mesh=mesh, in_specs=P("x"),
              out_specs=P("x"))(X)
  with pytest.raises(ValueError, match="shard_map applied to the function '_rem_singleton' "
                                       "was given out_specs which require replication"):
    shard_map(lambda b: b, mesh=mesh, in_specs=P("x"), out_specs=P())(X)


def test_pmap_donates_its_arguments():
  """JAX 0.10.2: pmap's donate_argnums donates (the argument is deleted); a position both
  static and donated is its ValueError."""
  x = jax.pmap(lambda v: v)(jnp.arange(8.0).reshape(4, 2))
  out = jax.pmap(lambda c, v: v * c, static_broadcasted_argnums=0, donate_argnums=1)(2.0, x)
  assert x.is_deleted()
  np.testing.assert_array_equal(out, np.arange(8.0).reshape(4, 2) * 2)
  with pytest.raises(ValueError, match=r"`static_argnums` \[0\] and `donate_argnums` \[0\] "
                                        "cannot intersect"):
    jax.pmap(lambda a, b: b, static_broadcasted_argnums=0, donate_argnums=0)
