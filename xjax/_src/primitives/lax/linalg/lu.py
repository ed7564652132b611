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
from xjax._src.primitives.lax.control_flow.loops import fori_loop
from xjax._src.primitives.lax.elementwise import (abs as lax_abs, add, bitwise_and, div, eq, ge, gt,
                                                  mul, ne, select, sub)
from xjax._src.primitives.lax.reductions import argmax, reduce_sum
from xjax._src.primitives.lax.shapes import (broadcast_in_dim, broadcasted_iota, dynamic_slice,
                                             dynamic_slice_in_dim, dynamic_update_index_in_dim,
                                             full, iota, pad, reshape, slice_in_dim, squeeze)
from xjax._src.primitives.lax.linalg import lapack
from xjax._src.primitives.lax.linalg.matrices import (eye, inverse_permutation, matmul,
                                                      nan_where_failed, permute_rows, tril, triu)
from xjax._src.primitives.lax.linalg.rules import check_matrix, linalg_primitive, lower_fn, lowering
from xjax._src.primitives.lax.linalg.triangular_solve import triangular_solve


# -- lu_pivots_to_permutation ---------------------------------------------------------------

def _perm_abstract_eval(pivots, *, permutation_size):
  if pivots.ndim < 1 or pivots.dtype != np.int32:
    raise ValueError(f"lu_pivots_to_permutation: pivots must be an int32 array of rank >= 1, "
                     f"got {pivots.str_short(short_dtypes=True)}.")
  if permutation_size < pivots.shape[-1]:
    raise ValueError(f"lu_pivots_to_permutation: permutation_size {permutation_size} is "
                     f"smaller than the number of pivots {pivots.shape[-1]}.")
  return ShapedArray(pivots.shape[:-1] + (permutation_size,), np.int32)


def _apply_swaps(pivots, permutation_size):
  """Applies the swaps ``i <-> pivots[..., i]`` in order to the identity permutation."""
  batch, k = pivots.shape[:-1], pivots.shape[-1]
  shape = batch + (permutation_size,)
  last = len(shape) - 1
  idx = broadcasted_iota(np.int32, shape, last)
  if k == 0:  # no swaps (an empty matrix)
    return [idx]
  col = lambda x, i: squeeze(dynamic_slice_in_dim(x, i, 1, last), (last,))

  def swap(i, perm):
    j = col(pivots, i)
    jb = broadcast_in_dim(j, shape, tuple(range(len(batch))))
    pi = col(perm, i)
    pj = reduce_sum(select(eq(idx, jb), perm, full(shape, 0, np.int32)),
                        (last,))
    bcast = lambda v: broadcast_in_dim(v, shape, tuple(range(len(batch))))
    perm = select(eq(idx, jb), bcast(pi), perm)
    return select(eq(idx, full(shape, i, np.int32)), bcast(pj), perm)

  return [fori_loop(np.int32(0), np.int32(k), swap, idx)]


lu_pivots_to_permutation_p = linalg_primitive(
    "lu_pivots_to_permutation", _perm_abstract_eval, None, multiple_results=False,
    ranks=(1,))
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
    pivots = sub(p, np.int32(1))
    return [nan_where_failed(f, ge(i, np.int32(0))), pivots,
            lu_pivots_to_permutation(pivots, m)]
  return lower_fn(ctx, post, [factors, ipiv, info], [out_aval, piv_aval, info_aval])


def _eliminate(a):
  """Gaussian elimination with partial pivoting on one matrix (the non-LAPACK path)."""
  m, n = a.shape
  k = min(m, n)
  rows = broadcasted_iota(np.int32, (m, n), 0)
  cols = broadcasted_iota(np.int32, (m, n), 1)
  ridx = iota(np.int32, m)

  def step(j, carry):
    a, pivots = carry
    column = squeeze(dynamic_slice_in_dim(a, j, 1, 1), (1,))
    mag = lax_abs(column)
    mag = select(ge(ridx, j), mag, full((m,), -1, mag.dtype))
    p = argmax(mag, 0, np.int32)
    row_j = dynamic_slice_in_dim(a, j, 1, 0)
    row_p = dynamic_slice_in_dim(a, p, 1, 0)
    a = select(eq(rows, j), broadcast_in_dim(row_p, (m, n), (0, 1)),
                   select(eq(rows, p), broadcast_in_dim(row_j, (m, n), (0, 1)), a))
    pivots = dynamic_update_index_in_dim(pivots, reshape(p, (1,)), j, 0)
    pivot = dynamic_slice(a, (j, j), (1, 1))
    column = dynamic_slice_in_dim(a, j, 1, 1)
    below = gt(rows, j)
    nonzero = ne(pivot, full((1, 1), 0, a.dtype))  # LAPACK skips a zero pivot
    safe = select(nonzero, pivot, full((1, 1), 1, a.dtype))
    take = bitwise_and(broadcast_in_dim(gt(ridx, j), (m, 1), (0,)),
                           broadcast_in_dim(nonzero, (m, 1), (0, 1)))
    multipliers = select(take, div(column, safe), full((m, 1), 0, a.dtype))
    urow = select(slice_in_dim(gt(cols, j), 0, 1), dynamic_slice_in_dim(a, j, 1, 0),
                      full((1, n), 0, a.dtype))
    a = sub(a, mul(multipliers, urow))
    a = select(bitwise_and(below, eq(cols, j)),
                   broadcast_in_dim(multipliers, (m, n), (0, 1)), a)
    return a, pivots

  a, pivots = fori_loop(np.int32(0), np.int32(k), step,
                            (a, full((k,), 0, np.int32)))
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
  l = pad(tril(slice_in_dim(factors, 0, k, axis=len(batch) + 1), -1), zero,
              nb + [(0, 0, 0), (0, m - k, 0)])
  l = add(l, eye(dt, tuple(batch) + (m, m)))
  u = pad(triu(slice_in_dim(factors, 0, k, axis=len(batch))), zero,
              nb + [(0, n - k, 0), (0, 0, 0)])
  u_eye = pad(eye(dt, tuple(batch) + (n - k, n - k)), zero, nb + [(k, 0, 0), (k, 0, 0)])
  u = add(u, u_eye)
  pa = permute_rows(da, perm)
  la = triangular_solve(l, pa, left_side=True, lower=True, unit_diagonal=True)
  lau = triangular_solve(u, la, left_side=False, lower=False)
  dlu = add(matmul(l, tril(lau, -1)), matmul(triu(lau), u))
  return (factors, pivots, perm), [dlu] + zeros


lu_p.jvp = _jvp


def lu(x):
  """``(lu, pivots, permutation)`` of each matrix of ``x`` (see the module docstring)."""
  return list(lu_p.bind(x))  # a list, as JAX's


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
