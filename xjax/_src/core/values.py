"""Abstract values of concrete inputs: Python scalars, NumPy arrays, xjax Arrays."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.foundations.config import enable_x64
from xjax._src.core.avals import ShapedArray
from xjax._src.core.trace import Tracer
from xjax._src.core.dim_expr import DimExpr, dim_value_dtype

# type -> function(value) -> ShapedArray.  xjax.Array registers itself here.
pytype_aval_mappings: dict[type, Callable[[Any], ShapedArray]] = {}

_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _int_aval(x: int) -> ShapedArray:
  if enable_x64():
    if not _INT64_MIN <= x <= _INT64_MAX:
      raise OverflowError(f"Python int {x} too large to convert to int64")
    return _WEAK_I64
  if not _INT32_MIN <= x <= _INT32_MAX:
    raise OverflowError(f"Python int {x} too large to convert to int32")
  return _WEAK_I32


_WEAK_I32 = ShapedArray((), np.int32, True)
_WEAK_I64 = ShapedArray((), np.int64, True)
_BOOL = ShapedArray((), np.bool_, False)


def _scalar_aval(weak_dtype32, weak_dtype64):
  a32 = ShapedArray((), weak_dtype32, True)
  a64 = ShapedArray((), weak_dtype64, True)
  return lambda x: a64 if enable_x64() else a32


def _numpy_aval(x) -> ShapedArray:
  dt = x.dtype
  if (dt.kind in "OUSVMm" and dt != dtypes.float0
      and not (dtypes.is_inexact(dt) or dtypes.is_integer(dt))):  # ml_dtypes' narrow types
    raise _invalid(x, f"Dtype {dt} is not a valid JAX array type. Only arrays of numeric "
                   "types are supported by JAX.")
  return ShapedArray(x.shape, dtypes.canonicalize_dtype(dt), False)


pytype_aval_mappings.update({
    bool: lambda x: _BOOL,
    int: _int_aval,
    float: _scalar_aval(np.float32, np.float64),
    complex: _scalar_aval(np.complex64, np.complex128),
    np.ndarray: _numpy_aval,
    DimExpr: lambda d: ShapedArray((), dim_value_dtype(), weak_type=True),  # (as dim_as_value)
})
for _t in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
           np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128,
           dtypes.bfloat16):
  pytype_aval_mappings[_t] = _numpy_aval


def get_aval(x) -> ShapedArray:
  """The abstract value of any input xjax accepts; TypeError for anything else."""
  if isinstance(x, Tracer):
    return x.aval
  handler = pytype_aval_mappings.get(type(x))
  if handler is not None:
    return handler(x)
  for t in type(x).__mro__[1:]:
    handler = pytype_aval_mappings.get(t)
    if handler is not None:
      pytype_aval_mappings[type(x)] = handler
      return handler(x)
  if isinstance(x, np.generic):
    return _numpy_aval(x)
  if getattr(x, "__jax_array__", None) is not None:  # (jnp.asarray converts such objects)
    raise ValueError("Triggering __jax_array__() during abstractification is no longer "
                     "supported. To avoid this error, either explicitly convert your object "
                     "using jax.numpy.array(), or register your object as a pytree.")
  # (JAX's texts: a string's type unquoted, any other value's quoted)
  shown = type(x) if isinstance(x, str) else f"'{type(x)}'"
  e = _invalid(x, f"Argument '{_short_str(x)}' of type {shown} is not a valid JAX type")
  e.no_jax_type = not isinstance(x, str)  # (shaped_abstractify has its own text for these)
  raise e


def shaped_abstractify(x) -> ShapedArray:
  """The abstract value of ``x`` as JAX's ``shaped_abstractify`` gives it: ``get_aval``'s,
  an abstract value itself, or for another object with a ``dtype`` its shape and dtype; a
  value of no JAX type (strings aside) is JAX's "Cannot interpret" error (shard_map's,
  checkpoint's and device_put's arguments are checked with it)."""
  try:
    return get_aval(x)
  except TypeError as e:
    if not (getattr(e, "no_jax_type", False) and e.invalid_value is x):
      raise
  if isinstance(x, ShapedArray):
    return x
  if hasattr(x, "dtype"):
    return ShapedArray(np.shape(x), dtypes.canonicalize_dtype(x.dtype),
                       weak_type=getattr(x, "weak_type", False))
  raise _invalid(x, f"Cannot interpret value of type {type(x)} as an abstract array; it "
                    "does not have a dtype attribute") from None


def _invalid(x, message: str) -> TypeError:
  """The TypeError for a value of no JAX type; it names the value (``invalid_value``), so
  ``Primitive.bind`` can say which operand it was."""
  e = TypeError(message)
  e.invalid_value = x
  return e


def is_valid_value(x) -> bool:
  try:
    get_aval(x)
    return True
  except (TypeError, OverflowError):
    return False


def _short_str(x) -> str:
  r = str(x)
  return r if len(r) < 80 else r[:77] + "..."


def to_numpy(x, aval: ShapedArray) -> np.ndarray:
  """Host value of a concrete Python scalar or NumPy input, in its canonical dtype."""
  return np.asarray(x, dtype=aval.dtype)
