"""NaN-aware reductions, order statistics (median/percentile/quantile), average, ptp."""
from __future__ import annotations

import math

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.concrete import concrete_or_error
from xjax._src.core.values import get_aval
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax.elementwise import (add, bitwise_not, bitwise_or, ceil,
                                                  complex as lax_complex, conj,
                                                  convert_element_type, div, eq, floor, imag, le,
                                                  lt, max as lax_max, min as lax_min, mul, ne, real,
                                                  select, select_n, sqrt, sub)
from xjax._src.primitives.lax.shapes import (broadcast_in_dim, full, full_like,
                                             reshape as lax_reshape, squeeze as lax_squeeze,
                                             transpose)
from xjax._src.primitives.lax import sorting as lax_sorting
from xjax._src.libraries.numpy import reductions as red
from xjax._src.libraries.numpy import ufuncs
from xjax._src.libraries.numpy.arguments import canonical_axis, arraylike, check_arraylike, index_tuple
from xjax._src.libraries.numpy.composed_math import clip
from xjax._src.libraries.numpy.creation import asarray
from xjax._src.libraries.numpy.cumulative import cumsum
from xjax._src.libraries.numpy.indexing import take_along_axis
from xjax._src.libraries.numpy.linalg_basic import dot
from xjax._src.libraries.numpy.matrices import diag
from xjax._src.libraries.numpy.promotion import promote_dtypes_inexact
from xjax._src.libraries.numpy.rearrange import atleast_2d
from xjax._src.libraries.numpy.shaping import broadcast_to, concatenate, moveaxis, reshape, squeeze
from xjax._src.libraries.numpy.sorting import sort
from xjax._src.libraries.numpy.where import _where


def _isnan(x):
  return ne(x, x)


def _replace_nan(a, value):
  a = asarray(a)
  if not dtypes.is_inexact(get_aval(a).dtype):
    return a
  return _where(_isnan(a), np.asarray(value, get_aval(a).dtype)[()], a)


@compiled_when_eager(staged="nansum",
                     static_argnames=("axis", "dtype", "keepdims"), hashable_statics=True)
def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
  check_arraylike("nansum", a)
  return red.sum(_replace_nan(a, 0), axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                 initial=initial, where=where)


@compiled_when_eager(staged="nanprod",
                     static_argnames=("axis", "dtype", "keepdims"), hashable_statics=True)
def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
  check_arraylike("nanprod", a)
  return red.prod(_replace_nan(a, 1), axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                  initial=initial, where=where)


def _nan_extreme(name, reduce, fill):
  def fn(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    check_arraylike(name, a)
    red._check_out(out, name)
    a = asarray(a)
    if not dtypes.is_inexact(get_aval(a).dtype):
      return reduce(a, axis=axis, keepdims=keepdims, initial=initial, where=where)
    out_ = reduce(_replace_nan(a, fill), axis=axis, keepdims=keepdims, initial=initial,
                  where=where)
    if initial is not None:   # all-NaN slices give ``initial``, as in JAX
      return out_
    all_nan = red.all(_isnan(a), axis=axis, keepdims=keepdims)
    return _where(all_nan, np.asarray(np.nan, get_aval(a).dtype)[()], out_)
  fn.__name__ = name
  return compiled_when_eager(fn, staged=name, static_argnames=("axis", "keepdims"),
                             hashable_statics=True)


nanmax = _nan_extreme("nanmax", red.max, -np.inf)
nanmin = _nan_extreme("nanmin", red.min, np.inf)


@compiled_when_eager(staged="nanmean",
                     static_argnames=("axis", "dtype", "keepdims"), hashable_statics=True)
def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
  check_arraylike("nanmean", a)
  red._check_out(out, "nanmean")
  a = asarray(a)
  if not dtypes.is_inexact(get_aval(a).dtype):
    return red.mean(a, axis=axis, dtype=dtype, keepdims=keepdims, where=where)
  dtype = get_aval(a).dtype if dtype is None else \
      dtypes.check_user_dtype_supported(dtype, "mean")  # float16 accumulates in float16
  ok = bitwise_not(_isnan(a))
  count = red.sum(ok, axis=axis, dtype=dtype, keepdims=keepdims, where=where)
  return div(nansum(a, axis, dtype=dtype, keepdims=keepdims, where=where), count)


@compiled_when_eager(staged="nanvar",
                     static_argnames=("axis", "dtype", "keepdims"), hashable_statics=True)
def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None,
           mean=None):
  """Variance ignoring NaNs: the squared deviations from the nanmean (or from ``mean``, which
  must keep the reduced axes) summed and divided by the count of non-NaN values less
  ``ddof`` (NaN where that is not positive); integers are taken as floats, float16
  computed in float32, complex values give a real variance."""
  red._check_out(out, "nanvar")
  a, = arraylike("nanvar", a)
  a = asarray(a)
  in_dt = get_aval(a).dtype
  if dtype is not None:
    dt = out_dt = dtypes.check_user_dtype_supported(dtype, "nanvar")
    if dtypes.is_complex(in_dt) and not dtypes.is_complex(dt):
      raise ValueError("nanvar does not support a real dtype for the variance of complex "
                       "values.")
  elif not dtypes.is_inexact(in_dt):
    dt = out_dt = dtypes.to_inexact_dtype(in_dt)
  else:
    dt, out_dt = in_dt, np.dtype(np.real(np.zeros((), in_dt)).dtype)
  x = convert_element_type(a, red._accumulation_dtype(dt), False)
  nan = _isnan(x)
  if mean is None:
    mu = nanmean(x, axis=axis, dtype=get_aval(x).dtype, keepdims=True, where=where)
  else:
    mean, = arraylike("nanvar", mean)
    mu = convert_element_type(asarray(mean), get_aval(x).dtype, False)
  c = select_n(nan, sub(x, mu), full_like(x, 0))
  sq = real(mul(c, conj(c))) if dtypes.is_complex(get_aval(c).dtype) else \
      mul(c, c)
  count = red.sum(bitwise_not(nan), axis=axis, keepdims=keepdims, where=where)
  count = sub(count, asarray(ddof, get_aval(count).dtype))
  empty = le(count, full_like(count, 0))
  total = red.sum(sq, axis=axis, keepdims=keepdims, where=where)
  total = select_n(empty, total, full_like(total, np.nan))
  divisor = select_n(empty, count, full_like(count, 1))
  res = div(total, convert_element_type(divisor, get_aval(total).dtype))
  return convert_element_type(res, out_dt, False)


@compiled_when_eager(staged="nanstd",
                     static_argnames=("axis", "dtype", "keepdims"), hashable_statics=True)
def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None,
           mean=None):
  return sqrt(nanvar(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims,
                         where=where, mean=mean))


def _nanarg(name, arg, fill):
  def fn(a, axis=None, out=None, keepdims=False):
    check_arraylike(name, a)
    red._check_out(out, name)
    a = asarray(a)
    if not dtypes.is_inexact(get_aval(a).dtype):
      return arg(a, axis=axis, keepdims=keepdims)
    nan_mask = _isnan(a)
    res = arg(_replace_nan(a, fill), axis=axis, keepdims=keepdims)
    all_nan = red.all(nan_mask, axis=axis, keepdims=keepdims)
    return select_n(all_nan, res, full_like(res, -1))
  fn.__name__ = name
  return fn


nanargmax = _nanarg("nanargmax", red.argmax, -np.inf)
nanargmin = _nanarg("nanargmin", red.argmin, np.inf)


@compiled_when_eager(static_argnames=("axis", "keepdims"))
def ptp(a, axis=None, out=None, keepdims=False):
  """Range (max - min) along ``axis``."""
  a, = arraylike("ptp", a)
  axis = concrete_or_error(axis, "axis")
  return _ptp(asarray(a), None if axis is None else index_tuple(axis), out, keepdims)


@compiled_when_eager(staged="_ptp", static_argnames=("axis", "keepdims"), hashable_statics=True)
def _ptp(a, axis=None, out=None, keepdims=False):
  red._check_out(out, "ptp")
  return sub(red.max(a, axis=axis, keepdims=keepdims),
                 red.min(a, axis=axis, keepdims=keepdims))


@compiled_when_eager(static_argnames=("axis", "returned", "keepdims"))
def average(a, axis=None, weights=None, returned=False, keepdims=False):
  """Weighted mean along ``axis``; ``weights`` has ``a``'s shape, or the shape of ``a``
  along ``axis``."""
  a, = arraylike("average", a)
  a = asarray(a)
  axes = red._axes(axis, get_aval(a).ndim)  # an out-of-bounds axis is a ValueError here
  shape = get_aval(a).shape
  if weights is None:
    (a,) = promote_dtypes_inexact(a)
    avg = red.mean(a, axis=axis, keepdims=keepdims)
    wsum = full((), math.prod(shape[d] for d in axes), get_aval(avg).dtype)
  else:
    a, w = promote_dtypes_inexact(a, asarray(weights))
    if shape != get_aval(w).shape:
      if axis is None:
        raise ValueError("Axis must be specified when shapes of a and weights differ.")
      if get_aval(w).shape != tuple(shape[d] for d in axes):
        raise ValueError("Shape of weights must be consistent with shape of a along "
                         "specified axis.")
      w = lax_reshape(w, tuple(n if d in axes else 1 for d, n in enumerate(shape)),
                      tuple(int(d) for d in np.argsort(axes)))
    wsum = red.sum(w, axis=axis, keepdims=keepdims)
    avg = ufuncs.divide(red.sum(ufuncs.multiply(a, w), axis=axis, keepdims=keepdims), wsum)
  if returned:
    if get_aval(avg).shape != get_aval(wsum).shape:
      wsum = broadcast_to(wsum, get_aval(avg).shape)
    return avg, wsum
  return avg


def _check_no_overwrite(name, overwrite_input, out):
  if overwrite_input or out is not None:
    raise ValueError(f"jax.numpy.{name} does not support overwrite_input=True or out != None")


_METHODS = ("linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf")
_QUANTILE_STATIC = ("axis", "overwrite_input", "keepdims", "method")


@compiled_when_eager(staged="quantile", static_argnames=_QUANTILE_STATIC,
                     hashable_statics=True)
def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None):
  """q-th quantiles (q in [0, 1]) along ``axis``; ``weights`` (per element of ``a``, or per
  position along ``axis``) with ``method="inverted_cdf"`` only, as JAX."""
  check_arraylike("quantile", a, q)
  _check_no_overwrite("quantile", overwrite_input, out)
  return _quantile("quantile", a, q, axis, out, method, keepdims, False, weights)


@compiled_when_eager(staged="nanquantile", static_argnames=_QUANTILE_STATIC,
                     hashable_statics=True)
def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=False, *, weights=None):
  check_arraylike("nanquantile", a, q)
  _check_no_overwrite("nanquantile", overwrite_input, out)
  return _quantile("nanquantile", a, q, axis, out, method, keepdims, True, weights)


@compiled_when_eager(staged="percentile",
                     static_argnames=_QUANTILE_STATIC + ("out_sharding",),
                     hashable_statics=True)
def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None, out_sharding=None):
  """q-th percentiles (q in [0, 100]) along ``axis``; ``out_sharding`` lays the result out
  (see ``place_out_sharding``)."""
  check_arraylike("percentile", a, q)
  from xjax._src.primitives.lax.sharding_constraint import place_out_sharding
  q = _percent(q)
  return place_out_sharding(quantile(a, q, axis, out, overwrite_input, method, keepdims,
                                     weights=weights),
                            out_sharding)


@compiled_when_eager(staged="nanpercentile", static_argnames=_QUANTILE_STATIC,
                     hashable_statics=True)
def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=False, *, weights=None):
  check_arraylike("nanpercentile", a, q)
  q = _percent(q)
  return nanquantile(a, q, axis, out, overwrite_input, method, keepdims, weights=weights)


@compiled_when_eager(staged="median",
                     static_argnames=("axis", "overwrite_input", "keepdims"),
                     hashable_statics=True)
def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
  check_arraylike("median", a)
  return quantile(a, 0.5, axis=axis, out=out, overwrite_input=overwrite_input,
                  keepdims=keepdims, method="midpoint")  # (as JAX's: (low + high) / 2)


@compiled_when_eager(staged="nanmedian",
                     static_argnames=("axis", "overwrite_input", "keepdims"),
                     hashable_statics=True)
def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
  check_arraylike("nanmedian", a)
  return nanquantile(a, 0.5, axis=axis, out=out, overwrite_input=overwrite_input,
                     keepdims=keepdims, method="midpoint")


def _percent(q):
  """q in [0, 100] as a fraction, of q's own inexact dtype (as JAX)."""
  (q,) = promote_dtypes_inexact(asarray(q))
  return div(q, np.asarray(100, get_aval(q).dtype)[()])


def _quantile_weights(name, a, weights, method, axes):
  """``a`` and its ``weights`` promoted together, the weights broadcast to ``a``'s shape
  (JAX's checks: real weights, method 'inverted_cdf', one weight per element or per
  position along the reduced axes)."""
  weights, = arraylike(name, weights)
  w = asarray(weights)
  if dtypes.is_complex(get_aval(w).dtype):
    raise ValueError("Weights cannot be complex types.")
  if method != "inverted_cdf":
    raise NotImplementedError(f"{method} doesn't support weights. Only method "
                              "'inverted_cdf' supports weights.")
  a, w = promote_dtypes_inexact(a, w)
  shape, wshape = get_aval(a).shape, get_aval(w).shape
  if wshape != shape:
    if axes is None:
      raise ValueError("Weights shape must match 'a' shape when axis is None.")
    if wshape != tuple(shape[ax] for ax in axes):
      raise ValueError(f"Weights shape {wshape} must match reduction axes "
                       f"{tuple(shape[ax] for ax in axes)}")
    w = broadcast_in_dim(w, shape, axes)
  return a, w


def _inverted_cdf(x, w, qs, squash_nans):
  """The first sorted value (along the last axis of ``x``, weights ``w``; NaNs last) whose
  cumulative weight reaches ``qs`` times the total, for each of the ``qs`` (shape
  lead + (nq,)); NaN where a weight is negative or NaN, or where the data has a NaN
  (``squash_nans``: where it is all NaN)."""
  nan = _isnan(x)
  zero = full_like(w, 0)
  bad = bitwise_or(lt(w, zero), _isnan(w))
  cum = cumsum(select_n(bitwise_or(bad, nan), w, zero), axis=-1)
  n = get_aval(x).shape[-1]
  lead, nq = get_aval(x).shape[:-1], get_aval(qs).shape[0]
  target = mul(broadcast_in_dim(qs, lead + (nq,), (len(lead),)), cum[..., -1:])
  below = lt(broadcast_in_dim(cum, lead + (nq, n), tuple(range(len(lead))) +
                                      (len(lead) + 1,)),
                 broadcast_in_dim(target, lead + (nq, n), tuple(range(len(lead) + 1))))
  idx = red.sum(below, axis=-1, dtype=dtypes.default_int_dtype())
  valid = red.sum(bitwise_not(nan), axis=-1, keepdims=True,
                  dtype=dtypes.default_int_dtype()) if squash_nans else \
      full(lead + (1,), n, dtypes.default_int_dtype())
  idx = lax_max(lax_min(idx, sub(valid, full_like(valid, 1))), full_like(idx, 0))
  res = _gather_last(x, idx)
  force = red.any(bad, axis=-1, keepdims=True)
  force = bitwise_or(force, eq(valid, full_like(valid, 0)) if squash_nans
                         else red.any(nan, axis=-1, keepdims=True))
  return select_n(broadcast_in_dim(force, get_aval(res).shape,
                                           tuple(range(len(lead) + 1))),
                      res, full_like(res, np.nan))


def _quantile(name, a, q, axis, out, method, keepdims, squash_nans, weights=None):
  red._check_out(out, name)
  if method not in _METHODS:
    raise ValueError("method can only be 'linear', 'lower', 'higher', 'midpoint', 'nearest' "
                     "or 'inverted_cdf'")
  a = asarray(a)
  if dtypes.is_complex(get_aval(a).dtype):
    raise ValueError("quantile does not support complex input, as the operation is poorly "
                     "defined.")
  ndim = get_aval(a).ndim
  if axis is None:
    axes = None
  else:
    axes = tuple(canonical_axis(x, ndim) for x in
                 (axis if isinstance(axis, (tuple, list)) else (axis,)))
    if len(set(axes)) != len(axes):
      raise ValueError("repeated axis")
  w = None
  if weights is not None:
    a, w = _quantile_weights(name, a, weights, method, axes)
  else:
    (a,) = promote_dtypes_inexact(a)
  # q keeps its own dtype (an integer q fails, as in JAX): positions and the interpolation
  # are computed in it, the result converted to a's dtype
  q = asarray(q)
  qdt = get_aval(q).dtype
  aval = get_aval(a)
  if get_aval(q).ndim > 1:
    raise ValueError(f"q must be have rank <= 1, got shape {get_aval(q).shape}")
  axes = tuple(range(aval.ndim)) if axes is None else axes
  rest = [i for i in range(aval.ndim) if i not in axes]
  flat_shape = tuple(aval.shape[i] for i in rest) + (
      math.prod([aval.shape[i] for i in axes]),)
  x = reshape(transpose(a, tuple(rest) + axes), flat_shape)
  n = get_aval(x).shape[-1]
  if n == 0 and get_aval(x).size == 0 and int(np.prod(get_aval(x).shape[:-1])) != 0:
    raise TypeError(f"{name}: cannot take a quantile over an empty axis")
  dt = get_aval(x).dtype
  qs = q if get_aval(q).ndim else lax_reshape(q, (1,))
  nq = get_aval(qs).shape[0]
  lead = get_aval(x).shape[:-1]
  if method == "inverted_cdf":
    if w is None:
      w = full_like(x, 1)
    else:
      w = reshape(transpose(convert_element_type(w, dt), tuple(rest) + axes),
                  flat_shape)
    x = select_n(_isnan(x), x, full_like(x, np.nan))  # NaNs of either sign last
    x, w = lax_sorting.sort((x, w), dimension=-1, num_keys=1)
    res = _inverted_cdf(x, w, qs, squash_nans)
    return _quantile_shape(res, q, nq, aval, axes, keepdims)
  x = sort(x, axis=-1)
  if squash_nans:
    count = red.sum(bitwise_not(_isnan(x)), axis=-1, keepdims=True, dtype=qdt)
  else:
    count = full(get_aval(x).shape[:-1] + (1,), n, qdt)
  pos = mul(broadcast_in_dim(qs, lead + (nq,), (len(lead),)),
                sub(count, np.asarray(1, qdt)[()]))
  pos = lax_max(pos, np.asarray(0, qdt)[()])
  lo, hi = floor(pos), ceil(pos)
  if method == "lower":
    idx_pairs = [(lo, None)]
  elif method == "higher":
    idx_pairs = [(hi, None)]
  elif method == "nearest":
    # ties go to the lower neighbour, as in JAX
    idx_pairs = [(select(le(sub(pos, lo), np.asarray(0.5, qdt)[()]),
                             lo, hi), None)]
  else:
    idx_pairs = [(lo, hi)]
  vals = []
  for idx in idx_pairs[0]:
    if idx is None:
      continue
    vals.append(_gather_last(x, idx))
  if len(vals) == 1:
    res = vals[0]
  elif method == "midpoint":
    res = mul(add(vals[0], vals[1]), np.asarray(0.5, dt)[()])
  else:
    frac = sub(pos, lo)  # the weights of both neighbours, in q's dtype, as JAX
    low, high = (convert_element_type(v, qdt, False) for v in vals)
    res = add(mul(low, sub(np.asarray(1, qdt)[()], frac)), mul(high, frac))
  if not squash_nans:
    has_nan = red.any(_isnan(x), axis=-1, keepdims=True)
    res = select_n(broadcast_in_dim(has_nan, get_aval(res).shape,
                                            tuple(range(len(lead) + 1))),
                       res, full_like(res, np.nan))
  return _quantile_shape(res, q, nq, aval, axes, keepdims)


def _quantile_shape(res, q, nq, a_aval, axes, keepdims):
  """Quantiles of shape lead + (nq,) laid out as JAX returns them: the quantiles first
  (none for a scalar ``q``), then the kept axes (the reduced ones as 1 with ``keepdims``),
  of ``a``'s dtype, strongly typed."""
  res = moveaxis(res, -1, 0)
  if keepdims:
    res = lax_reshape(res, (nq,) + tuple(1 if i in axes else d
                                         for i, d in enumerate(a_aval.shape)))
  if not get_aval(q).ndim:
    res = lax_squeeze(res, (0,))
  return convert_element_type(res, a_aval.dtype, False)


def _gather_last(x, idx):
  """x[..., idx[..., k]] for float indices ``idx`` of shape lead + (k,)."""
  if get_aval(x).shape[-1] == 0:
    return full(get_aval(idx).shape, 0, get_aval(x).dtype)
  return take_along_axis(x, convert_element_type(idx, np.int32), -1, mode="clip")


def _check_inexact(name, dtype):
  """JAX's check of ``cov``/``corrcoef``'s ``dtype=``: a float or complex type."""
  if dtype is not None and not dtypes.is_inexact(dtypes.check_user_dtype_supported(dtype,
                                                                                   name)):
    raise ValueError(f"{name}: dtype must be a subclass of float or complex; got {dtype=}")


@compiled_when_eager(staged="cov", static_argnames=("rowvar", "bias", "ddof", "dtype"))
def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None,
        dtype=None):
  """Covariance matrix of the variables in the rows (columns if not ``rowvar``) of ``m``,
  computed in ``dtype`` (float or complex) when given."""
  if ddof is not None and ddof != int(ddof):
    raise ValueError("ddof must be an integer")
  check_arraylike("cov", m, *(() if y is None else (y,)))
  m = asarray(m)
  if get_aval(m).ndim > 2:
    raise ValueError("m has more than 2 dimensions")
  _check_inexact("cov", dtype)
  X = atleast_2d(m)
  if not rowvar and get_aval(X).shape[0] != 1:
    X = X.T
  if get_aval(X).shape[0] == 0:
    return full((0, 0), np.nan, dtypes.to_inexact_dtype(get_aval(X).dtype))
  if y is not None:
    y = atleast_2d(asarray(y))
    if not rowvar and get_aval(y).shape[0] != 1:
      y = y.T
    X = concatenate((X, y), axis=0)
  (X,) = promote_dtypes_inexact(X)
  if get_aval(X).shape[1] == 0:  # no observations: NaN, as JAX's (and NumPy's)
    k = get_aval(X).shape[0]
    return full(() if k == 1 else (k, k), np.nan, get_aval(X).dtype)
  if ddof is None:
    ddof = 0 if bias else 1
  n = get_aval(X).shape[1]
  w = None
  # (JAX's checks, and weights taken by magnitude where NumPy rejects negative ones)
  if fweights is not None:
    fweights, = arraylike("cov", fweights)
    w = _observation_weights(asarray(fweights), n, "fweights")
    if not dtypes.is_integer(get_aval(w).dtype):
      raise TypeError("fweights must be integer.")
    w = ufuncs.abs(w)
  if aweights is not None:
    aweights, = arraylike("cov", aweights)
    aw = ufuncs.abs(_observation_weights(asarray(aweights), n, "aweights"))
    w = aw if w is None else ufuncs.multiply(w, aw)
  if dtype is not None:
    dt = dtypes.check_user_dtype_supported(dtype, "cov")
    X = convert_element_type(X, dt, False)
    w = None if w is None else convert_element_type(w, dt, False)
  avg, w_sum = average(X, axis=1, weights=w, returned=True)
  w_sum = w_sum[0]
  if w is None:
    fact = n - ddof
  elif ddof == 0:
    fact = w_sum
  elif aweights is None:
    fact = ufuncs.subtract(w_sum, ddof)
  else:
    fact = ufuncs.subtract(w_sum, ufuncs.divide(
        ufuncs.multiply(ddof, red.sum(ufuncs.multiply(w, aw))), w_sum))
  X = ufuncs.subtract(X, avg[:, None])
  X_T = X.T if w is None else ufuncs.multiply(X, w).T
  if dtypes.is_complex(get_aval(X_T).dtype):
    X_T = conj(X_T)
  c = ufuncs.true_divide(dot(X, X_T), fact)
  return squeeze(c)


def _observation_weights(w, n, name):
  if get_aval(w).ndim > 1:
    raise RuntimeError(f"cannot handle multidimensional {name}")
  if get_aval(w).shape[0] != n:
    raise RuntimeError(f"incompatible numbers of samples and {name}")
  return w


@compiled_when_eager(staged="corrcoef", static_argnames=("rowvar", "dtype"))
def corrcoef(x, y=None, rowvar=True, dtype=None):
  """Pearson correlation coefficients (``cov`` normalized; real parts clipped to [-1, 1]),
  computed in ``dtype`` (float or complex) when given."""
  x, = arraylike("corrcoef", x)
  _check_inexact("corrcoef", dtype)
  c = cov(x, y, rowvar, dtype=dtype)
  if get_aval(c).ndim == 0:
    return ufuncs.divide(c, c)
  d = diag(c)
  stddev = ufuncs.sqrt(real(d) if dtypes.is_complex(get_aval(d).dtype) else d)
  c = ufuncs.divide(ufuncs.divide(c, stddev[:, None]), stddev[None, :])
  if dtypes.is_complex(get_aval(c).dtype):
    return lax_complex(clip(real(c), -1, 1), clip(imag(c), -1, 1))
  return clip(c, -1, 1)
