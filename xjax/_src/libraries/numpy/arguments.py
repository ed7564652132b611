"""Checking and normalizing xjax.numpy's arguments: array-likes, axes, tracers."""
from __future__ import annotations

import operator

import numpy as np

from xjax._src.core.trace import Tracer
from xjax._src.execution.array import Array
from xjax._src.core.values import get_aval


_KNOWN_TYPES = frozenset((Array, bool, int, float, complex))  # (checked first: the hot path)


def check_arraylike(name: str, *args) -> None:
  """TypeError (in JAX's words) unless every argument is an array, scalar or array-like."""
  arraylike(name, *args)


def refuse_iterator(name: str, arrays, error: type = ValueError) -> None:
  """Raises where a function joining a sequence of arrays is given an iterator (a generator,
  a ``map``): JAX's reads it twice, finds it empty the second time and fails (with
  ``error``, the class JAX's failure has), so xjax says why."""
  if iter(arrays) is arrays:
    raise error(f"jnp.{name} got an iterator ({type(arrays).__name__}) where it takes a "
                "sequence of arrays, and JAX's finds an iterator empty by the time it joins "
                "them; pass a list or tuple of arrays.")


def arraylike(name: str, *args) -> tuple:
  """``args`` checked as ``check_arraylike`` does, those that define ``__jax_array__``
  (flax's ``Variable``, equinox's wrappers) replaced by the array it gives, as JAX's
  ``ensure_arraylike`` (Python scalars stay as given)."""
  converted = None
  for i, a in enumerate(args):
    if type(a) in _KNOWN_TYPES or isinstance(a, Tracer):
      continue
    if isinstance(a, (list, tuple)):
      raise TypeError(f"{name} requires ndarray or scalar arguments, got {type(a)} "
                      f"at position {i}.")
    if not isinstance(a, (np.ndarray, np.generic)) and hasattr(a, "__jax_array__"):
      converted = list(args) if converted is None else converted
      a = converted[i] = a.__jax_array__()
    try:
      get_aval(a)
    except TypeError:
      raise TypeError(f"{name} requires ndarray or scalar arguments, got "
                      f"{type(a)} at position {i}.") from None
  return args if converted is None else tuple(converted)


def is_traced(x) -> bool:
  return isinstance(x, Tracer)


def canonical_axis(axis, ndim: int, name: str = "axis", error=ValueError,
                   scalar_axis: bool = True) -> int:
  """``axis`` in [0, ndim); out of bounds raises ``error`` (JAX's class varies by function).
  A 0-d array has axis 0 (and -1) unless ``scalar_axis`` is False."""
  axis = operator.index(axis)
  if (not -ndim <= axis < max(ndim, int(scalar_axis))
      or (ndim == 0 and axis not in (0, -1))):
    raise error(f"{name} {axis} is out of bounds for array of dimension {ndim}")
  return axis % ndim if ndim else 0


def index_tuple(axis) -> tuple:
  """One axis or any iterable of axes (a tuple, list, range, array) as a tuple, as JAX
  reads its ``axis`` arguments."""
  if isinstance(axis, (tuple, list, range)) or (hasattr(axis, "__iter__")
                                                and np.ndim(axis) > 0):
    return tuple(axis)
  return (operator.index(axis),)
