"""xjax.experimental.multihost_utils in one process over 4 CPU devices (run by
tests/libraries/test_multihost_utils.py in a subprocess).  Expected layouts are JAX 0.10.2's."""
import numpy as np
import pytest

import xjax as jax
from xjax.experimental import multihost_utils as mh
from xjax.sharding import Mesh, NamedSharding, PartitionSpec as P

if jax.device_count() < 4:
  pytest.skip("needs 4 CPU devices (run through tests/libraries/test_multihost_utils.py)",
              allow_module_level=True)

mesh = Mesh(np.array(jax.devices()), ("x",))
grid = Mesh(np.array(jax.devices()).reshape(2, 2), ("a", "b"))


def test_host_local_to_global_and_back_over_every_device():
  g = mh.host_local_array_to_global_array(
      {"u": np.arange(8.0).reshape(4, 2), "v": np.ones(3, np.int32)}, mesh,
      {"u": P("x"), "v": P()})
  assert g["u"].shape == (4, 2) and g["u"].dtype == np.float32
  assert g["u"].sharding == NamedSharding(mesh, P("x"))
  assert g["v"].sharding == NamedSharding(mesh, P())
  assert [s.data.shape for s in g["u"].addressable_shards] == [(1, 2)] * 4
  np.testing.assert_array_equal(g["u"], np.arange(8.0).reshape(4, 2))
  back = mh.global_array_to_host_local_array(g, mesh, {"u": P("x"), "v": P()})
  assert back["u"] is g["u"] and back["v"] is g["v"]  # fully addressable: as they are
  from_numpy = mh.global_array_to_host_local_array(np.arange(4.0), mesh, P())
  assert from_numpy.sharding == NamedSharding(mesh, P())
  np.testing.assert_array_equal(from_numpy, [0.0, 1.0, 2.0, 3.0])


def test_two_axis_mesh_and_transformations():
  g = mh.host_local_array_to_global_array(np.arange(8.0).reshape(4, 2), grid, P("a", "b"))
  assert g.sharding == NamedSharding(grid, P("a", "b"))
  assert {s.data.shape for s in g.addressable_shards} == {(2, 1)}
  batched = jax.vmap(lambda a: mh.host_local_array_to_global_array(a, mesh, P()))(
      np.ones((3, 4)))
  assert batched.sharding == NamedSharding(mesh, P(None))
  out = jax.jit(lambda a: mh.global_array_to_host_local_array(a * 2, mesh, P("x")))(
      np.ones((4, 2), np.float32))
  np.testing.assert_array_equal(out, np.full((4, 2), 2.0))


def test_allgather_of_a_sharded_array_and_broadcast():
  x = jax.device_put(np.arange(8.0, dtype=np.float32), NamedSharding(mesh, P("x")))
  gathered = mh.process_allgather(x)
  assert type(gathered) is np.ndarray and gathered.shape == (1, 8)
  np.testing.assert_array_equal(mh.process_allgather(x, tiled=True), np.arange(8.0))
  np.testing.assert_array_equal(mh.broadcast_one_to_all(x), np.arange(8.0))
  mh.assert_equal(x)
  mh.sync_global_devices("four devices")
