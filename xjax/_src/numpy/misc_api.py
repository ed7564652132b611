"""NumPy 2 / Array API aliases, dtype and shape queries, and small elementwise extras
(fmax, fmin, spacing, angle, sort_complex, iscomplex, ...)."""
from __future__ import annotations

import numpy as np

from xjax._src import dtypes
from xjax._src.array import Array
from xjax._src.core.trace import Tracer
from xjax._src.core.values import get_aval
from xjax._src.lax import lax
from xjax._src.numpy import lax_numpy as jnp
from xjax._src.numpy.creation import asarray
from xjax._src.numpy.util import (canonical_axis, check_arraylike, promote_args,
                                  promote_args_inexact, promote_dtypes)

acos = jnp.arccos
acosh = jnp.arccosh
asin = jnp.arcsin
asinh = jnp.arcsinh
atan = jnp.arctan
atanh = jnp.arctanh
atan2 = jnp.arctan2
bitwise_left_shift = jnp.left_shift
bitwise_right_shift = jnp.right_shift
pow = jnp.power


def concat(arrays, /, *, axis=0):
  """Concatenation along ``axis`` (None: of the flattened arrays)."""
  if axis is None:
    return jnp.concatenate([jnp.ravel(a) for a in arrays], axis=0)
  return jnp.concatenate(arrays, axis=axis)


def permute_dims(a, /, axes):
  return jnp.transpose(a, axes)


def matrix_transpose(x, /):
  """Swaps the last two axes."""
  x = asarray(x)
  nd = get_aval(x).ndim
  if nd < 2:
    raise ValueError(f"x must be at least two-dimensional for matrix_transpose; got ndim={nd}")
  return lax.transpose(x, tuple(range(nd - 2)) + (nd - 1, nd - 2))


def astype(x, dtype, /, *, copy=False, device=None):
  check_arraylike("astype", x)
  x = asarray(x)
  if dtype is None:
    return x
  return lax.convert_element_type(x, dtypes.check_user_dtype_supported(dtype, "astype"))


def copy(a, order=None):
  return jnp.array(a, copy=True)


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
  """Whether ``dtype`` is of ``kind``: a dtype, an Array API kind name, or a tuple."""
  dt = np.dtype(dtype)
  for k in kind if isinstance(kind, tuple) else (kind,):
    if isinstance(k, str):
      if k not in _KINDS:
        raise ValueError(f"Unrecognized {k=!r}")
      if _KINDS[k](dt):
        return True
    elif dt == np.dtype(k):
      return True
  return False


def can_cast(from_, to, casting="safe"):
  src = get_aval(from_).dtype if isinstance(from_, (Array, Tracer)) else from_
  return bool(np.can_cast(src, to, casting=casting))


def unstack(x, /, *, axis=0):
  """The slices of ``x`` along ``axis``, as a tuple."""
  x = asarray(x)
  aval = get_aval(x)
  if aval.ndim == 0:
    raise ValueError("Unstack requires arrays with rank > 0, however a scalar array was "
                     "passed.")
  axis = canonical_axis(axis, aval.ndim)
  return tuple(lax.index_in_dim(x, i, axis, keepdims=False) for i in range(aval.shape[axis]))


def vecmat(x1, x2, /):
  """conj(x1) (..., n) times x2 (..., n, m), batched."""
  check_arraylike("vecmat", x1, x2)
  x1, x2 = promote_dtypes(x1, x2)
  return jnp.sum(jnp.conjugate(x1)[..., :, None] * x2, axis=-2)


def matvec(x1, x2, /):
  """x1 (..., m, n) times x2 (..., n), batched."""
  check_arraylike("matvec", x1, x2)
  x1, x2 = promote_dtypes(x1, x2)
  return jnp.sum(x1 * x2[..., None, :], axis=-1)


def _shape_of(a):
  if hasattr(a, "shape") and not isinstance(a, (Array, Tracer, np.ndarray)):
    return tuple(a.shape)
  return np.shape(a) if isinstance(a, (list, tuple)) else get_aval(a).shape


def shape(a):
  return _shape_of(a)


def ndim(a):
  return len(_shape_of(a))


def size(a, axis=None):
  s = _shape_of(a)
  if axis is None:
    return int(np.prod(s, dtype=np.int64))
  axes = axis if isinstance(axis, (tuple, list)) else (axis,)
  return int(np.prod([s[canonical_axis(i, len(s))] for i in axes], dtype=np.int64))


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
  try:
    dt = get_aval(x).dtype
  except TypeError:
    dt = np.asarray(x).dtype
  return dtypes.is_complex(dt)


def isrealobj(x):
  return not iscomplexobj(x)


def iscomplex(x):
  return jnp.not_equal(jnp.imag(asarray(x)), 0)


def isreal(x):
  return jnp.equal(jnp.imag(asarray(x)), 0)


def bitwise_count(x, /):
  """Number of 1 bits in ``|x|``, as uint8."""
  check_arraylike("bitwise_count", x)
  x = asarray(x)
  if not (dtypes.is_integer(get_aval(x).dtype) or get_aval(x).dtype == np.bool_):
    raise TypeError(f"bitwise_count requires integer or boolean input, got "
                    f"{get_aval(x).dtype}.")
  return lax.convert_element_type(lax.population_count(jnp.abs(x)), np.uint8)


def _nan_pick(name, op, better):
  def fn(x1, x2):
    x1, x2 = promote_args(name, x1, x2)
    if not dtypes.is_inexact(get_aval(x1).dtype):
      return op(x1, x2)
    if dtypes.is_complex(get_aval(x1).dtype):
      return jnp.where(jnp.isnan(x1), x2, jnp.where(jnp.isnan(x2), x1, op(x1, x2)))
    # ties pick x2 (which decides where the gradient goes, as in JAX)
    return jnp.where(lax.bitwise_or(better(x1, x2), jnp.isnan(x2)), x1, x2)
  fn.__name__ = fn.__qualname__ = name
  fn.__doc__ = f"Elementwise {op.__name__} ignoring NaNs (NaN only where both are)."
  return fn


fmax = _nan_pick("fmax", jnp.maximum, lax.gt)
fmin = _nan_pick("fmin", jnp.minimum, lax.lt)


def spacing(x, /):
  """Distance from ``x`` to the next representable number away from zero."""
  (x,) = promote_args_inexact("spacing", x)
  if dtypes.is_complex(get_aval(x).dtype):
    raise ValueError("spacing is not defined for complex inputs.")
  dt = get_aval(x).dtype
  away = jnp.where(jnp.signbit(x), np.asarray(-np.inf, dt)[()], np.asarray(np.inf, dt)[()])
  return jnp.where(jnp.isinf(x), np.asarray(np.nan, dt)[()], lax.sub(lax.nextafter(x, away), x))


def angle(z, deg=False):
  """Argument of complex ``z`` (radians, or degrees with ``deg``)."""
  (z,) = promote_args_inexact("angle", z)
  if dtypes.is_complex(get_aval(z).dtype):
    out = lax.atan2(lax.imag(z), lax.real(z))
  else:
    out = lax.atan2(jnp.zeros_like(z, get_aval(z).dtype), z)
  return jnp.rad2deg(out) if deg else out


def sort_complex(a):
  """Sorted copy of ``a`` (by real, then imaginary part) as a complex array."""
  a = jnp.sort(a)
  return lax.convert_element_type(a, dtypes.to_complex_dtype(get_aval(a).dtype))
