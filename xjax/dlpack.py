"""DLPack interchange (``jax.dlpack``)."""
import numpy as _np

from xjax._src.foundations import dtypes as _dtypes
from xjax._src.libraries.numpy.dlpack import from_dlpack  # noqa: F401

_SUPPORTED = frozenset(_np.dtype(t) for t in (
    _np.bool_, _np.int8, _np.int16, _np.int32, _np.int64, _np.uint8, _np.uint16, _np.uint32,
    _np.uint64, _np.float16, _dtypes.bfloat16, _np.float32, _np.float64, _np.complex64,
    _np.complex128))


def is_supported_dtype(dtype) -> bool:
  """Whether arrays of ``dtype`` can be exchanged through DLPack (a NumPy dtype-like;
  TypeError for PRNG key dtypes, which are not)."""
  if dtype is None:  # NumPy would read it as float64
    raise TypeError(f"Expected a string or dtype-like object; got {dtype=}")
  return _np.dtype(dtype) in _SUPPORTED
