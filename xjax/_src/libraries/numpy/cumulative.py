"""Cumulative reductions: cumsum, cumprod, nancumsum, nancumprod, cumulative_sum/prod."""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.foundations.sharding import ShardingTypeError
from xjax._src.core.values import get_aval
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax import cumulative as lax_cum
from xjax._src.primitives.lax.elementwise import convert_element_type, ne
from xjax._src.primitives.lax.shapes import concatenate, full, reshape
from xjax._src.libraries.numpy.arguments import check_arraylike, canonical_axis, arraylike
from xjax._src.libraries.numpy.creation import asarray
from xjax._src.libraries.numpy.reductions import _check_out
from xjax._src.libraries.numpy.where import _where


def _promote_integer(dt):
  """Booleans and integers narrower than the default integer accumulate as it (unsigned as
  the default unsigned), as JAX."""
  if dt == np.bool_:
    return dtypes.default_int_dtype()
  if dtypes.is_integer(dt) and dt.itemsize < dtypes.default_int_dtype().itemsize:
    return dtypes.default_uint_dtype() if dtypes.is_unsigned(dt) else dtypes.default_int_dtype()
  return dt


def _cumulative(name, prim, nan_fill=None, promote_integers=False, staged=True):
  def fn(a, axis=None, dtype=None, out=None):
    _check_out(out, name)
    a, = arraylike(name, a)
    a = asarray(a)
    if axis is None:
      if get_aval(a)._sharding is not None:
        raise ShardingTypeError("The input should be fully replicated when axis is not "
                                f"specified to {name}. Got input type={get_aval(a)}")
      a, axis = reshape(a, (get_aval(a).size,)), 0
    axis = canonical_axis(axis, get_aval(a).ndim, scalar_axis=False)
    if nan_fill is not None:
      a = _where(ne(a, a), np.asarray(nan_fill, get_aval(a).dtype)[()], a)
    dt = get_aval(a).dtype
    if dtype is None:
      result = compute = _promote_integer(dt) if promote_integers or dt == np.bool_ else dt
    elif np.dtype(dtype) == np.bool_:  # accumulate which elements are nonzero, as integers
      result, compute = np.dtype(np.bool_), dtypes.default_int_dtype()
      if dt != np.bool_:
        a = ne(a, np.zeros((), dt)[()])
    else:
      result = compute = dtypes.check_user_dtype_supported(dtype, name)
    a = convert_element_type(a, compute, False)
    return convert_element_type(prim(a, axis), result, False)
  fn.__name__ = fn.__qualname__ = name
  fn.__doc__ = (f"Cumulative {'sum' if prim is lax_cum.cumsum else 'product'} along ``axis`` "
                "(flattened if None).")
  return compiled_when_eager(fn, staged=name if staged else None,
                             static_argnames=("axis", "dtype"), hashable_statics=True)


cumsum = _cumulative("cumsum", lax_cum.cumsum)
cumprod = _cumulative("cumprod", lax_cum.cumprod)
nancumsum = _cumulative("nancumsum", lax_cum.cumsum, 0)
nancumprod = _cumulative("nancumprod", lax_cum.cumprod, 1)
_cumsum_with_promotion = _cumulative("_cumsum_with_promotion", lax_cum.cumsum,
                                     promote_integers=True)
_cumulative_prod = _cumulative("cumulative_prod", lax_cum.cumprod, staged=False)  # as JAX


def _cumulative_std(name, base):
  def fn(x, /, *, axis=None, dtype=None, include_initial=False):
    check_arraylike(name, x)
    x = asarray(x)
    nd = get_aval(x).ndim
    if nd == 0:
      raise ValueError(f"The input must be non-scalar to take a {name.replace('_', ' ')}, "
                       "however a scalar value or scalar array was given.")
    if axis is None:
      if nd > 1:
        raise ValueError(f"{name}: axis must be specified for arrays of ndim > 1")
      axis = 0
    axis = canonical_axis(axis, nd)
    out = base(x, axis=axis, dtype=dtype)
    if include_initial:
      shape = list(get_aval(x).shape)
      shape[axis] = 1
      out = concatenate([full(shape, 0 if "sum" in name else 1, get_aval(out).dtype),
                             out], axis)
    return out
  fn.__name__ = name
  return fn


cumulative_sum = _cumulative_std("cumulative_sum", _cumsum_with_promotion)
cumulative_prod = _cumulative_std("cumulative_prod", _cumulative_prod)
