"""Arrays over several devices and jit with shardings (4 CPU devices; run by
tests/execution/test_sharded_jit.py in a subprocess).  Expected layouts, values and messages are
those of JAX 0.10.2 with Auto mesh axes."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax
from xjax.sharding import Mesh, NamedSharding, PartitionSpec as P
from xjax._src.compat.jax_private_compat.named_sharding import DuplicateSpecError

if xjax.device_count() < 4:
  pytest.skip("needs 4 CPU devices (run through tests/execution/test_sharded_jit.py)",
              allow_module_level=True)

d = xjax.devices()
mesh = Mesh(np.array(d).reshape(2, 2), ("x", "y"))
X = np.arange(16.0, dtype=np.float32).reshape(4, 4)


def named(*spec):
  return NamedSharding(mesh, P(*spec))


def test_device_put_splits_into_shards():
  x = xjax.device_put(X, named("x"))
  assert x.sharding == named("x") and not x.is_fully_replicated and x.committed
  assert x.devices() == set(d) and x.device == x.sharding
  shards = x.addressable_shards
  assert [s.device for s in shards] == d
  assert [s.index for s in shards] == [(slice(0, 2), slice(None))] * 2 + [
      (slice(2, 4), slice(None))] * 2
  assert [s.replica_id for s in shards] == [0, 1, 0, 1]
  np.testing.assert_array_equal(shards[2].data, X[2:4])
  assert shards[2].data.sharding == xjax.sharding.SingleDeviceSharding(d[2])
  np.testing.assert_array_equal(np.asarray(x), X)
  assert repr(x) == repr(jnp.asarray(X))
  assert x.sharding.shard_shape((4, 4)) == (2, 4)
  assert x.sharding.devices_indices_map((4, 2))[d[3]] == (slice(2, 4), slice(None))


def test_two_axis_layout_and_indexing():
  x = xjax.device_put(X, named("x", "y"))
  assert [s.index for s in x.addressable_shards][1] == (slice(0, 2), slice(2, 4))
  np.testing.assert_array_equal(x[1], X[1])
  np.testing.assert_array_equal(x[:, 3], X[:, 3])
  assert float(x[3, 2]) == 14.0 and x.tolist() == X.tolist()
  y = xjax.device_put(X, named(("x", "y")))
  assert [s.index[0] for s in y.addressable_shards] == [slice(i, i + 1) for i in range(4)]


def test_eager_ops_keep_the_layout():
  x = xjax.device_put(X, named("x"))
  for out in (x * 2, x + x, jnp.sin(x), x + jnp.ones((4, 4))):
    assert out.sharding == named("x") and out.committed
  np.testing.assert_allclose(x * 2 + jnp.ones((4, 4)), X * 2 + 1)
  total = jnp.sum(x)
  assert float(total) == 120.0 and total.sharding == NamedSharding(mesh, P())


def test_jit_follows_input_layout():
  x = xjax.device_put(X, named("x"))
  out = xjax.jit(lambda a: a @ a.T)(x)
  assert out.sharding == named("x")
  np.testing.assert_allclose(out, X @ X.T)
  red = xjax.jit(lambda a: a.sum(0))(x)
  assert red.sharding == NamedSharding(mesh, P())
  np.testing.assert_allclose(red, X.sum(0))


def test_jit_in_and_out_shardings():
  s = named("x", None)
  f = xjax.jit(lambda a: jnp.sin(a) @ a.T, in_shardings=s, out_shardings=named(None, "y"))
  text = f.lower(X).as_text()
  assert "mhlo.num_partitions = 4" in text
  assert 'mhlo.sharding = "{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}"' in text
  assert 'mhlo.sharding = "{devices=[1,2,2]0,2,1,3 last_tile_dim_replicate}"' in text
  out = f(X)  # host data is laid out as in_shardings says
  assert out.sharding == named(None, "y")
  np.testing.assert_allclose(out, np.sin(X) @ X.T, rtol=1e-6)
  g = xjax.jit(lambda a, b: (a + b, a - b), in_shardings=(named("x"), None),
               out_shardings=(named("y"), None))
  s1, s2 = g(X, np.ones((4, 4), np.float32))
  assert s1.sharding == named("y")
  np.testing.assert_allclose(s2, X - 1)


def test_with_sharding_constraint():
  x = xjax.device_put(X, named("x"))
  g = xjax.jit(lambda a: lax.with_sharding_constraint(a * 2, named("y")))
  text = g.lower(x).as_text()
  assert ('"stablehlo.custom_call"(%3) {call_target_name = "Sharding", mhlo.sharding = '
          '"{devices=[2,1,2]0,2,1,3 last_tile_dim_replicate}"}') in text
  out = g(x)
  assert out.sharding == named("y")
  np.testing.assert_allclose(out, X * 2)
  eager = lax.with_sharding_constraint(jnp.ones((4, 4)), named(None, "y"))
  assert eager.sharding == named(None, "y")
  grad = xjax.grad(lambda a: g(a).sum())(x)
  np.testing.assert_allclose(grad, np.full((4, 4), 2.0))
  batched = xjax.vmap(lambda a: lax.with_sharding_constraint(a, named("x")))(jnp.ones((3, 4)))
  assert batched.sharding == named(None, "x")
  with mesh:
    inside = xjax.jit(lambda a: lax.with_sharding_constraint(a, P("y")))(jnp.ones(4))
  assert inside.sharding == named("y")


def test_with_sharding_constraint_unconstrained_dimensions():
  """P.UNCONSTRAINED leaves a dimension's layout to the compiler (GSPMD's unspecified_dims);
  results and layouts as JAX 0.10.2's."""
  u = P.UNCONSTRAINED
  x = jnp.asarray(X)
  f = xjax.jit(lambda a: lax.with_sharding_constraint(a * 2, named("x", u)))
  assert 'backend_config = "unspecified_dims=[1]"' in f.lower(x).as_text()
  out = f(x)
  assert out.sharding == named("x")
  np.testing.assert_allclose(out, X * 2)
  g = xjax.jit(lambda a: lax.with_sharding_constraint(a * 2, named(u, "y")).sum(0))
  np.testing.assert_allclose(g(x), [48.0, 56.0, 64.0, 72.0])
  assert lax.with_sharding_constraint(x, named("x", u)).sharding == named("x")
  assert lax.with_sharding_constraint(x, named(u, "y")).sharding == named(None, "y")
  # vmap leaves the batch dimension's layout free
  b = xjax.jit(xjax.vmap(lambda a: lax.with_sharding_constraint(a, named("y"))))
  assert 'backend_config = "unspecified_dims=[0]"' in b.lower(x).as_text()
  assert b(x).sharding == named(None, "y")
  with mesh:
    inside = xjax.jit(lambda a: lax.with_sharding_constraint(a, P(u, "x")))(x)
  assert inside.sharding == named(None, "x")


@pytest.mark.parametrize("spec,shape,error,message", [
    (P("z"), (4,), ValueError, r"Resource axis: z of P\('z',\) is not found in mesh: "
                               r"\('x', 'y'\)\."),
    (P("x"), (3,), ValueError, r"implies that array axis 0 is partitioned 2 times, but the "
                               r"dimension size is 3 \(full shape: \(3,\), per-dimension "
                               r"tiling factors: \[2\] should evenly divide the shape\)"),
    (P("x", "y"), (4,), ValueError, r"One of device_put args is incompatible with its "
                                    r"sharding annotation .* is only valid for values of rank "
                                    r"at least 2, but was applied to a value of rank 1\."),
    (P(("x", "y")), (6,), ValueError, r"partitioned 4 times, but the dimension size is 6"),
])
def test_mesh_and_spec_mismatches(spec, shape, error, message):
  with pytest.raises(error, match=message):
    xjax.device_put(jnp.zeros(shape), NamedSharding(mesh, spec))


def test_jit_checks_shardings_against_shapes():
  with pytest.raises(ValueError, match="partitioned 2 times, but the dimension size is 3"):
    xjax.jit(lambda a: a, in_shardings=named("x"))(jnp.zeros(3))
  with pytest.raises(DuplicateSpecError, match="duplicate entries for `x`") as e:
    named("x", "x")  # (JAX's class, not a ValueError)
  assert not isinstance(e.value, ValueError) and e.value.pspec == P("x", "x")
  other = Mesh(np.array(d[:2]), ("i",))
  a = xjax.device_put(np.ones(4, np.float32), NamedSharding(other, P("i")))
  b = xjax.device_put(np.ones(4, np.float32), named("x"))
  with pytest.raises(ValueError, match=r"incompatible devices .* \[0, 1\] .* \[0, 1, 2, 3\]"):
    a + b


def test_resharding_and_copies():
  import copy
  x = xjax.device_put(X, named("x"))
  y = xjax.device_put(x, named(None, "y"))
  assert y.sharding == named(None, "y")
  np.testing.assert_array_equal(y, X)
  z = copy.copy(x)
  assert z.sharding == x.sharding and z is not x
  back = xjax.device_put(x, d[1])
  assert back.devices() == {d[1]}
  np.testing.assert_array_equal(back, X)
  np.testing.assert_array_equal(xjax.device_get(x), X)


def test_make_array_from_callback():
  calls = []

  def cb(index):
    calls.append(index)
    return X[index]
  a = xjax.make_array_from_callback((4, 4), named("x"), cb)
  assert a.sharding == named("x") and a.dtype == np.float32 and not a.weak_type and a.committed
  assert calls == [(slice(0, 2), slice(None))] * 2 + [(slice(2, 4), slice(None))] * 2
  assert [(s.device.id, s.replica_id) for s in a.addressable_shards] == [(0, 0), (1, 1), (2, 0),
                                                                          (3, 1)]
  np.testing.assert_array_equal(a, X)
  b = xjax.make_array_from_callback((), named(), lambda i: 3.0)  # Python scalars: canonical
  assert repr(b) == "Array(3., dtype=float32)" and b.sharding == named()
  c = xjax.make_array_from_callback((4,), named("y"), lambda i: np.arange(4)[i])
  assert repr(c) == "Array([0, 1, 2, 3], dtype=int32)"
  one = xjax.make_array_from_callback((4, 4), xjax.sharding.SingleDeviceSharding(d[1]), cb)
  assert one.devices() == {d[1]} and one.committed
  back = xjax.make_array_from_callback((4, 4), named("x", "y"), lambda i: a[i])
  np.testing.assert_array_equal(back, X)
  assert xjax.make_array_from_callback((4, 4), named("x"), cb, dtype=np.float32).dtype == np.float32


def test_make_array_from_callback_errors():
  with pytest.raises(ValueError, match=r"Expected shard shape \(2, 4\) doesn't match the single "
                                       r"device array shape \(4, 4\). Shape of Array is "
                                       r"float32\[4,4\] with sharding NamedSharding"):
    xjax.make_array_from_callback((4, 4), named("x"), lambda i: X)
  with pytest.raises(ValueError, match="partitioned 2 times, but the dimension size is 3"):
    xjax.make_array_from_callback((3, 4), named("x"), lambda i: X[i])
  with pytest.raises(ValueError, match=r"If `dtype` is provided to "
                                       r"`xjax.make_array_from_callback`, it must match"):
    xjax.make_array_from_callback((4, 4), named("x"), lambda i: X[i], dtype=np.int32)
  with pytest.raises(TypeError, match="sharding should be an instance of `xjax.sharding`"):
    xjax.make_array_from_callback((4, 4), d[0], lambda i: X[i])
  with pytest.raises(xjax.errors.UnexpectedTracerError, match="traced context"):
    xjax.jit(lambda t: xjax.make_array_from_callback((4,), named("x"), lambda i: t[i]))(
        jnp.ones(4))


def test_make_array_from_single_device_arrays():
  s = named("x")
  index = s.devices_indices_map((4, 4))
  pieces = [xjax.device_put(X[index[dev]], dev) for dev in d]
  g = xjax.make_array_from_single_device_arrays((4, 4), s, pieces[::-1])  # any order
  assert g.sharding == s and g.committed
  np.testing.assert_array_equal(g, X)
  assert (g.addressable_shards[2].data.unsafe_buffer_pointer()
          == pieces[2].unsafe_buffer_pointer())  # the pieces' buffers, not copies
  np.testing.assert_array_equal(g * 2, X * 2)
  other = NamedSharding(Mesh(np.array(d[:2]), ("i",)), P("i"))
  with pytest.raises(ValueError, match=r"Expected 4 per-device arrays \(this is how many "
                                       r"devices are addressable by the sharding\), but got 3"):
    xjax.make_array_from_single_device_arrays((4, 4), s, pieces[:3])
  with pytest.raises(ValueError, match=r"must be from distinct devices, but got device IDs "
                                       r"\[0, 0, 0, 0\]"):
    xjax.make_array_from_single_device_arrays((4, 4), s, [pieces[0]] * 4)
  with pytest.raises(ValueError, match=r"Expected shard shape \(2, 4\) doesn't match the "
                                       r"single device array shape \(3, 4\)"):
    xjax.make_array_from_single_device_arrays((4, 4), s, [xjax.device_put(X[:3], v) for v in d])
  with pytest.raises(TypeError, match="Unsupported type for elements in `arrays`: <class "
                                      "'numpy.ndarray'>"):
    xjax.make_array_from_single_device_arrays((4, 4), s, [np.ones((2, 4))] * 4)
  with pytest.raises(ValueError, match=r"Sharding contains devices \{0, 1\} that are not "
                                       r"present in per-device arrays. Per-device arrays "
                                       r"contain devices \{2, 3\}"):
    xjax.make_array_from_single_device_arrays((4, 2), other, [
        xjax.device_put(np.ones((2, 2), np.float32), v) for v in d[2:]])


def test_make_array_from_process_local_data_one_process():
  assert xjax.process_count() == 1 and xjax.process_index() == 0
  assert xjax.local_devices() == d and xjax.local_devices(process_index=0) == d
  h = xjax.make_array_from_process_local_data(named("x"), X)
  assert h.sharding == named("x")
  np.testing.assert_array_equal(h, X)
  assert xjax.make_array_from_process_local_data(named("x"), X, (4, 4)).shape == (4, 4)
  tree = xjax.make_array_from_process_local_data(named("x"), {"a": X, "b": X[:2]})
  assert tree["b"].sharding == named("x")
  with pytest.raises(ValueError, match=r"on a single process, global_shape should be None or "
                                       r"equal to local_data.shape.Got global_shape=\(8, 4\) "
                                       r"and local_data.shape=\(4, 4\)."):
    xjax.make_array_from_process_local_data(named("x"), X, (8, 4))
  with pytest.raises(ValueError, match="partitioned 2 times, but the dimension size is 3"):
    xjax.make_array_from_process_local_data(named("x"), X[:3])


def test_visualize_array_sharding_draws_jax_pictures(capsys):
  # Pictures printed by JAX 0.10.2 (plain text, as when stdout is not a terminal).
  x = xjax.device_put(jnp.zeros((8, 8)), NamedSharding(mesh, P("x", "y")))
  xjax.debug.visualize_array_sharding(x)
  y = xjax.device_put(jnp.zeros(8), NamedSharding(mesh, P("y")))
  xjax.debug.visualize_array_sharding(y)
  assert capsys.readouterr().out == (
      "┌──────────┬──────────┐\n"
      "│          │          │\n"
      "│  CPU 0   │  CPU 1   │\n"
      "│          │          │\n"
      "│          │          │\n"
      "├──────────┼──────────┤\n"
      "│          │          │\n"
      "│  CPU 2   │  CPU 3   │\n"
      "│          │          │\n"
      "│          │          │\n"
      "└──────────┴──────────┘\n"
      "┌───────┬───────┐\n"
      "│CPU 0,2│CPU 1,3│\n"
      "└───────┴───────┘\n")
  with pytest.raises(ValueError, match="only works for shapes with 1 and 2 dimensions"):
    xjax.debug.visualize_array_sharding(jnp.zeros((2, 2, 2)))


def test_equivalent_shardings_and_addressable_indices():
  from xjax.sharding import SingleDeviceSharding
  c = NamedSharding(Mesh(np.array(d).reshape(2, 2), ("a", "b")), P("a", "b"))
  r2 = NamedSharding(Mesh(np.array(d)[::-1].reshape(2, 2), ("x", "y")), P())
  assert named("x", "y").is_equivalent_to(c, 2) and not named("x", "y").is_equivalent_to(
      named("x"), 2)
  assert named("x").is_equivalent_to(named("x", None), 2)
  assert not named().is_equivalent_to(r2, 2)   # the same layout on other devices' order
  assert not named().is_equivalent_to(SingleDeviceSharding(d[0]), 1)
  assert {k.id: v for k, v in named("x", "y").addressable_devices_indices_map((4, 6)).items()
          } == {0: (slice(0, 2), slice(0, 3)), 1: (slice(0, 2), slice(3, 6)),
                2: (slice(2, 4), slice(0, 3)), 3: (slice(2, 4), slice(3, 6))}
  assert {k.id: v for k, v in named("x").addressable_devices_indices_map((4, 6)).items()} == {
      0: (slice(0, 2), slice(None)), 1: (slice(0, 2), slice(None)),
      2: (slice(2, 4), slice(None)), 3: (slice(2, 4), slice(None))}
  assert named("x").has_addressable_devices
  assert mesh.shape_tuple == (("x", 2), ("y", 2)) and mesh.local_mesh is mesh
  assert mesh.local_devices == list(d) and not mesh.is_multi_process


def test_host_callbacks_in_programs_over_several_devices():
  """Callbacks in a sharded jit run once, on the first device (or the one their
  SingleDeviceSharding names); in a shard_map body once per device (JAX 0.10.2's calls and
  values). They crashed the interpreter before: the program got no callables."""
  from xjax.experimental import io_callback
  from xjax.sharding import SingleDeviceSharding
  calls = []

  def cb(a):
    calls.append(np.asarray(a).tolist())
    return np.asarray(a) * 2
  line = xjax.sharding.Mesh(np.array(d), ("i",))
  x = xjax.device_put(jnp.arange(8.0), NamedSharding(line, P("i")))
  spec = lambda v: xjax.ShapeDtypeStruct(v.shape, v.dtype)
  y = xjax.jit(lambda v: xjax.pure_callback(cb, spec(v), v))(x)
  np.testing.assert_array_equal(y, np.arange(8.0) * 2)
  assert calls == [list(range(8))]
  calls.clear()
  y = xjax.jit(xjax.shard_map(lambda b: xjax.pure_callback(cb, spec(b), b), mesh=line,
                              in_specs=P("i"), out_specs=P("i")))(x)
  np.testing.assert_array_equal(y, np.arange(8.0) * 2)
  assert sorted(calls) == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0]]
  calls.clear()
  y = xjax.jit(lambda v: io_callback(cb, spec(v), v, ordered=True) + 1)(x)
  np.testing.assert_array_equal(y, np.arange(8.0) * 2 + 1)
  assert calls == [list(range(8))]
  calls.clear()
  f = xjax.jit(lambda v: xjax.pure_callback(cb, spec(v), v,
                                            sharding=SingleDeviceSharding(d[2])))
  assert "{maximal device=2}" in f.lower(x).as_text()
  f(x)
  assert calls == [list(range(8))]
  with pytest.raises(NotImplementedError, match="only supports SingleDeviceSharding"):
    xjax.jit(lambda v: xjax.pure_callback(cb, spec(v), v, sharding=named()))(x)
  with pytest.raises(RuntimeError):
    xjax.jit(lambda v: xjax.pure_callback(lambda a: 1 / 0, spec(v), v))(x).block_until_ready()


def test_sharded_prng_keys_in_jit_and_shard_map():
  # (a key's trailing data dimension is replicated in the program's layouts)
  keys = xjax.random.split(xjax.random.key(1), 4)
  sharded = xjax.device_put(keys, named("x"))
  np.testing.assert_array_equal(np.asarray(xjax.jit(xjax.random.key_data)(sharded)),
                                np.asarray(xjax.random.key_data(keys)))
  out = xjax.jit(lambda k: k)(sharded)
  assert out.sharding == named("x") and out.dtype == keys.dtype
  draw = lambda k: xjax.random.normal(k[0], (3,))[None]
  got = xjax.jit(xjax.shard_map(draw, mesh=mesh, in_specs=P(("x", "y")),
                                out_specs=P(("x", "y")), check_vma=False))(sharded)
  want = np.stack([np.asarray(xjax.random.normal(k, (3,))) for k in keys])
  np.testing.assert_array_equal(np.asarray(got), want)


def test_constraint_over_an_abstract_mesh_uses_the_context_mesh():
  from xjax.sharding import AbstractMesh, AxisType
  abstract = NamedSharding(mesh.abstract_mesh, P("x"))
  with xjax.set_mesh(mesh):   # (as flax names its parameters' layouts)
    out = xjax.lax.with_sharding_constraint(jnp.asarray(X), abstract)
    assert out.sharding == named("x")
    jitted = xjax.jit(lambda a: xjax.lax.with_sharding_constraint(a * 2, abstract))(X)
    assert jitted.sharding == named("x")
  np.testing.assert_array_equal(np.asarray(jitted), X * 2)
  # outside a mesh context, an array placed over a mesh of that shape gives the mesh
  placed = xjax.device_put(X, named())
  assert xjax.lax.with_sharding_constraint(placed, abstract).sharding == named("x")
  with pytest.raises(TypeError, match="The sharding on the input must be a `NamedSharding`"):
    xjax.lax.with_sharding_constraint(jnp.asarray(X), abstract)
  from xjax.experimental.layout import Format, Layout
  formatted = xjax.lax.with_sharding_constraint(
      xjax.device_put(X, named()), Format(Layout(major_to_minor=(1, 0)), named("x")))
  assert formatted.sharding == named("x")   # (as JAX 0.10.2, for a default layout)
  one = AbstractMesh((1, 1), ("a", "b"), axis_types=(AxisType.Auto,) * 2)
  constrained = xjax.jit(lambda a: xjax.lax.with_sharding_constraint(
      a, NamedSharding(one, P("a"))))(X)   # (one device: nothing to do)
  np.testing.assert_array_equal(np.asarray(constrained), X)


def test_donation_over_several_devices_as_jax():
  """JAX 0.10.2 (4 CPU devices): a donated sharded argument whose block fits a result's
  is deleted (also through an Array device_put made sharing its buffers); one whose block
  fits no result of a known layout warns, naming its block, and stays; with a result whose
  layout XLA chooses it is offered to XLA, without a warning."""
  import warnings
  auto = Mesh(np.array(d), ("x",), axis_types=(xjax.sharding.AxisType.Auto,))
  split = NamedSharding(auto, P("x"))
  a = xjax.device_put(jnp.arange(8.0), split)
  out = xjax.jit(lambda v: v * 2, donate_argnums=0)(a)
  assert a.is_deleted() and out.sharding.spec == P("x")
  np.testing.assert_array_equal(out, np.arange(8.0) * 2)
  r = xjax.device_put(jnp.ones((8, 4)), NamedSharding(auto, P("x", None)))
  s = xjax.device_put(r, NamedSharding(auto, P("x")))
  xjax.jit(lambda v: v * 2, donate_argnums=0)(s)
  assert s.is_deleted() and r.is_deleted()
  b = xjax.device_put(jnp.arange(8.0), split)
  with pytest.warns(UserWarning, match=r"Some donated buffers were not usable: float32\[2\]"):
    assert float(xjax.jit(lambda v: v.sum(), donate_argnums=0,
                          out_shardings=NamedSharding(auto, P()))(b)) == 28.0
  assert not b.is_deleted()
  c = xjax.device_put(jnp.arange(8.0), split)
  with warnings.catch_warnings():
    warnings.simplefilter("error")
    out = xjax.jit(lambda v: xjax.lax.with_sharding_constraint(
        v * 2, NamedSharding(auto, P())), donate_argnums=0)(c)
  assert not c.is_deleted() and out.sharding.spec == P()
