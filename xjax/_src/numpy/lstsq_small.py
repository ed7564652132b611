"""``polyfit``: least squares by QR (``lax.linalg.qr``) with rank-revealing back
substitution; singular values from ``lax.linalg.svd``.

Static shapes throughout (masks instead of shrinking slices), so it works under ``jit``
and is reverse differentiable.
"""
from __future__ import annotations

import operator

import numpy as np

from xjax._src.core.values import get_aval
from xjax._src.lax import lax
from xjax._src.lax import linalg as lax_linalg
from xjax._src.lax.linalg.matrices import mH
from xjax._src.numpy import ufuncs
from xjax._src.numpy.creation import asarray
from xjax._src.numpy.linalg_basic import matmul
from xjax._src.numpy.polynomial import vander
from xjax._src.numpy.reductions import max as _max, sum as _sum
from xjax._src.numpy.util import check_arraylike, promote_dtypes_inexact
from xjax._src.numpy.where import where

def householder_qr(a, b):
  """``(R, Q^H b)`` of the reduced QR decomposition of ``a`` (m, n)."""
  q, r = lax_linalg.qr(a, full_matrices=False)
  return r, matmul(mH(q), b)


def back_substitute(r, b, keep):
  """Solve ``r x = b`` for square upper-triangular ``r`` (n, n) and ``b`` (n, k).

  Rows whose diagonal entry is not in ``keep`` (rank-deficient directions) get ``x = 0``.
  """
  n = get_aval(r).shape[0]
  diag = _diag(r)

  def step(t, x):
    i = n - 1 - t
    row = lax.dynamic_slice_in_dim(r, i, 1, 0)[0]
    bi = lax.dynamic_slice_in_dim(b, i, 1, 0)[0]
    d = lax.dynamic_index_in_dim(diag, i, keepdims=False)
    ok = lax.dynamic_index_in_dim(keep, i, keepdims=False)
    xi = where(ok, (bi - matmul(row, x)) / where(ok, d, 1), 0)
    return lax.dynamic_update_slice_in_dim(x, xi[None, :], i, 0)

  return lax.fori_loop(0, n, step, lax.full(get_aval(b).shape, 0, get_aval(b).dtype))


def _diag(r):
  n = get_aval(r).shape[0]
  eye = lax.iota(np.int32, n)[:, None] == lax.iota(np.int32, n)[None, :]
  return _sum(where(eye, r, 0), axis=1)


def _square_r(r, n):
  """The leading (n, n) block of ``r``, zero-padded when ``r`` has fewer than n rows."""
  m = get_aval(r).shape[0]
  if m >= n:
    return r[:n]
  return lax.pad(r, np.zeros((), get_aval(r).dtype)[()], [(0, n - m, 0), (0, 0, 0)])


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
  """Least-squares polynomial fit of degree ``deg``; coefficients highest power first."""
  check_arraylike("polyfit", x, y)
  deg = operator.index(deg)
  if deg < 0:
    raise ValueError("expected deg >= 0")
  x, y = promote_dtypes_inexact(asarray(x), asarray(y))
  xa, ya = get_aval(x), get_aval(y)
  if xa.ndim != 1:
    raise TypeError("expected 1D vector for x")
  if xa.shape[0] == 0:
    raise TypeError("expected non-empty vector for x")
  if ya.ndim not in (1, 2):
    raise TypeError("expected 1D or 2D array for y")
  if ya.shape[0] != xa.shape[0]:
    raise TypeError("expected x and y to have same length")
  m, order = xa.shape[0], deg + 1
  dtype = xa.dtype
  if rcond is None:
    rcond = m * float(np.finfo(dtype).eps)

  lhs = vander(x, order)
  rhs = y if ya.ndim == 2 else y[:, None]
  if w is not None:
    check_arraylike("polyfit", w)
    w = asarray(w).astype(dtype)
    if get_aval(w).ndim != 1:
      raise TypeError("expected a 1-d array for weights")
    if get_aval(w).shape[0] != m:
      raise TypeError("expected w and y to have the same length")
    lhs = lhs * w[:, None]
    rhs = rhs * w[:, None]

  scale = ufuncs.sqrt(_sum(lhs * lhs, axis=0))
  lhs = lhs / scale
  r, qtb = householder_qr(lhs, rhs)
  r = _square_r(r, order)
  diag = ufuncs.abs(_diag(r))
  keep = diag > rcond * _max(diag)
  c = back_substitute(r, _square_r(qtb, order), keep)
  resids = _sum((matmul(lhs, c) - rhs) ** 2, axis=0)
  c = c / scale[:, None]
  coef = c if ya.ndim == 2 else c[:, 0]

  if full:
    k = min(m, order)
    s = lax_linalg.svd(r[:k], compute_uv=False)
    rank = _sum(s > rcond * s[0]).astype(np.int32)
    return coef, resids, rank, s, asarray(rcond)
  if cov:
    rinv = back_substitute(r, lax.convert_element_type(np.eye(order), dtype), keep)
    vbase = matmul(rinv, lax.transpose(rinv, (1, 0))) / (scale[:, None] * scale[None, :])
    if isinstance(cov, str) and cov == "unscaled":
      fac = lax.full((1,), 1, dtype)  # NumPy's unscaled 2-D covariance has a trailing 1
    else:
      if m <= order:
        raise ValueError("the number of data points must exceed order "
                         "to scale the covariance matrix")
      fac = resids / (m - order)
    if ya.ndim == 1:
      return coef, vbase * fac[0]
    return coef, vbase[:, :, None] * fac[None, None, :]
  return coef
