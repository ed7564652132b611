"""Small dense least squares in lax ops (Householder QR, one-sided Jacobi), and ``polyfit``.

Everything is written with static shapes (masks instead of shrinking slices) and
``fori_loop`` over columns, so it works under ``jit`` and is reverse differentiable.
"""
from __future__ import annotations

import operator

import numpy as np

from xjax._src.core.values import get_aval
from xjax._src.lax import lax
from xjax._src.numpy import ufuncs
from xjax._src.numpy.creation import asarray
from xjax._src.numpy.linalg_basic import matmul
from xjax._src.numpy.polynomial import vander
from xjax._src.numpy.reductions import max as _max, sum as _sum
from xjax._src.numpy.sorting import sort
from xjax._src.numpy.util import check_arraylike, promote_dtypes_inexact
from xjax._src.numpy.where import where

_JACOBI_SWEEPS = 16


def _column(a, j):
  return lax.dynamic_slice_in_dim(a, j, 1, 1)[:, 0]


def _safe_norm(v, axis=None):
  """Euclidean norm with a finite derivative at zero."""
  sq = _sum(v * v, axis=axis)
  nonzero = sq > 0
  return where(nonzero, ufuncs.sqrt(where(nonzero, sq, 1)), 0)


def householder_qr(a, b):
  """Reduce ``a`` (m, n) to upper-triangular ``R`` and apply the same reflections to ``b``.

  Returns ``(R, Q^T b)`` where ``R`` is ``a`` overwritten (zero below the diagonal).
  """
  m, n = get_aval(a).shape
  rows = lax.iota(np.int32, m)

  def step(j, carry):
    a, b = carry
    x = where(rows >= j, _column(a, j), 0)
    xj = _sum(where(rows == j, x, 0))
    alpha = -where(xj >= 0, 1, -1).astype(x.dtype) * _safe_norm(x)
    v = x - where(rows == j, alpha, 0)
    vnorm = _safe_norm(v)
    v = v / where(vnorm > 0, vnorm, 1)
    a = a - 2 * v[:, None] * matmul(v, a)[None, :]
    b = b - 2 * v[:, None] * matmul(v, b)[None, :]
    return a, b

  return lax.fori_loop(0, min(m, n), step, (a, b))


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


def singular_values(w):
  """Singular values of ``w`` (p, q) with p >= q, descending, by one-sided Jacobi rotations."""
  q = get_aval(w).shape[1]
  pairs = [(i, j) for i in range(q) for j in range(i + 1, q)]
  if pairs:
    ps = asarray(np.array([i for i, _ in pairs], np.int32))
    qs = asarray(np.array([j for _, j in pairs], np.int32))

    def rotate(k, w):
      k = k % len(pairs)
      i = lax.dynamic_index_in_dim(ps, k, keepdims=False)
      j = lax.dynamic_index_in_dim(qs, k, keepdims=False)
      wi, wj = _column(w, i), _column(w, j)
      alpha, beta, gamma = _sum(wi * wi), _sum(wj * wj), _sum(wi * wj)
      rot = ufuncs.abs(gamma) > 0
      zeta = (beta - alpha) / (2 * where(rot, gamma, 1))
      sign = where(zeta >= 0, 1, -1).astype(zeta.dtype)
      t = where(rot, sign / (ufuncs.abs(zeta) + ufuncs.sqrt(1 + zeta * zeta)), 0)
      c = 1 / ufuncs.sqrt(1 + t * t)
      s = c * t
      w = lax.dynamic_update_slice_in_dim(w, (c * wi - s * wj)[:, None], i, 1)
      return lax.dynamic_update_slice_in_dim(w, (s * wi + c * wj)[:, None], j, 1)

    w = lax.fori_loop(0, _JACOBI_SWEEPS * len(pairs), rotate, w)
  return sort(_safe_norm(w, axis=0))[::-1]


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
    s = singular_values(lax.transpose(r[:k], (1, 0)))
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
