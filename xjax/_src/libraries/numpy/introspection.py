"""Questions about values and dtypes that NumPy answers without computing: shape, ndim,
size, isscalar, iterable, iscomplexobj/isrealobj, isdtype and can_cast."""
from __future__ import annotations

import math
import warnings

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.execution.array import Array
from xjax._src.core.trace import Tracer
from xjax._src.core.values import get_aval
from xjax._src.libraries.numpy.arguments import canonical_axis


_KINDS = {
    "bool": lambda d: d == np.bool_,
    "signed integer": lambda d: dtypes.is_integer(d) and not dtypes.is_unsigned(d),
    "unsigned integer": dtypes.is_unsigned,
    "integral": dtypes.is_integer,
    "real floating": dtypes.is_float,
    "complex floating": dtypes.is_complex,
    "numeric": lambda d: d != np.bool_ and (dtypes.is_integer(d) or dtypes.is_inexact(d)),
}


def isdtype(dtype, kind):
  """Whether ``dtype`` is of ``kind``: an Array API kind name, anything ``jnp.dtype``
  takes, or a tuple of them."""
  dt = np.dtype(dtype)
  for k in kind if isinstance(kind, tuple) else (kind,):
    if isinstance(k, str) and k in _KINDS:
      if _KINDS[k](dt):
        return True
      continue
    try:
      kind_dtype = _dtype_of_kind(k)
    except TypeError:
      if isinstance(k, str):
        raise ValueError(f"Unrecognized kind={k!r} expected one of {list(_KINDS)}, or a "
                         "compatible input for jnp.dtype()") from None
      raise TypeError(f"Expected kind to be a dtype, string, or tuple; got kind={k!r}") from None
    if dt == kind_dtype:
      return True
  return False


def _dtype_of_kind(kind) -> np.dtype:
  """``np.dtype(kind)``; an abstract scalar class (``np.floating``) is a TypeError, as in
  NumPy 2.3 and later, where older NumPy names float64 with a DeprecationWarning."""
  if not isinstance(kind, type):
    return np.dtype(kind)
  with warnings.catch_warnings():
    warnings.simplefilter("error", DeprecationWarning)
    try:
      return np.dtype(kind)
    except DeprecationWarning:
      raise TypeError(f"{kind} names no dtype") from None


def can_cast(from_, to, casting="safe"):
  src = get_aval(from_).dtype if isinstance(from_, (Array, Tracer)) else from_
  return bool(np.can_cast(src, to, casting=casting))


_SCALARS = (bool, int, float, complex, np.generic, np.ndarray, Array, Tracer)


def _shape_of(a, name: str):
  """``a``'s shape; of anything but an array or scalar, NumPy's, with JAX's warning."""
  if isinstance(a, _SCALARS):
    return get_aval(a).shape if isinstance(a, (Array, Tracer)) else np.shape(a)
  if hasattr(a, "shape"):   # a ShapeDtypeStruct, a duck-typed array
    return tuple(a.shape)
  if getattr(a, "__jax_array__", None) is not None:   # (array-like: no warning)
    return get_aval(a.__jax_array__()).shape
  warnings.warn(f"{name} requires ndarray or scalar arguments, got {type(a)} at position 0. "
                "In a future JAX release this will be an error.", DeprecationWarning,
                stacklevel=3)
  return np.shape(a)


def shape(a):
  return _shape_of(a, "shape")


def ndim(a):
  return len(_shape_of(a, "ndim"))


def size(a, axis=None):
  s = _shape_of(a, "size")
  if axis is None:
    return math.prod(s)
  axes = axis if isinstance(axis, (tuple, list)) else (axis,)
  axes = [canonical_axis(i, len(s)) for i in axes]
  if len(set(axes)) != len(axes):
    raise ValueError(f"repeated axis: {tuple(axes)}")
  return math.prod([s[i] for i in axes])


def isscalar(element):
  """True for scalars and 0-d arrays."""
  if isinstance(element, (Array, Tracer, np.ndarray)):
    return get_aval(element).ndim == 0 if not isinstance(element, np.ndarray) \
        else element.ndim == 0
  return bool(np.isscalar(element))


def iterable(y):
  return np.iterable(y)


def iscomplexobj(x):
  if x is None:
    return False
  dt = getattr(x, "dtype", None)   # arrays, and scalar types such as jnp.complex64 (as JAX)
  if not isinstance(dt, np.dtype):
    if getattr(x, "__jax_array__", None) is not None:
      x = x.__jax_array__()
    try:
      dt = get_aval(x).dtype
    except TypeError:
      dt = np.asarray(x).dtype
  return dtypes.is_complex(dt)


def isrealobj(x):
  return not iscomplexobj(x)
