"""Numeric helpers: comparisons (isclose/allclose/array_equal), diff/gradient/trapezoid,
interp, unwrap, counting (bincount/histogram/digitize), convolve/correlate, index math."""
from __future__ import annotations

import math
import operator

import numpy as np

from xjax._src.foundations import dtypes

from xjax._src.core.concrete import concrete_or_error, max_dim, min_dim
from xjax._src.core.values import get_aval
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax.elementwise import (abs as lax_abs, add, convert_element_type,
                                                  eq as lax_eq, le as lax_le, mul, select_n,
                                                  sub)
from xjax._src.primitives.lax.shapes import (concatenate as lax_concatenate, full, full_like,
                                             index_in_dim, reshape as lax_reshape, rev,
                                             slice as lax_slice, slice_in_dim)
from xjax._src.primitives.lax.sharding_constraint import place_out_sharding
from xjax._src.primitives.lax.sorting import sort_key_val
from xjax._src.libraries.numpy import reductions as red
from xjax._src.libraries.numpy import ufuncs
from xjax._src.libraries.numpy.arguments import canonical_axis, arraylike, check_arraylike
from xjax._src.libraries.numpy.composed_math import (clip, conjugate, divmod as _divmod, isfinite,
                                                     isnan)
from xjax._src.libraries.numpy.creation import asarray, zeros
from xjax._src.libraries.numpy.cumulative import cumsum
from xjax._src.libraries.numpy.numerical_ranges import linspace
from xjax._src.libraries.numpy.promotion import (promote_args, promote_args_inexact,
                                                 promote_dtypes, promote_dtypes_inexact)
from xjax._src.libraries.numpy.rearrange import _flip
from xjax._src.libraries.numpy.shaping import (broadcast_shapes, broadcast_to, concatenate,
                                               expand_dims, moveaxis, ravel, reshape, stack)
from xjax._src.libraries.numpy.sorting import searchsorted
from xjax._src.libraries.numpy.ufuncs import abs as _abs, mod
from xjax._src.libraries.numpy.where import where


@compiled_when_eager(staged="isclose", static_argnames=("equal_nan",))
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
  """a == b, or b finite and |a - b| <= atol + rtol * |b|, elementwise (integers compared as
  floats, keys by equality)."""
  a, b = promote_args("isclose", a, b)
  if dtypes.is_extended(get_aval(a).dtype):
    return lax_eq(a, b)
  a, b = promote_args_inexact("isclose", a, b)
  dt = get_aval(a).dtype
  if dtypes.is_complex(dt):
    dt = np.array(0, dt).real.dtype
  rtol = convert_element_type(rtol, dt)
  atol = convert_element_type(atol, dt)
  both_nan = ufuncs.logical_and(isnan(a), isnan(b))
  check_fin = isfinite(b)
  in_range = lax_le(lax_abs(sub(a, b)), add(atol, mul(rtol, lax_abs(b))))
  out = ufuncs.logical_or(lax_eq(a, b), ufuncs.logical_and(check_fin, in_range))
  return ufuncs.logical_or(out, both_nan) if equal_nan else out


@compiled_when_eager(staged="allclose", static_argnames=("equal_nan",))
def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
  return red.all(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1, a2, equal_nan=False):
  """True if the shapes match and all elements are equal."""
  a1, a2 = asarray(a1), asarray(a2)
  if get_aval(a1).shape != get_aval(a2).shape:
    return asarray(False)
  eq = ufuncs.equal(a1, a2)
  if equal_nan:
    eq = ufuncs.logical_or(eq, ufuncs.logical_and(isnan(a1), isnan(a2)))
  return red.all(eq)


def array_equiv(a1, a2):
  """True if a1 and a2 broadcast together and are equal."""
  a1, a2 = asarray(a1), asarray(a2)
  try:
    broadcast_shapes(get_aval(a1).shape, get_aval(a2).shape)
  except ValueError:
    return asarray(False)
  return red.all(ufuncs.equal(a1, a2))


@compiled_when_eager(staged="diff", static_argnames=("n", "axis"))
def diff(a, n=1, axis=-1, prepend=None, append=None):
  """n-th discrete difference along ``axis``."""
  a, = arraylike("diff", a)
  a = asarray(a)
  nd = get_aval(a).ndim
  if nd == 0:
    raise ValueError(f"diff requires input that is at least one dimensional; got {a}")
  n = operator.index(n)
  if n < 0:
    raise ValueError(f"order must be non-negative but got {n}")
  axis = canonical_axis(axis, nd)
  parts = []
  for extra in (prepend, append):
    if extra is None:
      parts.append(None)
      continue
    extra = asarray(extra)
    if get_aval(extra).ndim == 0:
      shape = list(get_aval(a).shape)
      shape[axis] = 1
      extra = broadcast_to(extra, tuple(shape))
    parts.append(extra)
  if parts[0] is not None or parts[1] is not None:
    a = concatenate([p for p in (parts[0], a, parts[1]) if p is not None], axis=axis)
  is_bool = get_aval(a).dtype == np.bool_
  for _ in range(n):
    shape = get_aval(a).shape
    size = shape[axis]
    # (a[1:] and a[:-1] along axis, JAX's static slices)
    hi = lax_slice(a, [min_dim(size, 1) if d == axis else 0 for d in range(nd)], shape)
    lo = lax_slice(a, [0] * nd, [max_dim(size - 1, 0) if d == axis else n
                                 for d, n in enumerate(shape)])
    a = ufuncs.not_equal(hi, lo) if is_bool else ufuncs.subtract(hi, lo)
  return a


@compiled_when_eager(staged="ediff1d")
def ediff1d(ary, to_end=None, to_begin=None):
  check_arraylike("ediff1d", ary, *(v for v in (to_end, to_begin) if v is not None))
  arr = ravel(asarray(ary))
  out = sub(arr[1:], arr[:-1])  # (lax's: bool is a TypeError, as JAX's)
  parts = [ravel(asarray(to_begin, get_aval(out).dtype))] if to_begin is not None else []
  parts.append(out)
  if to_end is not None:
    parts.append(ravel(asarray(to_end, get_aval(out).dtype)))
  return concatenate(parts) if len(parts) > 1 else out


@compiled_when_eager(staged="gradient", static_argnames=("axis", "edge_order"))
def gradient(f, *varargs, axis=None, edge_order=None):
  """Central differences inside, one-sided at the edges (uniform or coordinate spacing)."""
  if edge_order is not None:
    raise NotImplementedError("The 'edge_order' argument to jnp.gradient is not supported.")
  (f,) = promote_args_inexact("gradient", f)
  nd = get_aval(f).ndim
  axes = tuple(range(nd)) if axis is None else tuple(
      canonical_axis(x, nd) for x in (axis if isinstance(axis, (tuple, list)) else (axis,)))
  if len(varargs) == 0:
    spacing = [1.0] * len(axes)
  elif len(varargs) == 1:
    spacing = list(varargs) * len(axes)
  else:
    spacing = list(varargs)
  if len(spacing) != len(axes):
    raise TypeError("Invalid number of spacing arguments to gradient")
  outs = []
  for ax, h in zip(axes, spacing):
    n = get_aval(f).shape[ax]
    if n < 2:
      raise ValueError("Shape of array too small to calculate a numerical gradient, at "
                       "least 2 elements are required.")
    sl = lambda s, e: slice_in_dim(f, s, e, axis=ax)
    h = asarray(h)
    if get_aval(h).ndim == 0:
      inner = ufuncs.divide(ufuncs.subtract(sl(2, n), sl(0, n - 2)), ufuncs.multiply(2, h))
      first = ufuncs.divide(ufuncs.subtract(sl(1, 2), sl(0, 1)), h)
      last = ufuncs.divide(ufuncs.subtract(sl(n - 1, n), sl(n - 2, n - 1)), h)
    else:
      dx = diff(h)
      shape = [1] * nd
      shape[ax] = n - 1
      dx = lax_reshape(convert_element_type(dx, get_aval(f).dtype), tuple(shape))
      d0 = slice_in_dim(dx, 0, n - 2, axis=ax)
      d1 = slice_in_dim(dx, 1, n - 1, axis=ax)
      a = ufuncs.divide(ufuncs.negative(d1), ufuncs.multiply(d0, ufuncs.add(d0, d1)))
      b = ufuncs.divide(ufuncs.subtract(d1, d0), ufuncs.multiply(d0, d1))
      c = ufuncs.divide(d0, ufuncs.multiply(d1, ufuncs.add(d0, d1)))
      inner = ufuncs.add(ufuncs.add(ufuncs.multiply(a, sl(0, n - 2)),
                                    ufuncs.multiply(b, sl(1, n - 1))),
                         ufuncs.multiply(c, sl(2, n)))
      first = ufuncs.divide(ufuncs.subtract(sl(1, 2), sl(0, 1)),
                            slice_in_dim(dx, 0, 1, axis=ax))
      last = ufuncs.divide(ufuncs.subtract(sl(n - 1, n), sl(n - 2, n - 1)),
                           slice_in_dim(dx, n - 2, n - 1, axis=ax))
    outs.append(lax_concatenate([first, inner, last], ax))
  return outs[0] if len(outs) == 1 else outs


@compiled_when_eager(staged="trapezoid", static_argnames=("axis",))
def trapezoid(y, x=None, dx=1.0, axis=-1):
  """Integral of y by the trapezoidal rule along ``axis``: with one spacing, spacing *
  (sum - half the end points); else the sum of spacing * (pairwise sums) / 2."""
  if x is None:
    y, = arraylike("trapezoid", y)
    (y,) = promote_dtypes_inexact(asarray(y))
    d = asarray(dx)
    if get_aval(d).ndim:
      d = expand_dims(d, tuple(range(get_aval(y).ndim - get_aval(d).ndim)))
      d = moveaxis(d, axis, -1)
  else:
    y, x = arraylike("trapezoid", y, x)
    y, x = promote_dtypes_inexact(asarray(y), asarray(x))
    d = diff(x) if get_aval(x).ndim == 1 else moveaxis(diff(x, axis=axis), axis, -1)
  y = moveaxis(y, axis, -1)
  n = get_aval(y).shape[-1]
  last = get_aval(y).ndim - 1
  if get_aval(d).ndim == 0 or get_aval(d).shape[-1] == 1:
    d = d if get_aval(d).ndim == 0 else index_in_dim(d, 0, get_aval(d).ndim - 1, False)
    ends = ufuncs.add(index_in_dim(y, 0, last, False), index_in_dim(y, n - 1, last, False))
    return ufuncs.multiply(d, ufuncs.subtract(red.sum(y, axis=-1), ufuncs.multiply(0.5, ends)))
  pairs = ufuncs.add(slice_in_dim(y, 1, n, axis=last), slice_in_dim(y, 0, n - 1, axis=last))
  return ufuncs.multiply(0.5, red.sum(ufuncs.multiply(d, pairs), axis=-1))


@compiled_when_eager(static_argnames=("left", "right", "period"))
def interp(x, xp, fp, left=None, right=None, period=None):
  """Piecewise-linear interpolation of (xp, fp) at x (xp increasing, or periodic): one
  compiled program, with ``left``/``right`` static when None or "extrapolate" and
  ``period`` when None, as JAX."""
  static = tuple(name for name, v in (("left", left), ("right", right))
                 if v is None or isinstance(v, str)) + (("period",) if period is None else ())
  if static not in _interp_programs:
    _interp_programs[static] = compiled_when_eager(_interp, staged="_interp",
                                                   static_argnames=static)
  return _interp_programs[static](x, xp, fp, left, right, period)


_interp_programs: dict = {}


def _interp(x, xp, fp, left=None, right=None, period=None):
  x, xp, fp = arraylike("interp", x, xp, fp)
  if np.shape(xp) != np.shape(fp) or np.ndim(xp) != 1:
    raise ValueError("xp and fp must be one-dimensional arrays of equal size")
  x, xp = promote_dtypes_inexact(x, xp)
  (fp,) = promote_dtypes_inexact(fp)
  for name, side in (("left", left), ("right", right)):
    if isinstance(side, str) and side != "extrapolate":
      raise ValueError(f"the only valid string value of `{name}` is 'extrapolate', "
                       f"but got: {side!r}")
  if dtypes.is_complex(get_aval(x).dtype):
    raise ValueError("jnp.interp: complex x values not supported.")
  if period is not None:
    if np.ndim(period) != 0:
      raise ValueError(f"period must be a scalar; got {period}")
    period = ufuncs.abs(period)
    x, xp = x % period, xp % period
    xp, fp = sort_key_val(xp, fp)
    xp = concatenate([xp[-1:] - period, xp, xp[:1] + period])
    fp = concatenate([fp[-1:], fp, fp[:1]])
  i = clip(searchsorted(xp, x, side="right"), 1, get_aval(xp).shape[0] - 1)
  df = fp[i] - fp[i - 1]
  dx = xp[i] - xp[i - 1]
  delta = x - xp[i - 1]
  # (a near-zero dx gives fp[i - 1], with no NaN in the gradient)
  epsilon = np.spacing(dtypes.finfo(get_aval(xp).dtype).eps)
  dx0 = lax_abs(dx) <= epsilon
  f = where(dx0, fp[i - 1], fp[i - 1] + (delta / where(dx0, 1, dx)) * df)
  if not isinstance(left, str) and period is None:
    f = where(x < xp[0], fp[0] if left is None else left, f)
  if not isinstance(right, str) and period is None:
    f = where(x > xp[-1], fp[-1] if right is None else right, f)
  return f


def bincount(x, weights=None, minlength=0, *, length=None, out_sharding=None):
  """Counts (or summed ``weights``) of each non-negative integer in x, negatives counted
  as 0 (``length`` static under jit): a scatter-add, as JAX computes it."""
  x, = arraylike("bincount", x)
  x = asarray(x)
  if get_aval(x).dtype == np.bool_:
    x = convert_element_type(x, np.int32)
  if not dtypes.is_integer(get_aval(x).dtype):
    raise TypeError(f"x argument to bincount must have an integer type; got {get_aval(x).dtype}")
  if get_aval(x).ndim != 1:
    raise ValueError("only 1-dimensional input supported.")
  minlength = operator.index(concrete_or_error(minlength, "minlength"))
  if length is None:
    host = np.asarray(concrete_or_error(
        x, "argument of jnp.bincount(). The length argument must be specified (length=) "
        "to use jnp.bincount within JAX transformations"))
    length = max(minlength, max(0, int(host.max())) + 1 if host.size else 0)
  else:
    length = operator.index(concrete_or_error(length, "length"))
  if weights is None:
    weights = np.array(1, dtypes.default_int_dtype())
  elif np.shape(weights) != get_aval(x).shape:
    raise ValueError(f"type of weights must match type of x. Got typeof(x)="
                     f"{get_aval(x).str_short(short_dtypes=True)}({{}}) and typeof(weights)="
                     f"{get_aval(asarray(weights)).str_short(short_dtypes=True)}({{}})")
  counts = zeros(length, dtypes.dtype(weights)).at[clip(x, 0)].add(weights, mode="drop")
  return place_out_sharding(counts, out_sharding)


@compiled_when_eager(staged="digitize", static_argnames=("right", "method"))
def digitize(x, bins, right=False, *, method=None):
  """Index of the bin each x falls in (bins increasing or decreasing)."""
  x, bins = arraylike("digitize", x, bins)
  x, bins = asarray(x), asarray(bins)
  if get_aval(bins).ndim != 1:
    raise ValueError(f"digitize: bins must be a 1-dimensional array; got bins={bins}")
  n = get_aval(bins).shape[0]
  if n == 0:
    return full(get_aval(x).shape, 0, np.int32)
  side, method = "left" if right else "right", method or "scan"
  rising = searchsorted(bins, x, side=side, method=method)
  falling = sub(np.int32(n), searchsorted(rev(bins, (0,)), x, side=side,
                                                method=method))
  last, first = (index_in_dim(bins, i, 0, keepdims=False) for i in (n - 1, 0))
  return where(ufuncs.greater_equal(last, first), rising, falling)


def histogram_bin_edges(a, bins=10, range=None, weights=None):
  if isinstance(bins, str):  # (NumPy's estimators are not offered, as in JAX)
    raise TypeError(f"asarray: expected ArrayLike, got {bins} of type {type(bins)}.")
  a, bins = arraylike("histogram_bin_edges", a, bins)
  a = asarray(a)
  dt = dtypes.to_inexact_dtype(get_aval(a).dtype)
  if np.ndim(bins) == 1:   # the edges themselves, in the data's inexact dtype (as JAX)
    return asarray(bins, dt)
  if range is None:
    lo, hi = (convert_element_type(v, dt) for v in (red.min(a), red.max(a)))
  else:
    lo, hi = asarray(range[0], dt), asarray(range[1], dt)
  # an empty range widens to [lo - 0.5, hi + 0.5], as NumPy and JAX
  same, half = lax_eq(lo, hi), np.asarray(0.5, get_aval(hi).dtype)[()]
  lo = select_n(same, lo, sub(lo, half))
  hi = select_n(same, hi, add(hi, half))
  bins = operator.index(concrete_or_error(bins, "histogram_bin_edges bins"))
  return linspace(lo, hi, bins + 1, dtype=dt)


def histogram(a, bins=10, range=None, weights=None, density=None):
  """Counts (or weighted sums) of ``a`` in ``bins`` and the bin edges."""
  if not isinstance(bins, str):
    a, bins = arraylike("histogram", a, bins)
  edges = histogram_bin_edges(a, bins, range, weights)
  a = ravel(asarray(a))
  nb = get_aval(edges).shape[0] - 1
  idx = _bin_index(a, edges)
  w = full(get_aval(a).shape, 1, dtypes.to_inexact_dtype(get_aval(a).dtype)) \
      if weights is None else ravel(promote_args_inexact("histogram", a, weights)[1])
  counts = bincount(idx, w, length=nb + 2)
  counts = slice_in_dim(counts, 1, nb + 1)
  if density:
    widths = diff(edges)
    counts = ufuncs.divide(ufuncs.divide(counts, widths), red.sum(counts))
  return counts, edges


def _bin_index(a, edges):
  """1 + the bin of each ``a`` (0 below, nb + 1 above; the last edge is in the last bin)."""
  nb = get_aval(edges).shape[0] - 1
  idx = searchsorted(edges, a, side="right")
  last = index_in_dim(edges, nb, 0, keepdims=False)
  return select_n(ufuncs.equal(a, last), idx, full_like(idx, nb))


def histogramdd(sample, bins=10, range=None, weights=None, density=None):
  """D-dimensional histogram of the (N, D) ``sample``: counts and the per-axis edges."""
  sample, = arraylike("histogramdd", sample)
  sample = asarray(sample)
  if get_aval(sample).ndim != 2:
    raise ValueError(f"histogramdd: sample must be 2-dimensional, got shape "
                     f"{get_aval(sample).shape}")
  n, d = get_aval(sample).shape
  if weights is not None and np.shape(weights) != (n,):
    raise ValueError("should have one weight for each sample.")
  try:
    bins_seq = list(bins)
  except TypeError:  # one bin count (or edge array) for every dimension
    bins_seq = [bins] * d
  else:
    if len(bins_seq) != d:
      raise ValueError("should be a bin for each dimension.")
  range_seq = [None] * d if range is None else list(range)
  if len(range_seq) != d or any(r is not None and np.shape(r)[0] != 2 for r in range_seq):
    raise ValueError(f"For sample.shape={(n, d)}, range must be a sequence "
                     f"of {d} pairs or Nones; got {range=}")
  edges, flat, nbins = [], None, []
  for i, (b, rng) in enumerate(zip(bins_seq, range_seq)):
    col = index_in_dim(sample, i, 1, keepdims=False)
    e = histogram_bin_edges(col, b, rng, weights)
    edges.append(e)
    nbins.append(get_aval(e).shape[0] + 1)
    idx = _bin_index(col, e)
    flat = idx if flat is None else add(mul(flat, np.asarray(
        nbins[-1], get_aval(flat).dtype)[()]), idx)
  w = None if weights is None else ravel(asarray(weights))
  counts = reshape(bincount(flat, w, length=int(np.prod(nbins))), tuple(nbins))
  for i, nb in enumerate(nbins):
    counts = slice_in_dim(counts, 1, nb - 1, axis=i)
  if density:
    counts = ufuncs.divide(counts, red.sum(counts))
    for i, e in enumerate(edges):
      shape = [1] * d
      shape[i] = get_aval(e).shape[0] - 1
      counts = ufuncs.divide(counts, reshape(diff(e), tuple(shape)))
  return counts, edges


def histogram2d(x, y, bins=10, range=None, weights=None, density=None):
  """2-D histogram of points (x, y): counts, x edges and y edges."""
  x, y = arraylike("histogram2d", x, y)
  try:
    n = len(bins)
  except TypeError:
    n = 1
  if n not in (1, 2):   # one edge array for both axes
    bins = [asarray(bins), asarray(bins)]
  counts, (ex, ey) = histogramdd(stack([asarray(x), asarray(y)], axis=1), bins, range,
                                 weights, density)
  return counts, ex, ey


@compiled_when_eager(staged="_conv",
                     static_argnames=("mode", "op", "precision", "preferred_element_type"))
def _conv(x, y, mode, op, precision, preferred_element_type):
  """1-D convolution (``op="convolve"``) or cross-correlation via
  ``lax.conv_general_dilated``, the shorter operand sliding over the longer."""
  from xjax._src.primitives.lax.windowed import conv_general_dilated
  if get_aval(x).ndim != 1 or get_aval(y).ndim != 1:
    raise ValueError(f"{op}() only support 1-dimensional inputs.")
  promote = promote_dtypes if preferred_element_type is not None else promote_dtypes_inexact
  x, y = promote(x, y)
  n, m = get_aval(x).shape[0], get_aval(y).shape[0]
  if n == 0 or m == 0:
    raise ValueError(f"{op}: inputs cannot be empty, got shapes {(n,)} and {(m,)}.")
  out_order = slice(None)
  if op == "correlate":
    y = conjugate(y)
    if n < m:
      x, y, n, m = y, x, m, n
      out_order = slice(None, None, -1)
  else:
    if n < m:
      x, y, n, m = y, x, m, n
    y = _flip(y)
  if mode == "valid":
    pad = (0, 0)
  elif mode == "same":
    pad = (m // 2, m - m // 2 - 1)
  elif mode == "full":
    pad = (m - 1, m - 1)
  else:
    raise ValueError("mode must be one of ['full', 'same', 'valid']")
  out = conv_general_dilated(x[None, None, :], y[None, None, :], (1,), [pad],
                             precision=precision,
                             preferred_element_type=preferred_element_type)
  return out[0, 0, out_order]


@compiled_when_eager(staged="convolve",
                     static_argnames=("mode", "precision", "preferred_element_type"))
def convolve(a, v, mode="full", *, precision=None, preferred_element_type=None):
  """Discrete linear convolution of two 1-D arrays."""
  a, v = arraylike("convolve", a, v)
  return _conv(asarray(a), asarray(v), mode=mode, op="convolve", precision=precision,
               preferred_element_type=preferred_element_type)


@compiled_when_eager(staged="correlate",
                     static_argnames=("mode", "precision", "preferred_element_type"))
def correlate(a, v, mode="valid", *, precision=None, preferred_element_type=None):
  """Cross-correlation of two 1-D arrays: sum_n a[n + k] * conj(v[n])."""
  a, v = arraylike("correlate", a, v)
  return _conv(asarray(a), asarray(v), mode=mode, op="correlate", precision=precision,
               preferred_element_type=preferred_element_type)


def ravel_multi_index(multi_index, dims, mode="raise", order="C", *, dtype=None):
  """Flat C- or F-order indices from a tuple of integer coordinate arrays, in ``dtype``
  (default: the indices' integer type); mode 'clip', 'wrap' or 'ignore' under jit."""
  if len(multi_index) != len(dims):
    raise AssertionError(f"len(multi_index)={len(multi_index)} != len(dims)={len(dims)}")
  dims = tuple(operator.index(concrete_or_error(d, "dims")) for d in dims)
  multi_index = arraylike("ravel_multi_index", *multi_index)
  idx = [asarray(i) for i in multi_index]
  if dtype is None:
    dtype = dtypes.result_type(int, *idx)
  else:
    dtype = dtypes.check_user_dtype_supported(dtype, "ravel_multi_index")
  if not dtypes.is_integer(dtype):
    raise ValueError(f"{dtype=} is not an integer type.")
  if math.prod(dims) - 1 > np.iinfo(dtype).max:
    raise ValueError(f"jnp.ravel_multi_index: {dtype=} not large enough to hold flattened "
                     f"index for {dims=}. Use the dtype argument to pass a suitable dtype "
                     "(e.g. dtype=np.min_scalar_type(prod(dims))).")
  for i in idx:
    if mode == "raise":
      concrete_or_error(i, "multi_index argument of jnp.ravel_multi_index() with "
                        "mode='raise' (use mode='wrap' or mode='clip' under jit)")
    if not dtypes.is_integer(get_aval(i).dtype):
      raise TypeError("only int indices permitted")
  if mode == "raise":
    if any(np.any((np.asarray(i) < 0) | (np.asarray(i) >= d)) for i, d in zip(idx, dims)):
      raise ValueError("invalid entry in coordinates array")
  elif mode == "clip":
    idx = [clip(i, 0, d - 1) for i, d in zip(idx, dims)]
  elif mode == "wrap":
    idx = [ufuncs.remainder(i, d) for i, d in zip(idx, dims)]
  elif mode != "ignore":
    raise ValueError(f"invalid mode={mode!r}. Expected 'raise', 'wrap', 'clip', or 'ignore'.")
  if order == "F":
    strides = np.cumprod((1,) + dims[:-1])
  elif order == "C":
    strides = np.cumprod((1,) + dims[1:][::-1])[::-1]
  else:
    raise ValueError(f"invalid order={order!r}. Expected 'C' or 'F'")
  out = asarray(0, dtype=dtype)
  for i, stride in zip(idx, strides):
    out = ufuncs.add(out, ufuncs.multiply(convert_element_type(i, dtype), int(stride)))
  return out


def unravel_index(indices, shape):
  """Tuple of coordinate arrays for flat ``indices`` into ``shape``; out-of-bounds indices
  are clipped to the first or last element."""
  indices, = arraylike("unravel_index", indices)
  indices = asarray(indices)
  try:
    shape = list(shape)  # not an array: weakly typed dims stay weak
  except TypeError:
    shape = [shape]
  if any(np.ndim(s) != 0 for s in shape):
    raise ValueError("unravel_index: shape should be a scalar or 1D sequence.")
  out = [0] * len(shape)
  for i, s in reversed(list(enumerate(shape))):
    indices, out[i] = _divmod(indices, s)
  too_high = indices > 0
  too_low = asarray(False) if dtypes.is_unsigned(get_aval(indices).dtype) else indices < -1
  return tuple(where(too_high, s - 1, where(too_low, 0, i)) for s, i in zip(shape, out))


@compiled_when_eager(staged="unwrap", static_argnames=("axis",))
def unwrap(p, discont=None, axis=-1, period=2 * np.pi):
  """``p`` with jumps larger than ``discont`` along ``axis`` replaced by their
  ``period`` complement; integers stay integers where ``period`` is an integer."""
  p, = arraylike("unwrap", p)
  p, period = promote_dtypes(p, period)
  if dtypes.is_complex(get_aval(p).dtype):
    raise ValueError("jnp.unwrap does not support complex inputs.")
  if get_aval(p).shape[axis] == 0:
    return p
  if discont is None:
    discont = period / 2
  interval = period // 2 if dtypes.is_integer(get_aval(p).dtype) else period / 2
  dd = diff(p, axis=axis)
  ddmod = mod(dd + interval, period) - interval
  ddmod = where((ddmod == -interval) & (dd > 0), interval, ddmod)
  correct = where(_abs(dd) < discont, 0, ddmod - dd)
  return concatenate((slice_in_dim(p, 0, 1, axis=axis),
                      slice_in_dim(p, 1, None, axis=axis) + cumsum(correct, axis=axis)),
                     axis=axis)
