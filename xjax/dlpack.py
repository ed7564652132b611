"""DLPack interchange (``jax.dlpack``)."""
import numpy as np

from xjax._src.libraries.numpy.dlpack import from_dlpack  # noqa: F401

_SUPPORTED = {np.dtype(t) for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
    np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128)}


def is_supported_dtype(dtype) -> bool:
  """Whether arrays of ``dtype`` can be exchanged through DLPack."""
  from xjax._src.foundations import dtypes
  dt = dtypes.dtype(dtype)
  return dt in _SUPPORTED or dt == dtypes.dtype("bfloat16")
