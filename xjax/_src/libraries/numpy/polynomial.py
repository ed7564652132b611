"""Polynomials as coefficient vectors (highest degree first): arithmetic (add, sub, mul,
div), calculus (der, int), evaluation (polyval), construction from roots (poly), roots (as
companion-matrix eigenvalues), vander and least-squares fitting (polyfit, by QR with
rank-revealing back substitution; static shapes throughout, so it works under ``jit``)."""
from __future__ import annotations

import operator

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.concrete import concrete_or_error
from xjax._src.core.values import get_aval
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax.elementwise import add, max as lax_max, sub
from xjax._src.primitives.lax.reductions import reduce_prod
from xjax._src.primitives.lax.shapes import (broadcasted_iota, concatenate as lax_concatenate,
                                             full as lax_full, iota, rev, slice_in_dim)
from xjax._src.primitives.lax.sorting import sort_key_val
from xjax._src.libraries.numpy import ufuncs
from xjax._src.libraries.numpy.arguments import arraylike, check_arraylike
from xjax._src.libraries.numpy.arrayops import trim_zeros
from xjax._src.libraries.numpy.creation import arange, array, asarray, ones, ones_like, zeros
from xjax._src.libraries.numpy.indexing import take
from xjax._src.libraries.numpy.linalg import eigvals, inv, lstsq
from xjax._src.libraries.numpy.linalg_basic import dot, outer
from xjax._src.libraries.numpy.matrices import eye as _eye
from xjax._src.libraries.numpy.numeric import convolve
from xjax._src.libraries.numpy.promotion import (promote_args_inexact, promote_dtypes,
                                                 promote_dtypes_inexact)
from xjax._src.libraries.numpy.rearrange import atleast_1d
from xjax._src.libraries.numpy.reductions import all as _all, argmin
from xjax._src.libraries.numpy.shaping import broadcast_shapes, broadcast_to, concatenate
from xjax._src.libraries.numpy.where import where


@compiled_when_eager(staged="polyadd")
def polyadd(a1, a2):
  a1, a2 = arraylike("polyadd", a1, a2)
  a1, a2 = promote_dtypes(asarray(a1), asarray(a2))
  n1, n2 = get_aval(a1).shape[0], get_aval(a2).shape[0]
  if n1 < n2:
    a1, a2, n1, n2 = a2, a1, n2, n1
  # the shorter one added onto the longer one's tail (the head is left as it is)
  tail = add(slice_in_dim(a1, n1 - n2, n1), a2)
  return lax_concatenate([slice_in_dim(a1, 0, n1 - n2), tail], 0)


@compiled_when_eager(staged="polysub")
def polysub(a1, a2):
  a1, a2 = arraylike("polysub", a1, a2)
  a1, a2 = promote_dtypes(asarray(a1), asarray(a2))
  return polyadd(a1, ufuncs.negative(a2))


def polymul(a1, a2, *, trim_leading_zeros=False):
  a1, a2 = arraylike("polymul", a1, a2)
  a1, a2 = promote_dtypes_inexact(asarray(a1), asarray(a2))
  if trim_leading_zeros and (len(a1) > 1 or len(a2) > 1):   # needs concrete coefficients
    a1, a2 = trim_zeros(a1, "f"), trim_zeros(a2, "f")
  if len(a1) == 0:
    a1 = zeros(1, get_aval(a2).dtype)
  if len(a2) == 0:
    a2 = zeros(1, get_aval(a1).dtype)
  return convolve(a1, a2, "full")


@compiled_when_eager(staged="polyder", static_argnames=("m",))
def polyder(p, m=1):
  """m-th derivative of the polynomial p."""
  check_arraylike("polyder", p)
  (p,) = promote_dtypes_inexact(asarray(p))
  m = operator.index(m)
  if m < 0:
    raise ValueError("Order of derivative must be positive")
  for _ in range(m):
    n = get_aval(p).shape[0]
    powers = np.arange(n - 1, 0, -1)
    p = ufuncs.multiply(slice_in_dim(p, 0, max(n - 1, 0)), asarray(powers,
                                                                   get_aval(p).dtype))
  return p


@compiled_when_eager(staged="polyint", static_argnames=("m",))
def polyint(p, m=1, k=None):
  """m-th antiderivative of p with integration constants k (a scalar or m values; default
  0): (p, k) divided by the falling factorials of their powers."""
  m = operator.index(m)
  k = 0 if k is None else k
  p, k = arraylike("polyint", p, k)
  p, k = promote_dtypes_inexact(asarray(p), asarray(k))
  if m < 0:
    raise ValueError("Order of integral must be positive (see polyder)")
  k = atleast_1d(k)
  if get_aval(k).shape == (1,):
    k = broadcast_to(k, (m,))
  if get_aval(k).shape != (m,):
    raise ValueError("k must be a scalar or a rank-1 array of length 1 or m.")
  if m == 0:
    return p
  dt = get_aval(p).dtype
  n = get_aval(p).shape[0] + m
  power = broadcasted_iota(dt, (m, n), 1)
  step = broadcasted_iota(dt, (m, n), 0)
  factors = lax_max(sub(power, step), lax_full((m, n), 1, dt))
  divisors = rev(reduce_prod(factors, (0,)), (0,))
  return ufuncs.true_divide(lax_concatenate([p, k], 0), divisors)


@compiled_when_eager(staged="vander", static_argnames=("N", "increasing"))
def vander(x, N=None, increasing=False):
  """Columns are powers of x (decreasing unless ``increasing``): x raised to an iota of
  exponents in x's dtype."""
  x, = arraylike("vander", x)
  x = asarray(x)
  if get_aval(x).ndim != 1:
    raise ValueError("x must be a one-dimensional array")
  N = get_aval(x).shape[0] if N is None else operator.index(
      concrete_or_error(N, "'N' argument of jnp.vander()"))
  if N < 0:
    raise ValueError("N must be nonnegative")
  exponents = iota(get_aval(x).dtype, N)
  if not increasing:
    exponents = sub(np.asarray(N - 1, get_aval(x).dtype)[()], exponents)
  return ufuncs.power(x[..., None], exponents[None])


@compiled_when_eager(staged="polyval", static_argnames=("unroll",))
def polyval(p, x, *, unroll=16):
  """Evaluates the polynomial with coefficients ``p`` (highest degree first; further axes
  broadcast against x) at x, by Horner's rule in a scan."""
  from xjax._src.primitives.lax.control_flow import scan
  p, x = arraylike("polyval", p, x)
  p, x = promote_dtypes(asarray(p), asarray(x))
  shape = broadcast_shapes(get_aval(p).shape[1:], get_aval(x).shape)
  y = lax_full(shape, 0, get_aval(x).dtype)
  return scan(lambda y, c: (ufuncs.add(ufuncs.multiply(y, x), c), None), y, p,
              unroll=unroll)[0]


@compiled_when_eager(staged="poly")
def poly(seq_of_zeros):
  """Coefficients of the monic polynomial with the given 1-D sequence of roots, or of the
  characteristic polynomial of a square matrix."""
  seq_of_zeros, = arraylike("poly", seq_of_zeros)
  (roots,) = promote_args_inexact("poly", seq_of_zeros)
  roots = atleast_1d(roots)
  if roots.ndim == 2 and roots.shape[0] == roots.shape[1] and roots.shape[0] > 0:
    roots = eigvals(roots)
  elif roots.ndim != 1:
    raise ValueError("input must be 1d or non-empty square 2d array.")
  if roots.shape[0] == 0:
    return ones((), roots.dtype)
  coeffs = ones((1,), roots.dtype)
  for i in range(roots.shape[0]):
    coeffs = convolve(coeffs, array([1, -roots[i]], dtype=roots.dtype))
  return coeffs


def polydiv(u, v, *, trim_leading_zeros=False):
  """Quotient and remainder of polynomial division ``u / v`` (remainder as long as ``u``,
  unless ``trim_leading_zeros``, which needs concrete values)."""
  u, v = arraylike("polydiv", u, v)
  u, v = promote_dtypes_inexact(asarray(u), asarray(v))
  m, n = u.shape[0] - 1, v.shape[0] - 1
  scale = 1.0 / v[0]
  q = zeros((max(m - n + 1, 1),), u.dtype)
  r = u
  for k in range(m - n + 1):
    d = scale * r[k]
    q = q.at[k].set(d)
    r = r.at[k:k + n + 1].add(-d * v)
  if trim_leading_zeros:
    host = np.asarray(concrete_or_error(r, "remainder in jnp.polydiv"))
    nz = np.flatnonzero(host)
    r = r[nz[0]:] if nz.size else r[-1:]
  return q, r


def roots(p, *, strip_zeros: bool = True):
  """Roots (complex) of the polynomial with coefficients ``p``, highest power first.

  Leading zeros are stripped (which needs concrete coefficients); with
  ``strip_zeros=False`` they give NaN roots instead, and trailing zeros give zero roots.
  """
  p, = arraylike("roots", p)
  (p,) = promote_dtypes_inexact(atleast_1d(asarray(p)))
  if p.ndim != 1:
    raise ValueError("Input must be a rank-1 array.")
  cdt = dtypes.to_complex_dtype(p.dtype)
  if p.shape[0] < 2:
    return zeros((0,), cdt)
  zero = p == 0
  leading = where(_all(zero), p.shape[0], argmin(zero))
  if strip_zeros:
    leading = int(concrete_or_error(
        leading, "coefficients of jnp.roots() (to use it under jit, pass strip_zeros=False: "
        "leading zeros then give NaN roots)"))
    p = p[leading:]
    if p.shape[0] < 2:
      return zeros((0,), cdt)
    return _companion_roots(p)
  size = p.shape[0]
  p = where(leading == size, ones_like(p), p)  # all zeros: any finite companion
  shifted = take(p, (arange(size) + leading) % size)  # leading zeros to the end
  out = _companion_roots(shifted)
  out = sort_key_val(out == 0, out)[1]  # their zero roots last, then replaced by NaN
  n = out.shape[0]
  return where(arange(n) < n - leading, out, np.array(complex(np.nan, np.nan), cdt))


@compiled_when_eager(static_argnames=("deg", "rcond", "full", "cov"),
                     hashable_statics=True, staged="polyfit")
def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
  """Least-squares polynomial fit of degree ``deg`` (coefficients highest power first), as
  JAX solves it: the Vandermonde matrix's columns scaled to unit norm, then ``lstsq``."""
  check_arraylike("polyfit", x, y, *(() if w is None else (w,)))
  x, y = asarray(x), asarray(y)
  deg = operator.index(deg)  # (static, as rcond)
  order = deg + 1
  if deg < 0:
    raise ValueError("expected deg >= 0")
  if x.ndim != 1:
    raise TypeError("expected 1D vector for x")
  if x.size == 0:
    raise TypeError("expected non-empty vector for x")
  if y.ndim < 1 or y.ndim > 2:
    raise TypeError("expected 1D or 2D array for y")
  if x.shape[0] != y.shape[0]:
    raise TypeError("expected x and y to have same length")
  if rcond is None:  # (an integer x has no eps: ValueError, as in JAX)
    rcond = x.shape[0] * float(dtypes.finfo(x.dtype).eps)
  rcond = float(rcond)
  lhs, rhs = vander(x, order), y
  if w is not None:
    (w,) = promote_dtypes_inexact(asarray(w))
    if w.ndim != 1:
      raise TypeError("expected a 1-d array for weights")
    if w.shape[0] != y.shape[0]:
      raise TypeError("expected w and y to have the same length")
    lhs = lhs * w[:, None]
    rhs = rhs * (w[:, None] if rhs.ndim == 2 else w)
  scale = ufuncs.sqrt((lhs * lhs).sum(axis=0))
  lhs = lhs / scale[None, :]
  c, resids, rank, s = lstsq(lhs, rhs, rcond)
  c = (c.T / scale[None, :]).T if c.ndim > 1 else c / scale
  if full:
    return c, resids, rank, s, asarray(rcond)
  if not cov:
    return c
  vbase = inv(dot(lhs.T, lhs)) / outer(scale, scale)
  if cov == "unscaled":
    fac = asarray(1.0)
  else:
    if x.shape[0] <= order:
      raise ValueError("the number of data points must exceed order to scale the "
                       "covariance matrix")
    fac = resids / (x.shape[0] - order)
  if y.ndim == 1:
    return c, vbase * atleast_1d(fac)[None]
  return c, vbase[:, :, None] * atleast_1d(fac)[None, None, :]


def _companion_roots(p):
  n = p.shape[0] - 1
  top = -p[1:] / p[0]
  companion = concatenate([top[None, :], _eye(n - 1, n, dtype=p.dtype)], axis=0)
  return eigvals(companion)
