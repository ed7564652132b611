"""Arrays assembled from per-device pieces: ``make_array_from_callback``,
``make_array_from_single_device_arrays`` and ``make_array_from_process_local_data``.

In a run of several processes each process supplies only the pieces of its own devices;
the result is one global Array whose other shards live in the other processes."""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from xjax._src.foundations import dtypes, tree_util
from xjax._src.execution.array import Array
from xjax._src.backend import buffers, clients
from xjax._src.core.avals import ShapedArray
from xjax._src.core.trace import Tracer
from xjax._src.core.values import get_aval
from xjax._src.foundations.errors import UnexpectedTracerError
from xjax._src.foundations.sharding import NamedSharding, Sharding


def _addressable_indices(sharding: Sharding, shape: tuple) -> dict:
  """This process's devices (in the runtime's order) and their index into the array."""
  if isinstance(sharding, NamedSharding):
    sharding.check_shape(shape)
  index = sharding.devices_indices_map(shape)
  mine = clients.process_index()
  return {d: index[d] for d in sorted(index, key=lambda d: d.id) if d.process_index == mine}


def _check_dtype(pieces: Sequence, dtype, fname: str) -> np.dtype:
  if dtype is None:
    if not pieces:
      raise ValueError("If the Array has no addressable shards, `dtype` must be provided via "
                       f"the `dtype` argument to `xjax.{fname}`.")
    return pieces[0].dtype
  dtype = dtypes.canonicalize_dtype(dtype)
  if pieces and pieces[0].dtype != dtype:
    raise ValueError(f"If `dtype` is provided to `xjax.{fname}`, it must match the dtype of "
                     f"the addressable shards. Got dtype={dtype} and shard "
                     f"dtype={pieces[0].dtype}`.")
  return dtype


def _check_pieces(pieces: Sequence, sharding: Sharding, aval: ShapedArray) -> None:
  expected = sharding.shard_shape(aval.shape)
  for piece in pieces:
    if piece.dtype != aval.dtype:
      raise ValueError(f"Input buffers to `Array` must have matching dtypes. Got {piece.dtype}, "
                       f"expected {aval.dtype} for buffer: {piece}")
    if tuple(piece.shape) != tuple(expected):
      raise ValueError(f"Expected shard shape {tuple(expected)} doesn't match the single "
                       f"device array shape {tuple(piece.shape)}. Shape of Array is "
                       f"{aval.str_short(short_dtypes=False)} with sharding {sharding}")


def _assemble(aval: ShapedArray, sharding: Sharding, bufs: list) -> Array:
  """One Array of the one-device buffers ``bufs`` (in the runtime's device order); the
  Explicit mesh axes a NamedSharding splits it over are in its type, as ``device_put``'s."""
  if isinstance(sharding, NamedSharding):
    aval = aval.update(sharding=sharding)
  if len(sharding.device_set) == 1:
    return Array._from_buffer(bufs[0], aval, True)
  return Array._from_buffer(buffers.assemble(bufs, sharding, aval.shape, aval.dtype), aval,
                            True)


def _host_piece(value):
  """A callback's result as a NumPy array of its canonical dtype, or an xjax Array."""
  if isinstance(value, Tracer):
    raise UnexpectedTracerError("xjax.make_array_from_callback cannot be called within a "
                                "traced context.")
  if isinstance(value, Array):
    return value
  return np.asarray(value, dtype=get_aval(value).dtype)


def make_array_from_callback(shape, sharding: Sharding,
                             data_callback: Callable[[tuple], object], dtype=None) -> Array:
  """An Array of ``shape`` laid out as ``sharding`` whose shard on each of this process's
  devices is ``data_callback(index)`` (index: a tuple of slices into the global array)."""
  if not isinstance(sharding, Sharding):
    raise TypeError(f"sharding should be an instance of `xjax.sharding`. Got {sharding} of "
                    f"type {type(sharding)}")
  shape = tuple(int(n) for n in shape)
  index = _addressable_indices(sharding, shape)
  devices = list(index)
  if sharding.is_fully_replicated:
    pieces = [_host_piece(data_callback((slice(None),) * len(shape)))] * len(devices)
  else:
    pieces = [_host_piece(data_callback(index[d])) for d in devices]
  aval = ShapedArray(shape, _check_dtype(pieces, dtype, "make_array_from_callback"))
  _check_pieces(pieces, sharding, aval)
  bufs = [_buffer_on(piece, d) for piece, d in zip(pieces, devices)]
  return _assemble(aval, sharding, bufs)


def _buffer_on(piece, device):
  """A one-device buffer of ``piece`` (host data or an Array) on ``device``."""
  if isinstance(piece, Array):
    piece._check_alive()
    if not buffers.is_spread(piece._buf):
      return buffers.copy_to_device(piece._buf, device)
    piece = piece._physical_value()
  return buffers.put(piece, device)


def make_array_from_single_device_arrays(shape, sharding: Sharding, arrays: Sequence[Array],
                                         *, dtype=None) -> Array:
  """An Array of ``shape`` laid out as ``sharding`` from one Array per device of this
  process (any order); the arrays' buffers become its shards without copies."""
  shape = tuple(int(n) for n in shape)
  arrays = list(arrays)
  for a in arrays:
    if not isinstance(a, Array):
      raise TypeError(f"Unsupported type for elements in `arrays`: {type(a)}")
  aval = ShapedArray(shape, _check_dtype(arrays, dtype, "make_array_from_single_device_arrays"))
  index = _addressable_indices(sharding, shape)
  if len(arrays) != len(index):
    raise ValueError(f"Expected {len(index)} per-device arrays (this is how many devices are "
                     f"addressable by the sharding), but got {len(arrays)}")
  for a in arrays:
    a._check_alive()
  found = [a.device.id if not buffers.is_spread(a._buf) else None for a in arrays]
  if None in found or len(set(found)) != len(found):
    raise ValueError("When making an array from single-device arrays, the input arrays must "
                     f"be from distinct devices, but got device IDs {found}")
  wanted = {d.id for d in index}
  if set(found) != wanted:
    raise ValueError(
        "Addressable devices and per-device arrays devices do not match. Sharding contains "
        f"devices {wanted - set(found)} that are not present in per-device arrays. "
        f"Per-device arrays contain devices {set(found) - wanted} that are not present in "
        "the sharding.")
  _check_pieces(arrays, sharding, aval)
  by_id = dict(zip(found, arrays))
  return _assemble(aval, sharding, [by_id[d.id]._buf for d in index])


def make_array_from_process_local_data(sharding, local_data, global_shape=None):
  """A global Array from this process's part of the data: in each dimension ``local_data``
  holds either the whole global extent or exactly the slices this process's devices
  address (contiguously, in order).  ``global_shape`` defaults to what that implies."""
  leaves, tree = tree_util.tree_flatten(local_data)
  shardings = _broadcast_prefix(sharding, tree, "sharding", lambda x: x is None)
  shapes = _broadcast_prefix(global_shape, tree, "global_shape",
                             lambda x: x is None or isinstance(x, tuple))
  if clients.process_count() == 1:
    for s, leaf in zip(shapes, leaves):
      if s is not None and tuple(s) != np.shape(leaf):
        raise ValueError("When calling `make_array_from_process_local_data` on a single "
                         "process, global_shape should be None or equal to local_data.shape."
                         f"Got global_shape={s} and local_data.shape={np.shape(leaf)}.")
    from xjax._src.api.placement import device_put
    return device_put(local_data, sharding)
  out = [_from_process_local(np.asarray(leaf), s, shape)
         for leaf, s, shape in zip(leaves, shardings, shapes)]
  return tree_util.tree_unflatten(tree, out)


def _broadcast_prefix(prefix, tree, what: str, is_leaf) -> list:
  """``prefix`` (a pytree prefix of ``tree``) repeated once per leaf of ``tree``."""
  if is_leaf(prefix) or isinstance(prefix, Sharding):
    return [prefix] * tree.num_leaves
  out: list = []
  full = tree_util.tree_unflatten(tree, [object()] * tree.num_leaves)

  def spread(p, sub):
    out.extend([p] * len(tree_util.tree_leaves(sub)))
  tree_util.tree_map(spread, prefix, full, is_leaf=lambda x: is_leaf(x) or isinstance(x,
                                                                                    Sharding))
  if len(out) != tree.num_leaves:
    raise ValueError(f"make_array_from_process_local_data: {what} must be a pytree prefix of "
                     f"local_data")
  return out


def _tile_positions(sharding: Sharding, ndim: int, dim: int) -> tuple:
  """How many tiles split dimension ``dim``, and which of them this process's devices hold."""
  dims = sharding.tiling(ndim).dims if hasattr(sharding, "tiling") else (1,) * ndim
  index = sharding.devices_indices_map(dims)
  mine = clients.process_index()
  return dims[dim], sorted({index[d][dim].start or 0 for d in index
                            if d.process_index == mine})


def _from_process_local(data: np.ndarray, sharding: Sharding, global_shape) -> Array:
  local_shape, ndim = data.shape, data.ndim
  tiles = [_tile_positions(sharding, ndim, dim) for dim in range(ndim)]
  if global_shape is None:
    global_shape = [n // len(mine) * every for n, (every, mine) in zip(local_shape, tiles)]
  global_shape = tuple(int(n) for n in global_shape)
  for dim, (n, g, (every, mine)) in enumerate(zip(local_shape, global_shape, tiles)):
    if n != g and len(mine) * (g // every) != n:
      raise ValueError("Invalid host data, each dimension should match either global or "
                       f"process shape. In dimension {dim}, the process data has {n} "
                       f"elements. Process addresses {len(mine) * (g // every)} elements and "
                       f"global_shape={global_shape}.")

  def local_piece(index):
    """The part of ``data`` that holds the global ``index``."""
    parts = []
    for sl, n, g, (every, mine) in zip(index, local_shape, global_shape, tiles):
      size = g // every
      k = mine.index((sl.start or 0) // size) if n != g else None
      parts.append(sl if k is None else slice(k * size, (k + 1) * size))
    return data[tuple(parts)]

  return make_array_from_callback(global_shape, sharding, local_piece)
