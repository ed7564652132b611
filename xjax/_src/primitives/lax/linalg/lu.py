"""``lu``: LU decomposition with partial pivoting, ``a[perm] = L U``.

Outputs the packed factors (unit-diagonal ``L`` below, ``U`` on and above the diagonal),
the row swaps ``pivots`` (0-based, as LAPACK's ipiv) and the permutation they make.
LAPACK's getrf on the CPU; an HLO elimination loop elsewhere.  Singular matrices are not
an error (their ``U`` has a zero on the diagonal).  The JVP is De Hoog, Anderssen and Lukas'
``L' = L tril(L^{-1} P A' U^{-1}, -1)``, ``U' = triu(L^{-1} P A' U^{-1}) U``.
"""
from __future__ import annotations

import numpy as np

from xjax._src.core.avals import ShapedArray
from xjax._src.interpreters import ad
from xjax._src.interpreters.ad import Zero
from xjax._src.primitives.lax import lax
from xjax._src.primitives.lax.linalg import lapack
from xjax._src.primitives.lax.linalg.matrices import (eye, inverse_permutation, matmul,
                                                      nan_where_failed, permute_rows, tril, triu)
from xjax._src.primitives.lax.linalg.rules import check_matrix, linalg_primitive, lower_fn, lowering
from xjax._src.primitives.lax.linalg.triangular_solve import triangular_solve


# -- lu_pivots_to_permutation ---------------------------------------------------------------

def _perm_abstract_eval(pivots, *, permutation_size):
  if pivots.ndim < 1 or pivots.dtype != np.int32:
    raise ValueError(f"lu_pivots_to_permutation: pivots must be an int32 array of rank >= 1, "
                     f"got {pivots.str_short()}.")
  if permutation_size < pivots.shape[-1]:
    raise ValueError(f"lu_pivots_to_permutation: permutation_size {permutation_size} is "
                     f"smaller than the number of pivots {pivots.shape[-1]}.")
  return ShapedArray(pivots.shape[:-1] + (permutation_size,), np.int32)


def _apply_swaps(pivots, permutation_size):
  """Applies the swaps ``i <-> pivots[..., i]`` in order to the identity permutation."""
  batch, k = pivots.shape[:-1], pivots.shape[-1]
  shape = batch + (permutation_size,)
  last = len(shape) - 1
  idx = lax.broadcasted_iota(np.int32, shape, last)
  col = lambda x, i: lax.squeeze(lax.dynamic_slice_in_dim(x, i, 1, last), (last,))

  def swap(i, perm):
    j = col(pivots, i)
    jb = lax.broadcast_in_dim(j, shape, tuple(range(len(batch))))
    pi = col(perm, i)
    pj = lax.reduce_sum(lax.select(lax.eq(idx, jb), perm, lax.full(shape, 0, np.int32)),
                        (last,))
    bcast = lambda v: lax.broadcast_in_dim(v, shape, tuple(range(len(batch))))
    perm = lax.select(lax.eq(idx, jb), bcast(pi), perm)
    return lax.select(lax.eq(idx, lax.full(shape, i, np.int32)), bcast(pj), perm)

  return [lax.fori_loop(np.int32(0), np.int32(k), swap, idx)]


lu_pivots_to_permutation_p = linalg_primitive(
    "lu_pivots_to_permutation", _perm_abstract_eval, None, multiple_results=False)
lu_pivots_to_permutation_p.lowering = lambda ctx, p, *, permutation_size: lower_fn(
    ctx, lambda x: _apply_swaps(x, permutation_size), [p], ctx.avals_in)[0]
ad.zero_jvp(lu_pivots_to_permutation_p)


def lu_pivots_to_permutation(pivots, permutation_size: int):
  """The permutation made by applying the row swaps ``pivots`` in order."""
  return lu_pivots_to_permutation_p.bind(pivots, permutation_size=int(permutation_size))


# -- lu -------------------------------------------------------------------------------------

def _abstract_eval(a):
  check_matrix("lu", a, square=False)
  batch, (m, n) = a.shape[:-2], a.shape[-2:]
  return [ShapedArray(a.shape, a.dtype), ShapedArray(batch + (min(m, n),), np.int32),
          ShapedArray(batch + (m,), np.int32)]


def _kernel(ctx, a):
  aval = ctx.avals_in[0]
  out_aval, piv_aval, perm_aval = ctx.avals_out
  info_aval = ShapedArray(aval.shape[:-2], np.int32)
  factors, ipiv, info = lapack.call(ctx, lapack.target("getrf", aval.dtype), [a], [aval],
                                    [out_aval, piv_aval, info_aval], {}, [True],
                                    [True, False, False])
  m = aval.shape[-2]

  def post(f, p, i):
    pivots = lax.sub(p, np.int32(1))
    return [nan_where_failed(f, lax.ge(i, np.int32(0))), pivots,
            lu_pivots_to_permutation(pivots, m)]
  return lower_fn(ctx, post, [factors, ipiv, info], [out_aval, piv_aval, info_aval])


def _eliminate(a):
  """Gaussian elimination with partial pivoting on one matrix (the non-LAPACK path)."""
  m, n = a.shape
  k = min(m, n)
  rows = lax.broadcasted_iota(np.int32, (m, n), 0)
  cols = lax.broadcasted_iota(np.int32, (m, n), 1)
  ridx = lax.iota(np.int32, m)

  def step(j, carry):
    a, pivots = carry
    column = lax.squeeze(lax.dynamic_slice_in_dim(a, j, 1, 1), (1,))
    mag = lax.abs(column)
    mag = lax.select(lax.ge(ridx, j), mag, lax.full((m,), -1, mag.dtype))
    p = lax.argmax(mag, 0, np.int32)
    row_j = lax.dynamic_slice_in_dim(a, j, 1, 0)
    row_p = lax.dynamic_slice_in_dim(a, p, 1, 0)
    a = lax.select(lax.eq(rows, j), lax.broadcast_in_dim(row_p, (m, n), (0, 1)),
                   lax.select(lax.eq(rows, p), lax.broadcast_in_dim(row_j, (m, n), (0, 1)), a))
    pivots = lax.dynamic_update_index_in_dim(pivots, lax.reshape(p, (1,)), j, 0)
    pivot = lax.dynamic_slice(a, (j, j), (1, 1))
    column = lax.dynamic_slice_in_dim(a, j, 1, 1)
    below = lax.gt(rows, j)
    nonzero = lax.ne(pivot, lax.full((1, 1), 0, a.dtype))  # LAPACK skips a zero pivot
    safe = lax.select(nonzero, pivot, lax.full((1, 1), 1, a.dtype))
    take = lax.bitwise_and(lax.broadcast_in_dim(lax.gt(ridx, j), (m, 1), (0,)),
                           lax.broadcast_in_dim(nonzero, (m, 1), (0, 1)))
    multipliers = lax.select(take, lax.div(column, safe), lax.full((m, 1), 0, a.dtype))
    urow = lax.select(lax.slice_in_dim(lax.gt(cols, j), 0, 1), lax.dynamic_slice_in_dim(a, j, 1, 0),
                      lax.full((1, n), 0, a.dtype))
    a = lax.sub(a, lax.mul(multipliers, urow))
    a = lax.select(lax.bitwise_and(below, lax.eq(cols, j)),
                   lax.broadcast_in_dim(multipliers, (m, n), (0, 1)), a)
    return a, pivots

  a, pivots = lax.fori_loop(np.int32(0), np.int32(k), step,
                            (a, lax.full((k,), 0, np.int32)))
  return [a, pivots, _apply_swaps(pivots, m)[0]]


lu_p = linalg_primitive("lu", _abstract_eval, lowering(_kernel, _eliminate, "lu"))


def _jvp(primals, tangents):
  (a,), (da,) = primals, tangents
  factors, pivots, perm = lu_p.bind(a)
  zeros = [Zero.like(pivots), Zero.like(perm)]
  if type(da) is Zero:
    return (factors, pivots, perm), [Zero.like(factors)] + zeros
  *batch, m, n = a.shape
  k = min(m, n)
  dt = a.dtype
  zero = np.zeros((), dt)[()]
  nb = [(0, 0, 0)] * len(batch)
  l = lax.pad(tril(lax.slice_in_dim(factors, 0, k, axis=len(batch) + 1), -1), zero,
              nb + [(0, 0, 0), (0, m - k, 0)])
  l = lax.add(l, eye(dt, tuple(batch) + (m, m)))
  u = lax.pad(triu(lax.slice_in_dim(factors, 0, k, axis=len(batch))), zero,
              nb + [(0, n - k, 0), (0, 0, 0)])
  u_eye = lax.pad(eye(dt, tuple(batch) + (n - k, n - k)), zero, nb + [(k, 0, 0), (k, 0, 0)])
  u = lax.add(u, u_eye)
  pa = permute_rows(da, perm)
  la = triangular_solve(l, pa, left_side=True, lower=True, unit_diagonal=True)
  lau = triangular_solve(u, la, left_side=False, lower=False)
  dlu = lax.add(matmul(l, tril(lau, -1)), matmul(triu(lau), u))
  return (factors, pivots, perm), [dlu] + zeros


lu_p.jvp = _jvp


def lu(x):
  """``(lu, pivots, permutation)`` of each matrix of ``x`` (see the module docstring)."""
  return tuple(lu_p.bind(x))


def lu_solve(a, b, trans: int = 0):
  """Solves ``a x = b`` (``trans=0``), ``a^T x = b`` (1) or ``a^H x = b`` (2) for matrix
  right-hand sides ``b`` of shape ``(..., n, k)`` with the batch dimensions of ``a``."""
  factors, _, perm = lu(a)
  return solve_factored(factors, perm, b, trans)


def solve_factored(factors, perm, b, trans: int = 0):
  """``lu_solve`` given ``lu``'s packed factors and permutation."""
  if trans == 0:
    y = triangular_solve(factors, permute_rows(b, perm), left_side=True, lower=True,
                         unit_diagonal=True)
    return triangular_solve(factors, y, left_side=True, lower=False)
  conj = trans == 2
  z = triangular_solve(factors, b, left_side=True, lower=False, transpose_a=True,
                       conjugate_a=conj)
  w = triangular_solve(factors, z, left_side=True, lower=True, transpose_a=True,
                       conjugate_a=conj, unit_diagonal=True)
  return permute_rows(w, inverse_permutation(perm))
