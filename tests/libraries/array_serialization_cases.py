"""Sharded arrays through TensorStore, with 4 CPU devices (run by
tests/libraries/test_array_serialization.py)."""
import numpy as np
import pytest

import xjax
from xjax.experimental.array_serialization import serialization, tensorstore_impl
from xjax.sharding import NamedSharding, PartitionSpec as P

pytest.importorskip("tensorstore")


def _mesh():
  return xjax.make_mesh((2, 2), ("a", "b"))


def test_written_per_shard_read_into_another_sharding(tmp_path):
  mesh = _mesh()
  host = np.arange(48, dtype=np.float32).reshape(8, 6)
  x = xjax.device_put(host, NamedSharding(mesh, P("a", "b")))
  spec = tensorstore_impl.get_tensorstore_spec(tmp_path / "x", arr=x)
  # chunks follow the (4, 3) shards
  assert spec["metadata"]["chunk_grid"]["configuration"]["chunk_shape"] == [4, 3]
  serialization.run_serialization([x], [spec])
  for target in (NamedSharding(mesh, P(None, "b")), NamedSharding(mesh, P()),
                 NamedSharding(mesh, P("b", "a"))):
    (y,) = serialization.run_deserialization([target], [spec])
    assert y.sharding == target and y.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(y), host)
    for shard in y.addressable_shards:
      np.testing.assert_array_equal(np.asarray(shard.data), host[shard.index])


def test_replicated_shards_written_once(tmp_path):
  mesh = _mesh()
  host = np.arange(8, dtype=np.int16)
  x = xjax.device_put(host, NamedSharding(mesh, P("a")))   # each shard on 2 devices
  spec = tensorstore_impl.get_tensorstore_spec(tmp_path / "x", arr=x)
  copies = []
  asyncio_run = __import__("asyncio").run
  written = asyncio_run(tensorstore_impl.async_serialize(x, spec, commit_future=copies))
  assert len(written) == 4 and len(copies) == 1 + 2    # the store's creation, 2 shards
  for future in copies:
    future.result()
  target = xjax.ShapeDtypeStruct((8,), np.int16, sharding=NamedSharding(mesh, P("b")))
  (y,) = serialization.run_deserialization([target], [spec])
  np.testing.assert_array_equal(np.asarray(y), host)


def test_manager_with_a_sharded_pytree(tmp_path):
  mesh = _mesh()
  state = {"w": xjax.device_put(np.linspace(0, 1, 16, dtype=np.float32).reshape(4, 4),
                                NamedSharding(mesh, P("a", "b"))),
           "b": xjax.device_put(np.array([1, 2, 3, 4], np.int32), NamedSharding(mesh, P("b")))}
  paths = {k: str(tmp_path / k) for k in state}
  manager = serialization.GlobalAsyncCheckpointManager()
  manager.serialize_with_paths(state, paths)
  manager.wait_until_finished()
  names = sorted(state)
  out = manager.deserialize_with_paths([state[k].sharding for k in names],
                                       [paths[k] for k in names],
                                       dtypes=[None, np.float16])
  np.testing.assert_array_equal(np.asarray(out[0]), np.asarray(state["b"]))
  assert out[1].dtype == np.float16
  np.testing.assert_array_equal(np.asarray(out[1]),
                                np.asarray(state["w"]).astype(np.float16))
