"""``xjax.numpy.from_dlpack``: arrays from any DLPack producer (NumPy, PyTorch, xjax, ...)."""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.execution.array import Array
from xjax._src.backend import buffers, dlpack
from xjax._src.core.avals import ShapedArray


def _target_device(device):
  """The one device a ``device`` argument (a Device or a one-device Sharding) names."""
  from xjax._src.api.placement import resolve_device
  from xjax._src.foundations.sharding import Sharding
  if isinstance(device, Sharding):
    if len(device.device_set) > 1:
      raise ValueError("from_dlpack can only unpack a DLPack tensor onto a single device, "
                       f"but a Sharding with {len(device.device_set)} devices was given.")
    device, = device.device_set
  return resolve_device(device)


def from_dlpack(x, /, *, device=None, copy: bool | None = None) -> Array:
  """An Array sharing ``x``'s memory where the runtime can view it (host data 64-byte
  aligned, compact and row-major, of a dtype xjax keeps), else a copy; committed to its
  device. ``copy=True`` always copies; ``copy=False`` raises ValueError where a copy would
  be needed (unaligned or transposed data, another device)."""
  target = None if device is None else _target_device(device)
  if not (hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__")):
    raise TypeError("The array passed to from_dlpack must have __dlpack__ and "
                    "__dlpack_device__ methods.")
  kind, index = x.__dlpack_device__()
  platform = dlpack.dlpack_platform(kind)
  if platform is None:
    raise TypeError(f"The array passed to from_dlpack is on a device type xjax does not "
                    f"support (DLDeviceType: {kind}): {x!r}")
  source = dlpack.device_for_dlpack(platform, index)
  if target is not None and target != source and copy is False:
    raise ValueError(f"from_dlpack(copy=False): the array is on {source!r}, so placing it "
                     f"on device={target!r} needs a copy; pass copy=True or copy=None.")
  buf = dlpack.from_dlpack(x.__dlpack__(stream=None), source, copy)
  if platform == "cpu":
    host, relaid = buffers.host_view(buf)  # no copy unless jaxlib kept a transposed layout
    dtype = dtypes.canonicalize_dtype(host.dtype)
    if dtype != host.dtype:                # 64-bit data without x64: converted, as JAX
      with np.errstate(over="ignore"):
        buf = buffers.put(host.astype(dtype), source)
    elif relaid:                           # xjax's arrays are row-major
      if copy is False:
        raise ValueError(f"from_dlpack(copy=False): the {host.dtype} data is laid out "
                         "transposed, and xjax arrays are row-major; a copy is needed.")
      buf = buffers.put(host, source)
    elif copy:                             # jaxlib views aligned data even with copy=True
      buf = buffers.copy_buffer(buf)
      buffers.block_until_ready([buf])     # copied before the producer writes again
    aval = ShapedArray(host.shape, dtype)
  else:  # an accelerator producer: its shape and dtype name the data
    if copy:
      buf = buffers.copy_buffer(buf)
    aval = ShapedArray(tuple(x.shape), np.dtype(str(x.dtype).rsplit(".", 1)[-1]))
  if target is not None and target != source:
    buf = buffers.copy_to_device(buf, target)
  return Array._from_buffer(buf, aval, True)
