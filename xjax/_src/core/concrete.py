"""Turning possibly-traced values into concrete Python values, with JAX's errors."""
from __future__ import annotations

import operator

import numpy as np

from xjax._src.foundations import errors
from xjax._src.core.trace import Tracer, _describe_tracer
from xjax._src.core.dim_expr import DimExpr


def concrete_or_error(x, what: str):
  """``x`` as a concrete value; ConcretizationTypeError naming ``what`` if it is traced."""
  if isinstance(x, Tracer):
    value = x.to_concrete_value()
    if value is None:
      raise errors.ConcretizationTypeError(
          x, f"The problem arose with the {what} argument, which must be static.\n"
          + _describe_tracer(x))
    return value.item() if np.ndim(value) == 0 else value
  if hasattr(x, "_value") and np.ndim(x) == 0:
    return np.asarray(x).item()
  return x


def is_concrete(x) -> bool:
  """Whether ``x``'s value is known now: not an abstract tracer (JAX's deprecated
  ``jax.core.is_concrete``)."""
  return (x.to_concrete_value() if isinstance(x, Tracer) else x) is not None


def is_constant_dim(d) -> bool:
  """Whether ``d`` is a dimension known now (an integer-like value, not a symbolic one)."""
  try:
    operator.index(d)
  except TypeError:
    return False
  return True


def is_constant_shape(shape) -> bool:
  return all(is_constant_dim(d) for d in shape)


def canonicalize_shape(shape, context: str = "") -> tuple[int, ...]:
  """``shape`` as a tuple of Python ints (and symbolic dimensions).  It may be any iterable
  of integer-like values (with ``__index__``: ints, NumPy integers, concrete scalar Arrays, a
  TensorShape's dimensions), a 1-D integer ndarray or concrete Array, or a single such value
  for a 1-D shape.  TypeError with JAX's message otherwise (naming ``context``, the argument
  it came from, when given), telling where a traced dimension came from."""
  if _is_one_dimension(shape):
    shape = (shape,)
  dims = ()
  try:
    dims = tuple(shape)
    return tuple(operator.index(d) for d in dims)
  except TypeError:
    pass
  if any(isinstance(d, DimExpr) for d in dims):
    try:
      return tuple(d if isinstance(d, DimExpr) else operator.index(d) for d in dims)
    except TypeError:
      pass
  msg = f"Shapes must be 1D sequences of concrete values of integer type, got {shape}."
  if context:
    msg += f" {context}."
  traced = next((d for d in (shape, *dims) if isinstance(d, Tracer)), None)
  if traced is not None:
    msg += ("\nIf using `jit`, try using `static_argnums` or applying `jit` to smaller "
            "subfunctions.\n" + _describe_tracer(traced))
  raise TypeError(msg)


def dim_or_int(d):
  """A dimension as lax's shape arguments take it: symbolic as it is, else ``int(d)``."""
  return d if isinstance(d, DimExpr) else int(d)


def canonicalize_dim(d, context: str = "") -> int:
  """One dimension size as a Python int, with ``canonicalize_shape``'s errors."""
  return canonicalize_shape((d,), context)[0]


def _is_one_dimension(shape) -> bool:
  """Whether ``shape`` is one dimension rather than a sequence of them."""
  if isinstance(shape, (str, bytes)) or getattr(shape, "ndim", None) == 0:
    return True
  return not (hasattr(shape, "__iter__") or hasattr(shape, "__getitem__"))


def _dimension(d, which: str, fname: str):
  if isinstance(d, DimExpr):
    return d
  return operator.index(concrete_or_error(d, f"core.{fname} {which}"))


def _extreme(d1, d2, which: str):
  d1, d2 = _dimension(d1, "d1", f"{which}_dim"), _dimension(d2, "d2", f"{which}_dim")
  if isinstance(d1, DimExpr):
    return getattr(d1, which)(d2)
  if isinstance(d2, DimExpr):
    return getattr(d2, "r" + which)(d1)
  return max(d1, d2) if which == "max" else min(d1, d2)


def max_dim(d1, d2):
  """The larger of two dimension sizes (a ``max`` expression when symbolic ones differ
  undecidably)."""
  return _extreme(d1, d2, "max")


def min_dim(d1, d2):
  """The smaller of two dimension sizes (a ``min`` expression when symbolic ones differ
  undecidably)."""
  return _extreme(d1, d2, "min")
