"""`jax._src.dtypes`: the dtype helpers libraries use beyond `jax.dtypes` (flax's fp8 dtype,
tinygp's complex promotion)."""
import numpy as np

from xjax._src.foundations import dtypes as _dtypes
from xjax._src.foundations.dtypes import (ExtendedDType, InvalidInputException,  # noqa: F401
                                          TypePromotionError, bfloat16,
                                          canonicalize_dtype, default_complex_dtype,
                                          default_float_dtype, default_int_dtype,
                                          default_uint_dtype, extended, finfo, float0, iinfo,
                                          is_weakly_typed, issubdtype, itemsize_bits,
                                          primal_tangent_dtype, prng_key, promote_types,
                                          result_type, safe_to_cast, scalar_type_of,
                                          to_complex_dtype, to_floating_dtype,
                                          to_inexact_dtype, to_numeric_dtype)
from xjax._src.compat.jax_private_compat import missing

DType = np.dtype


def dtype(x) -> np.dtype:
  """The canonical dtype of a value or dtype specifier (JAX's private ``dtype`` always
  canonicalizes: ``dtype(1.0)`` is float32 without x64; optree's ``tree_ravel`` calls it)."""
  return _dtypes.dtype(x, canonicalize=True)


def check_and_canonicalize_user_dtype(dtype, fun_name=None) -> np.dtype:
  """A dtype a user asked for, canonicalized (64-bit kinds narrowed, with a warning)."""
  return _dtypes.check_user_dtype_supported(dtype, fun_name)


def supports_inf(dtype) -> bool:
  """Whether the floating-point ``dtype`` has infinities (some float8 formats do not)."""
  return bool(np.isinf(np.array(np.inf).astype(dtype)))


def __getattr__(name: str):
  raise missing("jax._src.dtypes", name)
