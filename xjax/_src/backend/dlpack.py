"""DLPack: device buffers exchanged with other libraries as DLPack capsules."""
from __future__ import annotations

import enum

from xjax._src.backend.jaxlib_api import jaxlib_ext as _jax
from xjax._src.backend.jaxlib_api import DeviceBuffer, XlaRuntimeError
from xjax._src.backend.clients import backend


class DLDeviceType(enum.IntEnum):
  kDLCPU = 1
  kDLCUDA = 2
  kDLCUDAHost = 3
  kDLROCM = 10


_DLPACK_TYPES = {"cpu": DLDeviceType.kDLCPU, "cuda": DLDeviceType.kDLCUDA,
                 "rocm": DLDeviceType.kDLROCM}
_DLPACK_PLATFORMS = {DLDeviceType.kDLCPU: "cpu", DLDeviceType.kDLCUDA: "cuda",
                     DLDeviceType.kDLCUDAHost: "cuda", DLDeviceType.kDLROCM: "rocm"}


def dlpack_device(device) -> tuple:
  """``__dlpack_device__``: (device type, index); CPU memory is one DLPack device."""
  kind = _DLPACK_TYPES[device.platform]
  return kind, 0 if kind == DLDeviceType.kDLCPU else device.local_hardware_id


def dlpack_platform(kind: int) -> str | None:
  """The platform a DLPack device type names (None: one xjax does not run on)."""
  return _DLPACK_PLATFORMS.get(kind)


def device_for_dlpack(platform: str, index: int):
  """The device of ``platform`` with local hardware id ``index`` (the runtime's error when
  there is none; CPU memory is id 0, the first CPU device)."""
  return backend(platform).device_from_local_hardware_id(index)


def to_dlpack(buf: DeviceBuffer, stream=None):
  """A DLPack capsule viewing ``buf`` (no copy)."""
  return _jax.buffer_to_dlpack_managed_tensor(buf, stream=stream)


def from_dlpack(capsule, device, copy: bool | None = None, stream=None) -> DeviceBuffer:
  """A buffer on ``device`` from a DLPack capsule: jaxlib views host data that is 64-byte
  aligned and compact (keeping a transposed producer's layout), else copies; with
  ``copy=False`` unaligned data raises ValueError."""
  try:
    return _jax.dlpack_managed_tensor_to_buffer(capsule, device, stream, copy)
  except XlaRuntimeError as err:
    text = str(err)
    if "is not aligned to" not in text:
      raise
    where = text[text.index("is not aligned to"):].strip().rstrip(".")
    raise ValueError(f"from_dlpack(copy=False): the data {where}, so it cannot be used "
                     "without a copy; pass copy=True or copy=None to copy it.") from None
