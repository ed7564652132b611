"""Device buffers: host data put on a device, copied between devices and back, and buffers
laid out over several devices (one jaxlib array holding a shard per device)."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.backend.jaxlib_api import xc as _xc
from xjax._src.backend.jaxlib_api import DeviceBuffer
from xjax._src.backend.clients import register_backend_cache


_REPLICATED = _xc.HloSharding.replicate()


class _Placement(_xc.SingleDeviceSharding):
  """The minimal single-device sharding jaxlib needs to create and wrap buffers."""

  def _to_xla_hlo_sharding(self, ndim):
    return _REPLICATED   # (jaxlib calls this on every put)

  @property
  def _device_assignment(self):
    return (self._device,)

  is_fully_replicated = True
  is_fully_addressable = True
  num_devices = 1

  @property
  def memory_kind(self):
    return None

  def shard_shape(self, shape):
    return shape

  @property
  def device_set(self):
    return {self._device}


_shardings: dict = {}
register_backend_cache(_shardings)


def device_sharding(device) -> _Placement:
  s = _shardings.get(device)
  if s is None:
    s = _shardings[device] = _Placement(device)
  return s


class _HostAval:
  __slots__ = ("shape", "dtype", "weak_type", "ndim")

  def __init__(self, shape, dtype) -> None:
    self.shape = shape
    self.dtype = dtype
    self.weak_type = False
    self.ndim = len(shape)


def put(value: np.ndarray, device, own: bool = False) -> DeviceBuffer:
  """Copies a host array to ``device`` (asynchronously); float0 values, which hold no
  data, are held as booleans. On a CPU the buffer may alias the array's memory; with
  ``own`` it never does (it can then be donated, and outlives changes to the array)."""
  value = np.asarray(value)
  if value.dtype == dtypes.float0:
    value = np.zeros(value.shape, np.bool_)
  if not value.flags.c_contiguous:
    value = np.ascontiguousarray(value)
  aval = _HostAval(value.shape, value.dtype)
  return _xc.batched_device_put(aval, device_sharding(device), [value], [device], True, own,
                                enable_x64=True)


def copy_to_device(buf: DeviceBuffer, device) -> DeviceBuffer:
  if buf_device(buf) == device:
    return buf
  return copy_to_devices([buf], [device])[0]


def copy_to_devices(bufs: Sequence[DeviceBuffer], devices: Sequence) -> list:
  """Copies each buffer to its device, device to device in one runtime call where the
  clients agree (through the host otherwise)."""
  out: list = [None] * len(bufs)
  same = [i for i, (b, d) in enumerate(zip(bufs, devices)) if b.platform == d.platform]
  if same:
    copies = _xc.batched_copy_array_to_devices_with_sharding(
        [bufs[i] for i in same], [_xc.DeviceList((devices[i],)) for i in same],
        [device_sharding(devices[i]) for i in same],
        [_xc.ArrayCopySemantics.ALWAYS_COPY] * len(same))
    for i, c in zip(same, copies):
      out[i] = c
  for i, o in enumerate(out):
    if o is None:
      out[i] = put(to_host(bufs[i]), devices[i])
  return out


def copy_buffer(buf: DeviceBuffer) -> DeviceBuffer:
  """A new buffer on the same device holding a copy of ``buf``."""
  device = buf_device(buf)
  return _xc.batched_copy_array_to_devices_with_sharding(
      [buf], [_xc.DeviceList((device,))], [device_sharding(device)],
      [_xc.ArrayCopySemantics.ALWAYS_COPY])[0]


def copy_to_host_async(buf: DeviceBuffer) -> None:
  if is_spread(buf):
    for shard in buf._arrays:
      shard._copy_single_device_array_to_host_async()
  else:
    buf._copy_single_device_array_to_host_async()


# ---------------------------------------------------------------------------------------
# Buffers over several devices: one jaxlib array holding a shard per device, laid out as
# xjax's sharding (``described``) says.  ``devices`` (sorted by id) is the device
# assignment of the programs that use it; HLO shardings name devices by place in it.

class _Spread(_xc.GSPMDSharding):
  """jaxlib's GSPMD sharding with what the runtime asks of it."""

  def _to_xla_hlo_sharding(self, ndim):
    return self._hlo_sharding

  @property
  def _device_assignment(self):
    return tuple(self._devices)

  is_fully_addressable = True  # set per instance by spread()

  @property
  def is_fully_replicated(self):
    return self._hlo_sharding.is_replicated()

  @property
  def memory_kind(self):
    return None

  def shard_shape(self, shape):
    return self.described.shard_shape(shape)

  @property
  def num_devices(self):
    return len(self._devices)

  @property
  def device_set(self):
    return set(self._devices)


_spreads: dict = {}
register_backend_cache(_spreads)


def spread(described, ndim: int) -> _Spread:
  """The runtime sharding of arrays laid out as ``described`` (an xjax Sharding)."""
  key = (described, ndim)
  s = _spreads.get(key)
  if s is None:
    devices = sorted(described.device_set, key=lambda d: d.id)
    logical = {d: i for i, d in enumerate(devices)}
    text = described.tiling(ndim).hlo_text(logical)
    s = _Spread(_xc.DeviceList(tuple(devices)), _xc.HloSharding.from_string(text))
    s.described = described
    s.is_fully_addressable = all(d.process_index == d.client.process_index() for d in devices)
    _spreads[key] = s
  return s


def is_spread(buf) -> bool:
  return type(buf._sharding) is _Spread


def buf_sharding(buf):
  """xjax's sharding of a buffer over several devices."""
  return buf._sharding.described


def shards(buf) -> list:
  """The one-device buffers of a buffer over several devices, in device-id order."""
  return list(buf._arrays)


def put_sharded(value: np.ndarray, described, weak_type: bool = False) -> DeviceBuffer:
  """Copies a host array to the devices of ``described``, each getting its shard."""
  value = np.asarray(value)
  placement = spread(described, value.ndim)
  index = described.devices_indices_map(value.shape)
  devices = [d for d in placement._devices if d.process_index == d.client.process_index()]
  pieces = [np.ascontiguousarray(value[index[d]]) for d in devices]
  aval = _HostAval(value.shape, value.dtype)
  aval.weak_type = weak_type
  return _xc.batched_device_put(aval, placement, pieces, devices, True, enable_x64=True)


def assemble(bufs: Sequence[DeviceBuffer], described, shape, dtype) -> DeviceBuffer:
  """One buffer over several devices from this process's one-device buffers ``bufs`` (in
  device-id order), laid out as ``described``; the buffers become its shards as they are."""
  aval = _HostAval(tuple(shape), np.dtype(dtype))
  return _xc.ArrayImpl(aval, spread(described, len(shape)), list(bufs), True, True)


def _assemble(buf) -> np.ndarray:
  if buf._sharding.is_fully_replicated:  # every shard is the whole array
    return to_host(buf._arrays[0])
  if not buf._sharding.is_fully_addressable:
    raise RuntimeError("Fetching value for `xjax.Array` that spans non-addressable (non "
                       "process local) devices is not possible. Use the `.addressable_shards` "
                       "of the Array to inspect this process's shards.")
  shape = tuple(buf.aval.shape)
  parts = [(s._sharding._device, to_host(s)) for s in buf._arrays]
  index = buf._sharding.described.devices_indices_map(shape)
  out = np.empty(shape, parts[0][1].dtype)
  for device, part in parts:
    out[index[device]] = part
  return out


def host_view(buf: DeviceBuffer) -> tuple[np.ndarray, bool]:
  """A one-device buffer's data as a row-major NumPy array, and whether making it needed a
  copy (a buffer in another layout, or not in host memory); no copy for a CPU buffer
  in the default layout."""
  return buf._single_device_array_to_np_array_did_copy()


def to_host(buf: DeviceBuffer) -> np.ndarray:
  if type(buf._sharding) is _Spread:
    return _assemble(buf)
  value = np.asarray(buf)
  if value.dtype == object:  # ml_dtypes element types (bfloat16, ...) need the direct path
    value = buf._single_device_array_to_np_array_did_copy()[0]
  return value


def buf_device(buf: DeviceBuffer):
  return buf._sharding._device


def buf_device_set(buf: DeviceBuffer) -> set:
  """The devices holding ``buf`` (one, or several for a spread buffer)."""
  return buf._sharding.device_set


def block_until_ready(bufs: Sequence[DeviceBuffer]) -> None:
  for b in bufs:
    b.block_until_ready()
