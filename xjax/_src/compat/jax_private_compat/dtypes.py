"""`jax._src.dtypes`: the dtype helpers libraries use beyond `jax.dtypes` (flax's fp8 dtype,
tinygp's complex promotion)."""
import numpy as np

from xjax._src.foundations.dtypes import (ExtendedDType, InvalidInputException,  # noqa: F401
                                          TypePromotionError,
                                          canonicalize_dtype, extended, finfo, iinfo,
                                          is_weakly_typed, issubdtype, prng_key, result_type,
                                          to_complex_dtype, to_inexact_dtype)
from xjax._src.compat.jax_private_compat import missing

DType = np.dtype


def supports_inf(dtype) -> bool:
  """Whether the floating-point ``dtype`` has infinities (some float8 formats do not)."""
  return bool(np.isinf(np.array(np.inf).astype(dtype)))


def __getattr__(name: str):
  raise missing("jax._src.dtypes", name)
