"""jax.experimental.array_serialization: arrays round-tripped through TensorStore (values,
dtypes, shapes, shardings), specs and chunk shapes as JAX 0.10.2 computes them. Skipped where
the optional `tensorstore` package is not installed; the sharded cases run with 4 CPU devices
in tests/libraries/array_serialization_cases.py."""
import sys

import ml_dtypes
import numpy as np
import pytest

import xjax
from xjax.experimental.array_serialization import serialization, tensorstore_impl
from tests.multi_device_run import run_cases

ts = pytest.importorskip("tensorstore")

CASES = [(np.float32, (2, 3)), (np.int8, (7,)), (ml_dtypes.bfloat16, (4, 4)), (np.bool_, (3,)),
         (np.int32, ()), (np.uint16, (0, 5)), (np.complex64, (2, 1, 3)), (np.float16, (5,))]


def _values(dtype, shape):
  return (np.arange(int(np.prod(shape))) % 5 - 2).astype(dtype).reshape(shape)


@pytest.mark.parametrize("dtype,shape", CASES)
@pytest.mark.parametrize("driver", ["zarr3", "zarr"])
def test_round_trip(tmp_path, dtype, shape, driver):
  host = _values(dtype, shape)
  x = xjax.device_put(host)
  if driver == "zarr3":      # in an OCDBT store, metadata from the array
    spec = tensorstore_impl.get_tensorstore_spec(tmp_path / "x", arr=x)
  else:                      # the older layout: a zarr array at the path
    spec = serialization.get_tensorstore_spec(str(tmp_path / "x"))
  serialization.run_serialization([x], [spec])
  sharding = xjax.sharding.SingleDeviceSharding(xjax.devices()[0])
  (y,) = serialization.run_deserialization([sharding], [spec])
  assert y.dtype == np.dtype(dtype) and y.shape == shape and y.sharding == sharding
  np.testing.assert_array_equal(np.asarray(y), host)


def test_larger_shape_is_zero_filled_and_dtype_cast(tmp_path):
  host = np.arange(6, dtype=np.int32).reshape(2, 3)
  spec = tensorstore_impl.get_tensorstore_spec(tmp_path / "x")
  serialization.run_serialization([xjax.device_put(host)], [spec])
  sds = xjax.ShapeDtypeStruct((3, 4), np.float32,
                              sharding=xjax.sharding.SingleDeviceSharding(xjax.devices()[0]))
  (y,) = serialization.run_deserialization([sds], [spec], global_shapes=[(3, 4)])
  expected = np.zeros((3, 4), np.float32)
  expected[:2, :3] = host
  assert y.dtype == np.float32
  np.testing.assert_array_equal(np.asarray(y), expected)


def test_manager_commits_in_a_thread_then_calls_back(tmp_path):
  arrays = [xjax.numpy.arange(4.0), xjax.numpy.ones((2, 2), xjax.numpy.int8)]
  paths = [str(tmp_path / "a"), str(tmp_path / "b")]
  committed = []
  manager = serialization.GlobalAsyncCheckpointManager()
  manager.serialize_with_paths(arrays, paths, on_commit_callback=lambda: committed.append(1))
  manager.wait_until_finished()
  assert committed == [1]
  sharding = xjax.sharding.SingleDeviceSharding(xjax.devices()[0])
  out = manager.deserialize_with_paths([sharding] * 2, paths)
  for a, b in zip(arrays, out):
    assert a.dtype == b.dtype
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
  assert isinstance(manager, serialization.GlobalAsyncCheckpointManagerBase)


def test_manager_raises_the_threads_error_once(tmp_path):
  manager = serialization.GlobalAsyncCheckpointManager()

  def fail():
    raise OSError("rename failed")
  manager.serialize_with_paths([xjax.numpy.zeros(2)], [str(tmp_path / "z")],
                               on_commit_callback=fail)
  with pytest.raises(OSError, match="rename failed"):
    manager.wait_until_finished()
  manager.check_for_errors()       # raised once


def test_specs_and_chunks_as_jax():
  # Values recorded from JAX 0.10.2.
  assert tensorstore_impl.get_tensorstore_spec("gs://bkt/dir/arr/", process_idx=2) == {
      "driver": "zarr3", "kvstore": {"driver": "ocdbt", "path": "arr", "base": {
          "driver": "gcs", "bucket": "bkt", "path": "dir/process_2"}}}
  assert serialization.get_tensorstore_spec("s3://bkt/x") == {
      "driver": "zarr", "kvstore": {"driver": "s3", "bucket": "bkt", "path": "x"}}
  assert tensorstore_impl.get_tensorstore_spec("/tmp/a/b/") == {
      "driver": "zarr3", "kvstore": {"driver": "ocdbt", "path": "b", "base": {
          "driver": "file", "path": "/tmp/a"}}}
  with pytest.raises(ValueError, match="Checkpoint path should be absolute. Got rel"):
    tensorstore_impl.get_tensorstore_spec("rel/x")
  assert serialization.is_remote_storage({"driver": "zarr", "kvstore": {
      "driver": "ocdbt", "base": "gs://b/p"}})
  assert not serialization.is_remote_storage("/tmp/x")
  chunk = tensorstore_impl._compute_chunk_shape
  assert chunk((1024, 1024, 1024), "float32") == [512, 1024, 1024]
  assert chunk((12, 8), "float32", file_size_target=40) == [3, 2]
  assert chunk((6, 9, 4), "int16", file_size_target=20) == [3, 3, 2]
  assert chunk((3, 5, 7), "float32", file_size_target=40) == [3, 5, 7]   # prime axes kept
  assert chunk((0, 5), "float32") == [1, 5]
  assert isinstance(serialization.TS_CONTEXT, ts.Context)
  assert tensorstore_impl.Future is ts.Future


def test_without_tensorstore_an_import_error_names_it(monkeypatch):
  monkeypatch.setitem(sys.modules, "tensorstore", None)     # as if not installed
  with pytest.raises(ImportError, match="`tensorstore` package") as e:
    tensorstore_impl.async_serialize(xjax.numpy.zeros(2), {"driver": "zarr3"}).send(None)
  assert e.value.name == "tensorstore"


def test_sharded_cases():
  assert run_cases("tests/libraries/array_serialization_cases.py") == 3
