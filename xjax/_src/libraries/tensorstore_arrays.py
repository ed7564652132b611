"""Arrays written to and read from TensorStore (``jax.experimental.array_serialization``'s
``tensorstore_impl``): zarr3 (or zarr) arrays in a file, OCDBT, GCS or S3 key-value store,
each process writing the shards of its own devices and reading the pieces its devices need.

`tensorstore` is an optional dependency: it is imported on first use, and a clear ImportError
names it where it is not installed."""
from __future__ import annotations

import asyncio
import functools
import logging
import math
import os
import re
from typing import Any, Awaitable, Callable, Sequence

import numpy as np

from xjax._src.backend import clients
from xjax._src.execution.array import Array
from xjax._src.foundations import dtypes, tree_util
from xjax._src.foundations.layout import Format
from xjax._src.foundations.sharding import Sharding, SingleDeviceSharding
from xjax._src.api.placement import device_put
from xjax._src.api.shape_dtype_struct import ShapeDtypeStruct
from xjax._src.libraries.global_arrays import make_array_from_single_device_arrays

logger = logging.getLogger(__name__)

ARRAY_DRIVER = "zarr3"          # JAX's default TensorStore driver for arrays
DEFAULT_BASE_DRIVER = "file"
PROCESS_DIR_FORMAT = "process_{}"
FILE_SIZE_TARGET = 2 * 1024 ** 3   # largest chunk file aimed for (2 GB)
_REMOTE_PREFIX = re.compile(r"^(gs|s3)://")
_BUCKET_PATH = {"gs": re.compile(r"^gs://([^/]*)/(.*)$"),
                "s3": re.compile(r"^s3://([^/]*)/(.*)$", re.DOTALL)}


def tensorstore():
  """The `tensorstore` module; ImportError naming the package where it is not installed."""
  try:
    import tensorstore as ts  # optional dependency: only array serialization needs it
  except ImportError as e:
    raise ImportError(
        "jax.experimental.array_serialization needs the `tensorstore` package, which is not "
        "installed (it is an optional dependency of xjax): pip install tensorstore",
        name="tensorstore") from e
  return ts


@functools.cache
def default_context():
  """The TensorStore context arrays are read and written in unless one is given (JAX's
  limits: 128 concurrent file and copy operations, a 10 GB cache pool)."""
  return tensorstore().Context({
      "file_io_concurrency": {"limit": 128},
      "cache_pool": {"total_bytes_limit": 10_000_000_000},
      "cache_pool#remote": {"total_bytes_limit": 10_000_000_000},
      "data_copy_concurrency": {"limit": 128}})


@functools.cache
def default_chunk_layout():
  """Chunks of at most 100M elements unless the spec's metadata says otherwise."""
  ts = tensorstore()
  return ts.ChunkLayout(chunk=ts.ChunkLayout.Grid(elements=100_000_000))


class LimitInFlightBytes:
  """Bounds the host memory that reads in flight hold at once (a request larger than the
  bound raises the bound to it)."""

  def __init__(self, host_memory_bytes_limit: int):
    self._max_bytes = self._available_bytes = host_memory_bytes_limit
    self._cv = asyncio.Condition(lock=asyncio.Lock())

  async def wait_for_bytes(self, requested_bytes):
    if requested_bytes > self._max_bytes:
      in_use = self._max_bytes - self._available_bytes
      self._max_bytes = requested_bytes
      self._available_bytes = requested_bytes - in_use
    async with self._cv:
      await self._cv.wait_for(lambda: self._available_bytes >= requested_bytes)
      self._available_bytes -= requested_bytes

  async def release_bytes(self, requested_bytes):
    async with self._cv:
      self._available_bytes += requested_bytes
      self._cv.notify_all()


def is_tensorstore_spec_leaf(leaf: Any) -> bool:
  """Whether a pytree leaf is a TensorStore spec (a dict naming a driver or kvstore) or None."""
  return leaf is None or (isinstance(leaf, dict) and ("driver" in leaf or "kvstore" in leaf))


def _prime_factors(n: int) -> list[int]:
  factors, p = [], 2
  while p * p <= n:
    while n % p == 0:
      factors.append(p)
      n //= p
    p += 1
  return factors + ([n] if n > 1 else [])


@functools.lru_cache(maxsize=1024)
def _compute_chunk_shape(local_shape: tuple, dtype, file_size_target: int = FILE_SIZE_TARGET
                         ) -> list[int]:
  """A chunk shape dividing `local_shape` whose bytes are at most 110% of
  `file_size_target`: the smallest prime factor left on any axis is divided out until it
  fits (or no axis can be divided further). Empty and 0-d shapes get chunks of at least 1."""
  chunk = list(local_shape)
  if not chunk or math.prod(chunk) == 0:
    return [max(n, 1) for n in chunk]
  size = math.prod(chunk) * np.dtype(dtype).itemsize
  factors = [_prime_factors(n) for n in chunk]
  while size > 1.1 * file_size_target:
    candidates = [(f[0], axis) for axis, f in enumerate(factors) if len(f) > 1]
    if not candidates:
      break
    divisor, axis = min(candidates)
    factors[axis].pop(0)
    chunk[axis] //= divisor
    size //= divisor
  return chunk


def _local_shape(arr) -> tuple:
  return arr.sharding.shard_shape(arr.shape) if isinstance(arr, Array) else tuple(arr.shape)


def get_tensorstore_metadata(arr, is_remote: bool = False,
                             file_size_target: int = FILE_SIZE_TARGET,
                             driver: str = ARRAY_DRIVER) -> dict[str, Any]:
  """The spec's ``metadata`` for `arr`: its global shape and dtype, chunked by its shards
  (zarr3: chunks dividing a shard and below `file_size_target`, zstd for remote stores;
  zarr: a shard per chunk, zstd-compressed)."""
  shape, local = tuple(arr.shape), _local_shape(arr)
  if driver == "zarr3":
    chunk = _compute_chunk_shape(local, np.dtype(arr.dtype), file_size_target)
    return {"codecs": [{"name": "zstd"}] if is_remote else [], "shape": shape,
            "data_type": np.dtype(arr.dtype).name,
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunk}}}
  if driver == "zarr":          # zarr puts the dtype in the spec itself, not its metadata
    return {"compressor": {"id": "zstd"}, "shape": shape,
            "chunks": [max(1, n) for n in local]}
  raise ValueError(f"Unsupported driver: {driver}")


def merge_nested_ts_specs(dict1: dict, dict2: dict | None) -> dict:
  """`dict1` updated by `dict2` (which wins), their ``kvstore`` entries merged the same way."""
  if dict2 is None:
    return dict1
  kvstore = dict1.get("kvstore", {}) | dict2.get("kvstore", {})
  return dict1 | dict(dict2, kvstore=kvstore)


def verify_tensorstore_spec(spec: dict, arr, path, ocdbt: bool,
                            check_metadata: bool = True) -> None:
  """ValueError unless `spec` stores at `path` (through OCDBT when `ocdbt`) and, when
  `check_metadata`, its metadata agrees with `arr`'s dtype, shape and shard shape."""
  if ocdbt and spec.get("kvstore", {}).get("driver", "") != "ocdbt":
    raise ValueError(f"Expected ocdbt driver, got spec={spec!r}")
  if check_metadata:
    if arr is None:
      raise ValueError("Array is required for metadata verification.")
    metadata = spec["metadata"]
    zarr3 = spec.get("driver", "") == "zarr3"
    if zarr3 and metadata["data_type"] != np.dtype(arr.dtype).name:
      raise ValueError(f"Provided dtype (metadata['data_type']={metadata['data_type']!r}) "
                       f"doesn't match (arr.dtype={arr.dtype!r})")
    if "shape" in metadata and tuple(metadata["shape"]) != tuple(arr.shape):
      raise ValueError(f"Provided shape (metadata['shape']={metadata['shape']!r}) doesn't "
                       f"match (arr.shape={arr.shape!r})")
    if zarr3:
      chunk = metadata["chunk_grid"]["configuration"]["chunk_shape"]
      if any(n % c for n, c in zip(_local_shape(arr), chunk)):
        raise ValueError(f"Provided chunk shape {chunk} does not divide the local shape of "
                         f"the array {_local_shape(arr)}")
  found = spec["kvstore"]["base"]["path"] if ocdbt else spec["kvstore"]["path"]
  if str(found) != str(path):
    raise ValueError(f"Provided path={path!r} does not match the spec path: {spec['kvstore']}")


def spec_has_metadata(tree) -> bool:
  """Whether a spec holds ``metadata`` at any depth (a ``cast`` driver nests it)."""
  return isinstance(tree, dict) and ("metadata" in tree or any(
      spec_has_metadata(sub) for sub in tree.values()))


def _bucket_kvstore(path: str) -> dict[str, str]:
  scheme = path[:2]
  m = _BUCKET_PATH[scheme].fullmatch(path)
  if m is None:
    raise ValueError("The ckpt_path should contain the bucket name and the file path inside "
                     f"the bucket. Got: {path}")
  return {"driver": "gcs" if scheme == "gs" else "s3", "bucket": m.group(1),
          "path": m.group(2)}


def get_tensorstore_spec(ckpt_path, ocdbt: bool = True, process_idx: int | None = None,
                         arr=None, driver: str = ARRAY_DRIVER) -> dict[str, Any]:
  """The TensorStore spec of an array stored at `ckpt_path` (a local path, or ``gs://`` /
  ``s3://`` bucket and path): with `ocdbt`, the array is the key named by the path's last
  part in an OCDBT store at its parent; `process_idx` puts it under ``process_<i>/``; `arr`
  adds the metadata to create it with."""
  ckpt_path = re.sub(r"^(gs|s3):/", r"\1://", os.path.normpath(str(ckpt_path)))
  if process_idx is not None:
    parent, name = os.path.split(ckpt_path)
    ckpt_path = os.path.join(parent, PROCESS_DIR_FORMAT.format(process_idx), name)
  remote = _REMOTE_PREFIX.match(ckpt_path) is not None
  spec: dict[str, Any] = {"driver": driver, "kvstore": {}}
  if ocdbt:
    full_path = ckpt_path
    ckpt_path, key = os.path.split(ckpt_path)
    if remote and _BUCKET_PATH[ckpt_path[:2]].fullmatch(ckpt_path) is None:
      raise ValueError("Using OCDBT requires the bucket name, the directory name and the "
                       f"array name, your path is: {full_path}")
  base = (_bucket_kvstore(ckpt_path) if remote
          else {"driver": DEFAULT_BASE_DRIVER, "path": ckpt_path})
  if ocdbt:
    if not remote and not os.path.isabs(ckpt_path):
      raise ValueError(f"Checkpoint path should be absolute. Got {ckpt_path}")
    spec["kvstore"] = {"driver": "ocdbt", "base": base, "path": key}
  else:
    spec["kvstore"] = base
  if arr is not None:
    spec["metadata"] = get_tensorstore_metadata(arr, driver=spec["driver"])
  return spec


async def combine_kvstores(combined_kvstore: dict, kvstores: list[dict],
                           context=None) -> None:
  """Copies every key of `kvstores` into `combined_kvstore`, in one transaction (one process
  only: concurrent writers would race)."""
  ts = tensorstore()
  context = default_context() if context is None else context
  combined, opened = await asyncio.gather(
      ts.KvStore.open(combined_kvstore, context=context),
      asyncio.gather(*(ts.KvStore.open(kv, context=context) for kv in kvstores)))
  txn = ts.Transaction()
  await asyncio.gather(*(kv.experimental_copy_range_to(combined.with_transaction(txn))
                         for kv in opened))
  await txn.commit_async()


async def _shard_on_host(shard) -> np.ndarray:
  """A shard's values as a NumPy array, letting other shards' transfers start meanwhile."""
  shard.data.copy_to_host_async()
  await asyncio.sleep(0)
  return np.asarray(shard.data)


async def async_serialize(arr_inp, tensorstore_spec: dict, commit_future: list | None = None,
                          context=None, chunk_layout=None, primary_host: int | None = None,
                          replica_id: int = 0, transaction=None):
  """Writes `arr_inp`'s addressable shards whose replica id is `replica_id` into the
  TensorStore `tensorstore_spec` (created, with metadata from the array unless the spec has
  some). With `commit_future` (a list), the commit futures are appended to it and only the
  copies out of the array are awaited; otherwise the writes are committed before returning.
  Only `primary_host` creates the store when given. `context` and `chunk_layout` default
  to `default_context()` and `default_chunk_layout()`."""
  ts = tensorstore()
  context = default_context() if context is None else context
  chunk_layout = default_chunk_layout() if chunk_layout is None else chunk_layout
  if isinstance(arr_inp, Array) and clients.process_count() > 1 and arr_inp.is_fully_addressable:
    raise ValueError(
        "Passing fully addressable arrays to a multiprocess serialization is not allowed, as "
        "this may lead to a race condition between processes. Serialization have failed for "
        f"the array with the path from kvstore: \"{tensorstore_spec['kvstore']}\".")
  if not spec_has_metadata(tensorstore_spec):
    tensorstore_spec["metadata"] = get_tensorstore_metadata(
        arr_inp, driver=tensorstore_spec["driver"])
  if tensorstore_spec["driver"] == "zarr" and "dtype" not in tensorstore_spec:
    tensorstore_spec["dtype"] = np.dtype(arr_inp.dtype).name
  open_args = dict(context=context, chunk_layout=chunk_layout, transaction=transaction)
  if primary_host is None or clients.process_index() == primary_host:
    created = ts.open(ts.Spec(tensorstore_spec), create=True, open=True, **open_args)
    if commit_future is not None:
      commit_future.append(created)
    else:
      await created
  # Opening again with the metadata assumed does no I/O: it gives the store to write into
  # on every process (the creation above may still be in flight).
  store = await ts.open(ts.Spec(tensorstore_spec), open=True, assume_metadata=True,
                        **open_args)

  async def write(shard):
    if shard.replica_id != replica_id:
      return
    data = await _shard_on_host(shard)
    written = store[shard.index].write(
        data, can_reference_source_data_indefinitely=isinstance(arr_inp, Array))
    if commit_future is not None:
      commit_future.append(written.commit)
      await written.copy
    else:
      await written.commit

  return await asyncio.gather(*(write(shard) for shard in arr_inp.addressable_shards))


def run_serialization(arrays, tensorstore_specs) -> None:
  """Writes each array to its spec (pytrees of them: a dict as well as JAX's lists), waiting
  for all the commits."""
  async def serialize_all():
    return await asyncio.gather(*tree_util.tree_leaves(
        tree_util.tree_map(async_serialize, arrays, tensorstore_specs)))
  asyncio.run(serialize_all())


def estimate_read_memory_footprint(t, domain) -> int:
  """Bytes read to load `domain` of the TensorStore `t`: the whole chunks it touches (the
  domain itself for an unchunked driver)."""
  domain = t.domain if domain is None else domain
  nbytes = t.dtype.numpy_dtype.itemsize
  template = t.chunk_layout.read_chunk_template
  if not all(template[i].finite for i in range(t.rank)):
    return domain.size * nbytes
  for lo, n, c_lo, c in zip(domain.origin, domain.shape, template.origin, template.shape):
    start, stop = lo - c_lo, lo + n - c_lo
    nbytes *= -(-stop // c) * c - start // c * c
  return nbytes


def _in_sharding(in_type, dtype):
  """(sharding, dtype) that a deserialization target asks for; xjax keeps default layouts,
  so a Format's layout does not change what is read."""
  if isinstance(in_type, Format):
    sharding = in_type.sharding
  elif isinstance(in_type, ShapeDtypeStruct):
    sharding, dtype = in_type.sharding, in_type.dtype if dtype is None else dtype
  else:
    sharding = in_type
  if not isinstance(sharding, Sharding):
    raise TypeError("sharding passed to deserialization should be specified, concrete and an "
                    f"instance of `jax.sharding.Sharding`. Got {in_type}")
  return sharding, dtype


async def async_deserialize(in_type, tensorstore_spec, global_shape: Sequence[int] | None = None,
                            dtype=None, byte_limiter: LimitInFlightBytes | None = None,
                            context=None, chunk_layout=None, assume_metadata: bool = False):
  """The Array stored at `tensorstore_spec`, laid out as `in_type` (a Sharding, a Format or
  a ShapeDtypeStruct with a sharding) with shape `global_shape` and dtype `dtype` (the
  stored ones by default): each addressable device reads its piece; what lies beyond the
  stored shape is zero. `byte_limiter` bounds the bytes read at once."""
  ts = tensorstore()
  sharding, dtype = _in_sharding(in_type, dtype)
  t = await ts.open(tensorstore_spec, open=True, assume_metadata=assume_metadata,
                    context=default_context() if context is None else context,
                    chunk_layout=default_chunk_layout() if chunk_layout is None else chunk_layout)
  shape = tuple(t.shape if global_shape is None else global_shape)
  stored_dtype = t.dtype.numpy_dtype
  dtype = stored_dtype if dtype is None else dtype
  shard_shape = sharding.shard_shape(shape)

  async def read(index, device):
    wanted = ts.IndexTransform(input_shape=shape)[index].domain
    present = t.domain.intersect(wanted)
    nbytes = estimate_read_memory_footprint(t, present)
    if byte_limiter is not None:
      await byte_limiter.wait_for_bytes(nbytes)
    out = np.zeros(shard_shape, dtype=stored_dtype)
    where = tuple(slice(lo - w, lo - w + n) for lo, n, w in
                  zip(present.origin, present.shape, wanted.origin))
    out[where] = await t[present].read()
    result = device_put(out.astype(dtype), SingleDeviceSharding(device))
    if byte_limiter is not None:
      await byte_limiter.release_bytes(nbytes)
    return result

  return await _array_from_async_callback(shape, dtypes.canonicalize_dtype(dtype), sharding,
                                          read)


async def _array_from_async_callback(shape: tuple, dtype, sharding: Sharding,
                                     data_callback: Callable[[tuple, Any], Awaitable[Array]]
                                     ) -> Array:
  """The Array whose addressable shards `data_callback(index, device)` gives, concurrently."""
  index = sharding.devices_indices_map(shape)
  mine = clients.process_index()
  devices = [d for d in sorted(index, key=lambda d: d.id) if d.process_index == mine]
  pieces = await asyncio.gather(*(data_callback(index[d], d) for d in devices))
  return make_array_from_single_device_arrays(shape, sharding, pieces, dtype=dtype)


def run_deserialization(shardings, tensorstore_specs, global_shapes=None, dtypes=None,
                        concurrent_gb: int = 32) -> list[Array]:
  """Reads each spec into an Array laid out as its sharding (with its global shape and
  dtype when given), at most `concurrent_gb` GB of chunks in flight."""
  n = len(tensorstore_specs)

  async def deserialize_all():
    limiter = LimitInFlightBytes(concurrent_gb * 10 ** 9)
    reads = tree_util.tree_map(
        functools.partial(async_deserialize, byte_limiter=limiter), list(shardings),
        list(tensorstore_specs), [None] * n if global_shapes is None else global_shapes,
        [None] * n if dtypes is None else dtypes)
    return await asyncio.gather(*reads)
  return asyncio.run(deserialize_all())
