"""Cumulative reductions: cumsum, cumprod, nancumsum, nancumprod, cumulative_sum/prod."""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.values import get_aval
from xjax._src.api.jit import compiled_when_eager
from xjax._src.primitives.lax import cumulative as lax_cum
from xjax._src.primitives.lax import lax
from xjax._src.libraries.numpy.creation import asarray
from xjax._src.libraries.numpy.reductions import _check_out
from xjax._src.libraries.numpy.shaping import ravel
from xjax._src.libraries.numpy.util import canonical_axis, check_arraylike


def _accum_dtype(dt, dtype, name):
  if dtype is not None:
    return dtypes.check_user_dtype_supported(dtype, name)
  return dtypes.default_int_dtype() if dt == np.bool_ else dt


def _cumulative(name, prim, nan_ident=None):
  def fn(a, axis=None, dtype=None, out=None):
    _check_out(out, name)
    check_arraylike(name, a)
    a = asarray(a)
    if axis is None:
      a, axis = ravel(a), 0
    aval = get_aval(a)
    axis = canonical_axis(axis, aval.ndim)
    dt = _accum_dtype(aval.dtype, dtype, name)
    acc = dtypes.default_int_dtype() if dt == np.bool_ else dt  # bool: accumulate as int
    x = lax.convert_element_type(a, acc, False)
    if nan_ident is not None and dtypes.is_inexact(dt):
      x = lax.select_n(lax.ne(x, x), x, lax.full_like(x, nan_ident))
    if aval.ndim == 0:
      x = lax.reshape(x, (1,))
    out = prim(x, axis)
    return lax.convert_element_type(out, dt) if acc != dt else out
  fn.__name__ = fn.__qualname__ = name
  fn.__doc__ = f"Cumulative {name.replace('nan', '')[3:]} along ``axis`` (flattened if None)."
  return compiled_when_eager(fn, static_argnames=("axis", "dtype"), hashable_statics=True)


cumsum = _cumulative("cumsum", lax_cum.cumsum)
cumprod = _cumulative("cumprod", lax_cum.cumprod)
nancumsum = _cumulative("nancumsum", lax_cum.cumsum, 0)
nancumprod = _cumulative("nancumprod", lax_cum.cumprod, 1)
cumproduct = cumprod


def _cumulative_std(name, base):
  def fn(x, /, *, axis=None, dtype=None, include_initial=False):
    x = asarray(x)
    nd = get_aval(x).ndim
    if nd == 0:
      raise ValueError(f"The input must be non-scalar to take a {name.replace('_', ' ')}, "
                       "however a scalar value or scalar array was given.")
    if axis is None:
      if nd > 1:
        raise ValueError(f"{name}: axis must be specified for arrays of ndim > 1")
      axis = 0
    out = base(x, axis=axis, dtype=dtype)
    if include_initial:
      ax = canonical_axis(axis, get_aval(out).ndim)
      ident = 0 if "sum" in name else 1
      out = lax.pad(out, np.asarray(ident, get_aval(out).dtype)[()],
                    [(1 if i == ax else 0, 0, 0) for i in range(get_aval(out).ndim)])
    return out
  fn.__name__ = name
  return fn


cumulative_sum = _cumulative_std("cumulative_sum", cumsum)
cumulative_prod = _cumulative_std("cumulative_prod", cumprod)
