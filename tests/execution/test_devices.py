"""Devices, placement, transfers and lifetime.  Expected values and messages come from JAX
0.10.2.  Placement across several devices runs in a subprocess (tests/execution/multi_device_cases.py)
so that this process keeps the suite's single device."""
import os
import subprocess
import sys

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax._src.backend import clients

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _run(args, env_extra):
  env = {k: v for k, v in os.environ.items() if k not in ("JAX_NUM_CPU_DEVICES", "XLA_FLAGS")}
  env.update(env_extra)
  return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True,
                        text=True, timeout=300)


def test_multi_device_placement_cases():
  """The FAQ's placement rules with 4 CPU devices (from XLA_FLAGS)."""
  out = _run(["-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider",
              "tests/execution/multi_device_cases.py"],
             {"XLA_FLAGS": "--xla_force_host_platform_device_count=4"})
  assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
  assert "12 passed" in out.stdout


def test_num_cpu_devices_config():
  code = ("import xjax; xjax.config.update('jax_num_cpu_devices', 3); "
          "print(xjax.device_count(), xjax.local_device_count(), repr(xjax.devices()[2]))")
  out = _run(["-c", code], {})
  assert out.returncode == 0, out.stderr[-2000:]
  assert out.stdout.split() == ["3", "3", "CpuDevice(id=2)"]


def test_default_is_one_device():
  assert xjax.device_count() == 1 and not clients.several_devices


def test_device_objects():
  dev = xjax.devices()[0]
  assert repr(dev) == "CpuDevice(id=0)" and str(dev) == "cpu:0"
  assert (dev.id, dev.platform, dev.device_kind, dev.process_index) == (0, "cpu", "cpu", 0)
  assert xjax.devices("cpu") == xjax.devices() == xjax.local_devices()
  assert xjax.default_backend() == "cpu"
  assert xjax.local_device_count() == 1
  assert dev.memory_stats() is None  # JAX's CPU client keeps none either


def test_device_put_default_device_is_uncommitted():
  x = xjax.device_put(np.arange(3.0, dtype=np.float32))
  assert not x.committed and x.devices() == {xjax.devices()[0]}
  assert xjax.device_put(x) is x
  y = xjax.device_put(x, xjax.devices()[0])
  assert y.committed and y is not x
  s = xjax.device_put(3)
  assert s.weak_type and s.dtype == np.int32


def test_device_put_pytree_and_device_get():
  tree = {"a": np.ones(2, np.float32), "b": [1, 2.0]}
  put = xjax.device_put(tree, xjax.devices()[0])
  assert all(leaf.committed for leaf in xjax.tree_util.tree_leaves(put))
  assert [leaf.weak_type for leaf in put["b"]] == [True, True]
  got = xjax.device_get({"a": jnp.ones(3), "b": [1, 2.0]})
  assert type(got["a"]) is np.ndarray and got["b"] == [1, 2.0]
  np.testing.assert_array_equal(got["a"], np.ones(3, np.float32))


def test_device_put_takes_a_pytree_prefix_of_devices():
  """``device``, ``donate`` and ``src`` may be pytree prefixes of the value (None a leaf),
  and traced values get one device_put equation for all of them (as JAX 0.10.2)."""
  d0 = xjax.devices()[0]
  a, b = xjax.device_put((np.ones(2), np.ones(3)), (None, d0))
  assert (a.committed, b.committed) == (False, True)
  s = xjax.sharding.NamedSharding(xjax.make_mesh((1,), ("x",)), xjax.P())
  out = xjax.device_put({"a": np.ones(2), "b": [np.ones(3), 1.0]},
                        {"a": s, "b": [xjax.sharding.SingleDeviceSharding(d0), None]},
                        donate={"a": True, "b": False})
  assert out["a"].sharding == s and out["b"][0].committed and not out["b"][1].committed
  assert out["b"][1].weak_type
  jaxpr = xjax.make_jaxpr(lambda x, y: xjax.device_put((x, y), (d0, s)))(1.0, 2.0)
  assert [e.primitive.name for e in jaxpr.eqns] == ["device_put"]
  assert jaxpr.eqns[0].params["devices"] == (d0, s)


@pytest.mark.parametrize("devices, found", [
    ((0,), "a tuple of length 1"), ([0, 0], "expected a list of length 2"),
    ({"a": 0}, "expected a dict with keys .*but got a tuple")])
def test_device_put_prefix_mismatch(devices, found):
  d0 = xjax.devices()[0]
  devices = xjax.tree_util.tree_map(lambda _: d0, devices)
  with pytest.raises(ValueError, match="device_put device specification must be a tree prefix "
                     "of the corresponding value; (?s:.*)" + found):
    xjax.device_put((np.ones(2), np.ones(3)), devices)


@pytest.mark.parametrize("bad", [3, "cpu", object()])
def test_device_put_rejects_non_devices(bad):
  with pytest.raises(ValueError, match="only accepts `None`, `xjax.sharding.Sharding`, "
                     "`xjax.Device`.*Received invalid value"):
    xjax.device_put(np.ones(2), bad)


def test_device_put_rejects_a_device_of_another_client():
  from jaxlib import xla_client
  other = xla_client.make_cpu_client(asynchronous=True).devices()[0]
  with pytest.raises(ValueError, match="another runtime client"):
    xjax.device_put(np.ones(2), other)


def test_default_device_rejects_non_devices():
  for bad in (3, "foo", "cuda"):  # JAX's platform names here are cpu, gpu and tpu
    with pytest.raises(ValueError, match=r"jax.default_device must be passed either a Device "
                                         r"object .* or a platform name string like 'cpu'"):
      xjax.config.update("jax_default_device", bad)
    with pytest.raises(ValueError, match="must be passed either a Device object"):
      with xjax.default_device(bad):
        pass
  assert xjax.config.jax_default_device is None
  with xjax.default_device("cpu"):
    assert jnp.ones(2).devices() == {xjax.devices("cpu")[0]}


def test_block_until_ready_returns_its_input():
  tree = {"a": jnp.ones(3) * 2, "b": 1}
  assert xjax.block_until_ready(tree) is tree
  x = jnp.ones(3) + 1
  assert x.block_until_ready() is x and x.is_ready()


def test_copy_to_host_async_then_read():
  x = jnp.arange(6.0).reshape(2, 3) * 2
  assert x.copy_to_host_async() is None
  np.testing.assert_array_equal(np.asarray(x), np.arange(6.0).reshape(2, 3) * 2)
  tree = [jnp.ones(2) + 1]
  assert xjax.copy_to_host_async(tree) is tree


def test_async_dispatch_returns_before_completion():
  """A call returns a not-yet-computed array (the FAQ's asynchronous dispatch): dispatching
  a large matmul takes a small fraction of its completion time."""
  import time
  f = xjax.jit(lambda a: a @ a @ a)
  x = jnp.ones((1000, 1000))
  f(x).block_until_ready()
  t0 = time.perf_counter()
  out = f(x)
  t_dispatch = time.perf_counter() - t0
  out.block_until_ready()
  t_done = time.perf_counter() - t0
  assert t_dispatch < 0.5 * t_done


def test_live_arrays_delete_and_sizes():
  x = jnp.ones(1000) + 1
  assert any(a is x for a in xjax.live_arrays())
  assert x.on_device_size_in_bytes() == 4000
  assert isinstance(x.unsafe_buffer_pointer(), int)
  x.delete()
  assert x.is_deleted() and not any(a is x for a in xjax.live_arrays())
  x.delete()  # deleting twice is fine (as in JAX)
  assert x.shape == (1000,) and x.dtype == np.float32 and x.nbytes == 4000
  with pytest.raises(RuntimeError, match="deleted or donated"):
    x.on_device_size_in_bytes()
  with pytest.raises(RuntimeError, match="deleted or donated"):
    x.unsafe_buffer_pointer()


def test_clear_caches_keeps_working():
  f = xjax.jit(lambda a: a * 3)
  f(jnp.ones(2))
  assert f._cache_size() == 1
  xjax.clear_caches()
  assert f._cache_size() == 0
  np.testing.assert_array_equal(f(jnp.ones(2)), [3.0, 3.0])
  np.testing.assert_array_equal(jnp.sin(jnp.zeros(2)), [0.0, 0.0])


@pytest.mark.skipif(not any(p in ("cuda", "rocm") for p in
                            [getattr(clients.backend(), "platform", "cpu")]),
                    reason="no GPU PJRT plugin on this machine")
def test_gpu_plugin_is_the_default_backend():
  assert xjax.default_backend() == "gpu"
  x = jnp.ones(3) + 1
  assert x.devices() == {xjax.devices()[0]} and x.device.platform in ("cuda", "rocm")
  y = xjax.device_put(x, xjax.devices("cpu")[0])
  assert y.devices() == {xjax.devices("cpu")[0]}
  np.testing.assert_array_equal(y, [2.0, 2.0, 2.0])
