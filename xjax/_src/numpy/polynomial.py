"""Polynomials as coefficient vectors (highest degree first): add, sub, mul, der, int, vander."""
from __future__ import annotations

import operator

import numpy as np

from xjax._src.core.values import get_aval
from xjax._src.lax import lax
from xjax._src.numpy import ufuncs
from xjax._src.numpy.creation import asarray
from xjax._src.numpy.util import check_arraylike, promote_dtypes, promote_dtypes_inexact


def _trim_pad(a, n):
  return lax.pad(a, np.zeros((), get_aval(a).dtype)[()], [(n - get_aval(a).shape[0], 0, 0)])


def polyadd(a1, a2):
  check_arraylike("polyadd", a1, a2)
  a1, a2 = promote_dtypes(asarray(a1), asarray(a2))
  n = max(get_aval(a1).shape[0], get_aval(a2).shape[0])
  return lax.add(_trim_pad(a1, n), _trim_pad(a2, n))


def polysub(a1, a2):
  check_arraylike("polysub", a1, a2)
  a1, a2 = promote_dtypes(asarray(a1), asarray(a2))
  n = max(get_aval(a1).shape[0], get_aval(a2).shape[0])
  return lax.sub(_trim_pad(a1, n), _trim_pad(a2, n))


def polymul(a1, a2, *, trim_leading_zeros=False):
  from xjax._src.numpy.numeric import convolve
  check_arraylike("polymul", a1, a2)
  a1, a2 = promote_dtypes_inexact(asarray(a1), asarray(a2))
  return convolve(a1, a2, "full")


def polyder(p, m=1):
  """m-th derivative of the polynomial p."""
  (p,) = promote_dtypes_inexact(asarray(p))
  m = operator.index(m)
  if m < 0:
    raise ValueError("Order of derivative must be positive")
  for _ in range(m):
    n = get_aval(p).shape[0]
    powers = np.arange(n - 1, 0, -1)
    p = ufuncs.multiply(lax.slice_in_dim(p, 0, max(n - 1, 0)), asarray(powers,
                                                                   get_aval(p).dtype))
  return p


def polyint(p, m=1, k=None):
  """m-th antiderivative of p with integration constants k (default 0)."""
  m = operator.index(m)
  if m < 0:
    raise ValueError("Order of integral must be positive (see polyder)")
  (p,) = promote_dtypes_inexact(asarray(p))
  ks = np.zeros(m) if k is None else np.broadcast_to(np.asarray(k), (m,))
  for i in range(m):
    n = get_aval(p).shape[0]
    p = ufuncs.divide(p, asarray(np.arange(n, 0, -1), get_aval(p).dtype))
    p = lax.concatenate([p, lax.full((1,), ks[i], get_aval(p).dtype)], 0)
  return p


def vander(x, N=None, increasing=False):
  """Columns are powers of x (decreasing unless ``increasing``)."""
  x = asarray(x)
  if get_aval(x).ndim != 1:
    raise ValueError("x must be a one-dimensional array")
  n = get_aval(x).shape[0]
  N = n if N is None else operator.index(N)
  powers = np.arange(N) if increasing else np.arange(N - 1, -1, -1)
  cols = [ufuncs.power(x, int(p)) for p in powers]
  return lax.concatenate([lax.reshape(c, (n, 1)) for c in cols], 1) if cols else \
      lax.full((n, 0), 0, get_aval(x).dtype)
