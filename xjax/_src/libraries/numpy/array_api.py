"""Names from NumPy 2 and the Python Array API standard: the short aliases (acos, pow,
concat, permute_dims, ...), astype/copy, matrix_transpose, unstack, vecmat and matvec."""
from __future__ import annotations

import warnings

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.values import get_aval
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax.elementwise import convert_element_type, copy_p
from xjax._src.primitives.lax.shapes import transpose as lax_transpose
from xjax._src.primitives.lax.stacking import unstack as lax_unstack
from xjax._src.libraries.numpy.arguments import check_arraylike, canonical_axis, arraylike
from xjax._src.libraries.numpy.composed_math import conjugate
from xjax._src.libraries.numpy.creation import array, asarray, placed
from xjax._src.libraries.numpy.functional import vectorize
from xjax._src.libraries.numpy.linalg_basic import matmul
from xjax._src.libraries.numpy.shaping import concatenate, ravel, transpose
from xjax._src.libraries.numpy.ufuncs import (arccos, arccosh, arcsin, arcsinh, arctan, arctan2,
                                              arctanh, left_shift, not_equal, power,
                                              right_shift)

acos = arccos
acosh = arccosh
asin = arcsin
asinh = arcsinh
atan = arctan
atanh = arctanh
atan2 = arctan2
bitwise_left_shift = left_shift
bitwise_right_shift = right_shift
pow = power


def concat(arrays, /, *, axis=0):
  """Concatenation along ``axis`` (None: of the flattened arrays)."""
  if axis is None:
    return concatenate([ravel(a) for a in arrays], axis=0)
  return concatenate(arrays, axis=axis)


def permute_dims(a, /, axes):
  return transpose(a, axes)


def matrix_transpose(x, /):
  """Swaps the last two axes."""
  check_arraylike("matrix_transpose", x)
  x = asarray(x)
  nd = get_aval(x).ndim
  if nd < 2:
    raise ValueError(f"x must be at least two-dimensional for matrix_transpose; got ndim={nd}")
  return lax_transpose(x, tuple(range(nd - 2)) + (nd - 1, nd - 2))


def astype(x, dtype, /, *, copy=False, device=None):
  """``x`` converted to ``dtype`` (None: the default float type), a new array when ``copy``,
  placed on ``device`` when one is given. Complex to real keeps the real part, with JAX's
  DeprecationWarning; complex to bool tests for nonzero."""
  x, = arraylike("astype", x)
  x = asarray(x)
  dt = (dtypes.default_float_dtype() if dtype is None
        else dtypes.check_user_dtype_supported(dtype, "astype"))
  if dtypes.is_complex(get_aval(x).dtype):
    if dt == np.bool_:
      x = not_equal(x, 0)
    elif not dtypes.is_complex(dt) and not dtypes.is_extended(dt):
      warnings.warn("Casting from complex to real dtypes will soon raise a ValueError. Please "
                    "first use jnp.real or jnp.imag to take the real/imaginary component of "
                    "your input.", DeprecationWarning, stacklevel=2)
  out = convert_element_type(x, dt)
  if copy and out is x:
    out = copy_p.bind(x)
  return placed(out, device)


def copy(a, order=None):
  check_arraylike("copy", a)
  return array(a, copy=True, order=order)


@compiled_when_eager(static_argnames=("axis",))
def unstack(x, /, *, axis=0):
  """The slices of ``x`` along ``axis``, as a tuple."""
  check_arraylike("unstack", x)
  x = asarray(x)
  aval = get_aval(x)
  if aval.ndim == 0:
    raise ValueError("Unstack requires arrays with rank > 0, however a scalar array was "
                     "passed.")
  return lax_unstack(x, canonical_axis(axis, aval.ndim))


@compiled_when_eager(staged="vecmat")
def vecmat(x1, x2, /):
  """conj(x1) (..., n) times x2 (..., n, m), batched."""
  x1, x2 = arraylike("vecmat", x1, x2)
  return vectorize(matmul, signature="(n),(n,m)->(m)")(conjugate(x1), x2)


@compiled_when_eager(staged="matvec")
def matvec(x1, x2, /):
  """x1 (..., m, n) times x2 (..., n), batched."""
  x1, x2 = arraylike("matvec", x1, x2)
  return vectorize(matmul, signature="(n,m),(m)->(n)")(x1, x2)
