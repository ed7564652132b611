"""MLIR attributes of Python values (``jax.interpreters.mlir.ir_attribute``), built with
jaxlib's bindings in the current MLIR context."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.backend import lowering as lo
from xjax._src.backend import mlir_modules
from xjax._src.core.avals import ShapedArray

_PYTHON_SCALAR_DTYPES = {bool: np.dtype(np.bool_), int: np.dtype(np.int64),
                         float: np.dtype(np.float64), complex: np.dtype(np.complex128)}


def _ir():
  return mlir_modules.mlir_bindings("ir")


def _element_type(dtype):
  return _ir().Type.parse(lo.element_type(dtype))


def _scalar(val: np.generic):
  ir, t = _ir(), _element_type(val.dtype)
  if isinstance(t, ir.IntegerType):
    return ir.IntegerAttr.get(t, int(val))
  if isinstance(t, ir.FloatType):
    return ir.FloatAttr.get(t, float(val))
  raise TypeError(f"Unsupported scalar attribute type: {val.dtype}")


def _array(val: np.ndarray):
  if val.dtype == dtypes.float0:
    val = np.zeros(val.shape, np.bool_)
  return _ir().DenseElementsAttr(_ir().Attribute.parse(
      lo.dense_attr(val, ShapedArray(val.shape, val.dtype))))


def _sequence(val):
  return _ir().ArrayAttr.get([ir_attribute(v) for v in val])


def _dict(val: dict):
  return _ir().DictAttr.get({k: ir_attribute(v) for k, v in val.items()})


_HANDLERS: dict[type, Callable[[Any], Any]] = {
    np.ndarray: _array, np.generic: _scalar,
    np.dtype: lambda d: _ir().TypeAttr.get(_element_type(d)),
    str: lambda s: _ir().StringAttr.get(s), bytes: lambda s: _ir().StringAttr.get(s),
    list: _sequence, tuple: _sequence, dict: _dict,
    **{t: (lambda d: lambda v: _scalar(np.array(v, d)[()]))(d)
       for t, d in _PYTHON_SCALAR_DTYPES.items()},
}


def ir_attribute(val: Any):
  """The MLIR attribute of ``val``: a Python or NumPy scalar (an integer or float
  attribute of its dtype; Python ints are i64, floats f64), an array (dense elements), a
  dtype (its type), a string, a list/tuple/dict of those, or an attribute or type."""
  ir = _ir()
  if isinstance(val, ir.Attribute):
    return val
  if isinstance(val, ir.Type):
    return ir.TypeAttr.get(val)
  for t in type(val).__mro__:
    handler = _HANDLERS.get(t)
    if handler is not None:
      return handler(val)
  if hasattr(val, "__jax_array__"):
    return ir_attribute(val.__jax_array__())
  raise TypeError(f"No attribute handler defined for type: {type(val)}")


def dense_int_elements(xs):
  """A ``dense<...> : tensor<...xi64>`` attribute of the integers ``xs``."""
  return _ir().DenseIntElementsAttr.get(np.asarray(xs, np.int64))
