"""``xjax.numpy.from_dlpack``: arrays from any DLPack producer (NumPy, PyTorch, xjax, ...)."""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.execution.array import Array
from xjax._src.backend import runtime
from xjax._src.core.avals import ShapedArray


def from_dlpack(x, /, *, device=None, copy: bool | None = None) -> Array:
  """An Array sharing ``x``'s memory when the runtime can view it (same device, 64-byte
  aligned, compact strides, a dtype xjax keeps), else a copy; committed to its device.
  ``copy=True`` always copies; ``copy=False`` raises when a copy would be needed."""
  from xjax._src.api.placement import resolve_device
  if not (hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__")):
    raise TypeError("The array passed to from_dlpack must have __dlpack__ and "
                    f"__dlpack_device__ methods; got {type(x).__name__}.")
  kind, index = x.__dlpack_device__()
  source = runtime.device_for_dlpack(int(kind), index)
  target = source if device is None else resolve_device(device)
  if source.platform == "cpu":
    host = np.from_dlpack(x)  # a view: gives shape, dtype and strides
    dtype = dtypes.canonicalize_dtype(host.dtype)
    if host.flags.c_contiguous and dtype == host.dtype:
      buf = runtime.from_dlpack(x.__dlpack__(), target, copy)
    elif copy is False:
      raise ValueError(f"from_dlpack(copy=False): the {host.dtype} data with strides "
                       f"{host.strides} cannot be viewed as a {dtype} array without a copy")
    else:
      buf = runtime.put(np.ascontiguousarray(host, dtype=dtype), target)
    aval = ShapedArray(host.shape, dtype)
  else:  # an accelerator producer: its shape and dtype name the data
    buf = runtime.from_dlpack(x.__dlpack__(stream=None), source, copy)
    if target != source:
      buf = runtime.copy_to_device(buf, target)
    aval = ShapedArray(tuple(x.shape), np.dtype(str(x.dtype).rsplit(".", 1)[-1]))
  return Array._from_buffer(buf, aval, True)
