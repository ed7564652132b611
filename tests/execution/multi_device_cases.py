"""Placement with several CPU devices.  Not collected by the suite (the name does not start
with test_): tests/execution/test_devices.py runs it in a subprocess with
XLA_FLAGS=--xla_force_host_platform_device_count=4, so the rest of the suite keeps one device.
Expected behaviour and messages are those of JAX 0.10.2 (the FAQ's placement rules)."""
import re
import warnings

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp

if xjax.device_count() < 4:
  pytest.skip("needs 4 CPU devices (run through tests/execution/test_devices.py)",
              allow_module_level=True)

d = xjax.devices()


def test_several_devices_from_xla_flags():
  assert [x.id for x in d] == [0, 1, 2, 3]
  assert xjax.local_device_count() == 4 and xjax.devices("cpu") == d


def test_device_put_commits_and_copies():
  x = jnp.arange(3.0)
  assert not x.committed and x.devices() == {d[0]}
  y = xjax.device_put(x, d[1])
  assert y.committed and y.devices() == {d[1]} and y.device == d[1]
  assert x.devices() == {d[0]}  # the source stays where it was
  z = xjax.device_put(y, d[2])  # device to device
  assert z.devices() == {d[2]} and y.devices() == {d[1]}
  np.testing.assert_array_equal(z, [0.0, 1.0, 2.0])
  assert xjax.device_put(y) is y  # no device: arrays are left as they are


def test_device_put_pytree_mixed_sources():
  tree = {"a": np.ones(2, np.float32), "b": [xjax.device_put(jnp.ones(3), d[3]), 2.0]}
  out = xjax.device_put(tree, d[1])
  for leaf in xjax.tree_util.tree_leaves(out):
    assert leaf.devices() == {d[1]} and leaf.committed
  assert out["b"][1].weak_type


def test_device_put_pytree_prefix_of_devices():
  """A tuple/dict/list of devices or shardings, a prefix of the value (JAX 0.10.2's results)."""
  x = jnp.arange(3.0)
  out = xjax.device_put((x, np.ones(2), [1.0, 2]), (d[1], d[2], d[3]))
  assert [(a.devices(), a.committed) for a in xjax.tree_util.tree_leaves(out)] == [
      ({d[1]}, True), ({d[2]}, True), ({d[3]}, True), ({d[3]}, True)]
  out = xjax.device_put({"a": x, "b": (x, x)}, {"a": d[1], "b": None})
  assert [(a.devices(), a.committed) for a in xjax.tree_util.tree_leaves(out)] == [
      ({d[1]}, True), ({d[0]}, False), ({d[0]}, False)]
  s = xjax.sharding.NamedSharding(xjax.make_mesh((2,), ("i",), devices=d[2:]), xjax.P("i"))
  spread, one = xjax.device_put([jnp.arange(4.0), jnp.arange(2.0)], [s, d[1]])
  assert spread.sharding == s and one.devices() == {d[1]}
  np.testing.assert_array_equal(spread, np.arange(4.0))
  # Inside jit the placement is staged; JAX's results come back uncommitted on device 0.
  out = xjax.jit(lambda a, b: xjax.device_put((a, b), (d[1], d[2])))(jnp.ones(2), jnp.ones(2))
  assert [(a.devices(), a.committed) for a in out] == [({d[0]}, False), ({d[0]}, False)]


def test_computation_follows_committed_data():
  x1 = xjax.device_put(jnp.ones(3), d[1])
  for y in (x1 + 1, x1 + jnp.ones(3), jnp.sin(x1)):
    assert y.devices() == {d[1]} and y.committed
  f = xjax.jit(lambda a, b: a * b)
  out = f(x1, jnp.full(3, 2.0))  # the uncommitted operand moves to d[1]
  assert out.devices() == {d[1]} and out.committed
  np.testing.assert_array_equal(out, [2.0, 2.0, 2.0])
  out2 = f(xjax.device_put(jnp.ones(3), d[2]), 3.0)  # same trace, another device
  assert out2.devices() == {d[2]}
  u = jnp.ones(3) + 1
  assert u.devices() == {d[0]} and not u.committed


def test_mixing_committed_devices_is_an_error():
  x1 = xjax.device_put(jnp.ones(3), d[1])
  x2 = xjax.device_put(jnp.ones(3), d[2])
  msg = (r"Received incompatible devices for jitted computation. Got argument a of .* with "
         r"shape float32\[3\] and with device ids \[1\] on platform CPU and argument b of .* "
         r"with shape float32\[3\] and with device ids \[2\] on platform CPU")
  with pytest.raises(ValueError, match=msg):
    xjax.jit(lambda a, b: a + b)(x1, x2)
  with pytest.raises(ValueError, match=r"device ids \[1\].*device ids \[2\]"):
    x1 + x2


def test_default_device_context_and_config():
  x = jnp.ones(3)
  with xjax.default_device(d[3]):
    y = jnp.ones(3)
    assert y.devices() == {d[3]} and not y.committed
    assert (y + 1).devices() == {d[3]}
    assert xjax.jit(lambda a: a * 2)(np.ones(2)).devices() == {d[3]}
    assert (x + 1).devices() == {d[3]}  # uncommitted data moves to the default device
    assert xjax.device_put(np.ones(2)).devices() == {d[3]}
  assert jnp.ones(2).devices() == {d[0]}
  xjax.config.update("jax_default_device", d[2])
  try:
    assert jnp.ones(2).devices() == {d[2]}
  finally:
    xjax.config.update("jax_default_device", None)
  assert jnp.ones(2).devices() == {d[0]}


def test_to_device_and_creation_device_argument():
  x = jnp.arange(4.0)
  y = x.to_device(d[3])
  assert y.devices() == {d[3]} and y.committed
  for make in (lambda: jnp.ones(3, device=d[2]), lambda: jnp.zeros((2,), device=d[2]),
               lambda: jnp.arange(3, device=d[2]), lambda: jnp.array([1, 2], device=d[2]),
               lambda: jnp.asarray(np.ones(2), device=d[2]), lambda: jnp.eye(2, device=d[2]),
               lambda: jnp.full(2, 7, device=d[2]), lambda: jnp.linspace(0, 1, 3, device=d[2])):
    out = make()
    assert out.devices() == {d[2]} and out.committed
  z = jnp.zeros_like(y)  # like a committed array: on its device
  assert z.devices() == {d[3]} and z.committed


def test_donation_on_a_committed_device():
  x = xjax.device_put(jnp.ones((2, 3)), d[2]) * 2
  p = x.unsafe_buffer_pointer()
  out = xjax.jit(lambda a: a + 1, donate_argnums=0)(x)
  assert x.is_deleted() and out.devices() == {d[2]}
  assert out.unsafe_buffer_pointer() == p
  np.testing.assert_array_equal(out, np.full((2, 3), 3.0))


def test_live_arrays_and_memory_stats_per_device():
  x = xjax.device_put(jnp.ones(5), d[1])
  assert any(a is x for a in xjax.live_arrays())
  assert d[1].memory_stats() is None  # the CPU runtime keeps no statistics (as in JAX)


def test_copy_keeps_device_and_commitment():
  import copy
  x = xjax.device_put(jnp.arange(3), d[2])
  y = copy.deepcopy(x)
  assert y is not x and y.devices() == {d[2]} and y.committed
  with warnings.catch_warnings():
    warnings.simplefilter("error")
    np.testing.assert_array_equal(y, [0, 1, 2])


def test_from_dlpack_to_another_device():
  out = jnp.from_dlpack(np.arange(4, dtype=np.float32), device=d[1])
  assert out.devices() == {d[1]}
  np.testing.assert_array_equal(out, [0, 1, 2, 3])
  assert re.match(r"\(<DLDeviceType.kDLCPU: 1>, 0\)", repr(out.__dlpack_device__()))
