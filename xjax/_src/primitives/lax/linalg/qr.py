"""``qr`` and ``householder_product``: QR decomposition by Householder reflections.

On the CPU, LAPACK's geqrf packs the reflectors below ``R`` and orgqr/ungqr multiplies them
out into ``Q`` (geqp3 for the column-pivoted ``qr``, CPU only); elsewhere the same two steps
run as HLO loops.  ``qr``'s JVP is JAX's (see ``_jvp``): for ``m >= n`` with reduced ``Q``,
``dQ = Q (do - Q^H dA R^{-1}) + dA R^{-1}``, ``dR = (Q^H dA R^{-1} - do) R`` with ``do``
the skew-Hermitian part fixed by ``R``'s triangularity.
"""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.avals import ShapedArray
from xjax._src.interpreters import ad
from xjax._src.interpreters.ad import Zero, instantiate
from xjax._src.primitives.lax.control_flow.loops import fori_loop
from xjax._src.primitives.lax.dot import dot_general
from xjax._src.primitives.lax.elementwise import (add, bitwise_and, convert_element_type, div, eq,
                                                  ge, gt, imag, mul, neg, select, sqrt, sub)
from xjax._src.primitives.lax.reductions import reduce_sum
from xjax._src.primitives.lax.shapes import (broadcast_in_dim, concatenate, dynamic_slice_in_dim,
                                             dynamic_update_index_in_dim,
                                             dynamic_update_slice_in_dim, full, iota, pad, reshape,
                                             slice_in_dim, squeeze)
from xjax._src.primitives.lax.linalg import lapack
from xjax._src.primitives.lax.linalg.lu import lu_p, solve_factored
from xjax._src.primitives.lax.linalg.matrices import (conj, eye, matmul, mH, mT, permute_rows, real,
                                                      real_dtype, tril, triu)
from xjax._src.primitives.lax.linalg.rules import (check_matrix, linalg_primitive, lower_fn,
                                                   lowering, per_matrix)
from xjax._src.primitives.lax.linalg.triangular_solve import triangular_solve


def _orgqr(dtype) -> str:
  return "ungqr" if dtypes.is_complex(dtype) else "orgqr"


# -- the HLO algorithms (one matrix) --------------------------------------------------------

def _norm(v):
  return sqrt(reduce_sum(real(mul(conj(v), v)), (0,)))


def geqrf_hlo(a):
  """LAPACK's geqrf on one matrix: ``(reflectors below R, taus)``."""
  m, n = a.shape
  k = min(m, n)
  rdt = real_dtype(a.dtype)
  ridx, cidx = iota(np.int32, m), iota(np.int32, n)

  def step(j, carry):
    a, taus = carry
    column = squeeze(dynamic_slice_in_dim(a, j, 1, 1), (1,))
    x = select(ge(ridx, j), column, full((m,), 0, a.dtype))
    alpha = squeeze(dynamic_slice_in_dim(x, j, 1, 0), (0,))
    rest = select(gt(ridx, j), x, full((m,), 0, a.dtype))
    rest_norm = _norm(rest)
    ar = real(alpha)
    ai = imag(alpha) if dtypes.is_complex(a.dtype) else full((), 0, rdt)
    norm = sqrt(add(add(mul(ar, ar), mul(ai, ai)),
                            mul(rest_norm, rest_norm)))
    trivial = bitwise_and(eq(rest_norm, full((), 0, rdt)),
                              eq(ai, full((), 0, rdt)))
    beta = neg(mul(select(ge(ar, full((), 0, rdt)), full((), 1, rdt),
                                      full((), -1, rdt)), norm))
    beta_c = select(trivial, alpha, convert_element_type(beta, a.dtype))
    tau = select(trivial, full((), 0, a.dtype),
                     div(sub(beta_c, alpha), beta_c))
    denom = select(trivial, full((), 1, a.dtype), sub(alpha, beta_c))
    v = select(eq(ridx, j), full((m,), 1, a.dtype), div(rest, denom))
    # a := H^H a with H = I - tau v v^H
    vha = dot_general(conj(v), a, (((0,), (0,)), ((), ())), precision="highest")
    vha = select(gt(cidx, j), vha, full((n,), 0, a.dtype))  # trailing columns
    update = mul(broadcast_in_dim(mul(conj(tau), v), (m, n), (0,)),
                     broadcast_in_dim(vha, (m, n), (1,)))
    a = sub(a, update)
    column = select(eq(ridx, j), broadcast_in_dim(beta_c, (m,), ()),
                        select(gt(ridx, j), v, column))
    a = dynamic_update_slice_in_dim(a, reshape(column, (m, 1)), j, 1)
    taus = dynamic_update_index_in_dim(taus, reshape(tau, (1,)), j, 0)
    return a, taus

  return fori_loop(np.int32(0), np.int32(k), step, (a, full((k,), 0, a.dtype)))


def householder_product_hlo(a, taus):
  """LAPACK's orgqr on one matrix: the first ``n`` columns of ``H_0 ... H_{k-1}``."""
  m, n = a.shape
  k = taus.shape[0]
  ridx = iota(np.int32, m)

  def step(t, q):
    j = sub(np.int32(k - 1), t)
    col = squeeze(dynamic_slice_in_dim(a, j, 1, 1), (1,))
    v = select(eq(ridx, j), full((m,), 1, a.dtype),
                   select(gt(ridx, j), col, full((m,), 0, a.dtype)))
    tau = squeeze(dynamic_slice_in_dim(taus, j, 1, 0), (0,))
    vhq = dot_general(conj(v), q, (((0,), (0,)), ((), ())), precision="highest")
    return sub(q, mul(broadcast_in_dim(mul(tau, v), (m, n), (0,)),
                              broadcast_in_dim(vhq, (m, n), (1,))))

  return fori_loop(np.int32(0), np.int32(k), step, eye(a.dtype, (m, n)))


# -- householder_product --------------------------------------------------------------------

def _hp_abstract_eval(a, taus):
  check_matrix("householder_product", a, square=False)
  m, n = a.shape[-2:]
  if m < n or taus.shape != a.shape[:-2] + (taus.shape[-1],) or taus.shape[-1] > n \
      or taus.dtype != a.dtype:
    raise ValueError(f"householder_product: a must have shape (..., m, n) with m >= n and "
                     f"taus shape (..., k) with k <= n of a's dtype, got {a.str_short(short_dtypes=True)} "
                     f"and {taus.str_short(short_dtypes=True)}.")
  return ShapedArray(a.shape, a.dtype)


def _hp_kernel(ctx, a, taus):
  a_aval, t_aval = ctx.avals_in
  return lapack.call(ctx, lapack.target(_orgqr(a_aval.dtype), a_aval.dtype), [a, taus],
                     [a_aval, t_aval], [a_aval], {}, [True, False], [True])[0]


householder_product_p = linalg_primitive(
    "householder_product", _hp_abstract_eval,
    lowering(_hp_kernel, lambda a, t: [householder_product_hlo(a, t)], "householder_product",
             multiple_results=False), multiple_results=False, ranks=(2, 1))


def _hp_jvp(primals, tangents):
  """Differentiates the HLO algorithm (the kernel computes the same function)."""
  nbatch = primals[0].ndim - 2
  fn = per_matrix(lambda a, t: [householder_product_hlo(a, t)], nbatch)
  tangents = [instantiate(t) for t in tangents]
  (out,), (dout,) = ad.jvp_flat(fn, list(primals), tangents)
  return householder_product_p.bind(*primals), dout


householder_product_p.jvp = _hp_jvp


def householder_product(a, taus):
  """The product of the Householder reflectors stored below the diagonal of ``a``."""
  return householder_product_p.bind(a, taus)


# -- qr -------------------------------------------------------------------------------------

def _abstract_eval(a, *, pivoting, full_matrices, use_magma):
  check_matrix("qr", a, square=False)
  *batch, m, n = a.shape
  batch = tuple(batch)
  k = m if full_matrices else min(m, n)
  outs = [ShapedArray(batch + (m, k), a.dtype), ShapedArray(batch + (k, n), a.dtype)]
  return outs + [ShapedArray(batch + (n,), np.int32)] if pivoting else outs


def _assemble(packed, taus, a_shape, full_matrices, product):
  """``(q, r)`` from geqrf's output; ``product`` multiplies the reflectors out."""
  *batch, m, n = a_shape
  nb = len(batch)
  k = min(m, n)
  if m < n:
    q_in = slice_in_dim(packed, 0, m, axis=nb + 1)
  elif full_matrices and m > n:
    q_in = pad(packed, np.zeros((), packed.dtype)[()],
                   [(0, 0, 0)] * nb + [(0, 0, 0), (0, m - n, 0)])
  else:
    q_in = packed
  q = product(q_in, taus)
  rows = m if full_matrices else k
  r = triu(slice_in_dim(packed, 0, rows, axis=nb))
  return [q, r]


def _factor(a, pivoting, full_matrices, factor, product):
  """``[q, r]`` (and the 0-based column order ``p``) from ``factor`` (geqrf) or, when
  ``pivoting``, geqp3; a matrix without rows or columns gives JAX's identity ``q`` and
  zero ``r`` (and ``p``)."""
  *batch, m, n = a.shape
  batch = tuple(batch)
  if 0 in (m, n):
    k = m if full_matrices else 0
    q, r = eye(a.dtype, batch + (m, k)), full(batch + (k, n), 0, a.dtype)
    return [q, r, full(batch + (n,), 0, np.int32)] if pivoting else [q, r]
  if not pivoting:
    return _assemble(*factor(a), a.shape, full_matrices, product)
  packed, p, taus = geqp3(a, full(batch + (n,), 0, np.int32))
  return _assemble(packed, taus, a.shape, full_matrices, product) + [sub(p, np.int32(1))]


def _kernel(ctx, a, *, pivoting, full_matrices, use_magma):
  return lower_fn(ctx, lambda a: _factor(a, pivoting, full_matrices, geqrf,
                                         householder_product), [a], ctx.avals_in)


def _fallback(a, *, pivoting, full_matrices, use_magma):
  """The HLO loops (pivoting needs geqp3, which has none: it raises)."""
  return _factor(a, pivoting, full_matrices, geqrf_hlo, householder_product_hlo)


qr_p = linalg_primitive("qr", _abstract_eval, lowering(_kernel, _fallback, "qr"))


def _thin_jvp(q, r, da):
  """``(dq, dr)`` of ``a = q r`` with ``m >= n`` and ``q`` (m, n), from
  ``dA R^{-1}`` and the skew-Hermitian ``do`` fixed by ``r``'s triangularity."""
  dx_rinv = triangular_solve(r, da)  # right side: dA R^{-1}
  qt_dx_rinv = matmul(mH(q), dx_rinv)
  low = tril(qt_dx_rinv, -1)
  do = sub(low, mH(low))
  # plus the diagonal's imaginary part (zero, or NaN where not finite, for real matrices)
  diag_imag = sub(qt_dx_rinv, convert_element_type(real(qt_dx_rinv), qt_dx_rinv.dtype))
  do = add(do, mul(eye(do.dtype, do.shape), diag_imag))
  dq = add(matmul(q, sub(do, qt_dx_rinv)), dx_rinv)
  dr = matmul(sub(qt_dx_rinv, do), r)
  return dq, dr


def _jvp(primals, tangents, *, pivoting, full_matrices, use_magma):
  """JAX's rule: the thin rule above; for a wide ``a = [a1 a2]``, that of the square
  ``a1 = q r1`` and ``dr2 = dq^H a2 + q^H da2``; for the full ``q`` of a tall ``a``, the
  remaining columns by eqs. 32-33 of arXiv:2409.13374.  Pivoting permutes ``da``'s
  columns; the pivots have no tangent."""
  (a,), (da,) = primals, tangents
  outs = qr_p.bind(a, pivoting=pivoting, full_matrices=full_matrices, use_magma=use_magma)
  q, r, *p = outs
  dp = [Zero.like(x) for x in p]
  if type(da) is Zero:
    return outs, [Zero.like(q), Zero.like(r)] + dp
  *batch, m, n = a.shape
  nb = len(batch)
  if pivoting:
    da = mT(permute_rows(mT(da), p[0]))
  if m < n:
    cols = lambda x, lo, hi: slice_in_dim(x, lo, hi, axis=nb + 1)
    dq, dr1 = _thin_jvp(q, cols(r, 0, m), cols(da, 0, m))
    # (a2 is the unpermuted a's, also when pivoting, as in JAX)
    dr2 = add(matmul(mH(dq), cols(a, m, n)), matmul(mH(q), cols(da, m, n)))
    return outs, [dq, concatenate([dr1, dr2], nb + 1)] + dp
  if not full_matrices or m == n:
    return outs, list(_thin_jvp(q, r, da)) + dp
  rows = lambda x, lo, hi: slice_in_dim(x, lo, hi, axis=nb)
  q_mn, q_mp = slice_in_dim(q, 0, n, axis=nb + 1), slice_in_dim(q, n, m, axis=nb + 1)
  dq_mn, dr_nn = _thin_jvp(q_mn, rows(r, 0, n), da)
  q_nn, q_pn = rows(q_mn, 0, n), rows(q_mn, n, m)
  dq_nn, dq_pn = rows(dq_mn, 0, n), rows(dq_mn, n, m)  # (first: JAX's order of cotangents)
  # z = q_pn (q_nn - I)^{-1}, from (q_nn - I)^H z^H = q_pn^H
  factors, _, perm = lu_p.bind(sub(q_nn, eye(q.dtype, q_nn.shape)))
  z_h = solve_factored(factors, perm, mH(q_pn), 2)
  z = mH(z_h)
  dq_mp = sub(matmul(dq_mn, z_h),
              matmul(add(q_mn, matmul(q_mp, z)), mH(sub(dq_pn, matmul(z, dq_nn)))))
  dq = concatenate([dq_mn, dq_mp], nb + 1)
  dr = concatenate([dr_nn, full(tuple(batch) + (m - n, n), 0, a.dtype)], nb)
  return outs, [dq, dr] + dp


qr_p.jvp = _jvp


def qr(x, *, pivoting: bool = False, full_matrices: bool = True, use_magma: bool | None = None):
  """``(q, r)`` with ``x = q @ r`` (``(q, r, p)`` with ``x[..., p] = q @ r`` when
  ``pivoting``: LAPACK's column-pivoted geqp3, CPU only); ``q`` is (..., m, m) when
  ``full_matrices``, else (..., m, min(m, n)).  ``use_magma`` (GPU) is ignored."""
  return tuple(qr_p.bind(x, pivoting=bool(pivoting), full_matrices=bool(full_matrices),
                         use_magma=use_magma))


# -- geqrf and ormqr: the packed factorization, and products with its Q ----------------------

def _geqrf_abstract_eval(a):
  check_matrix("geqrf", a, square=False)
  *batch, m, n = a.shape
  return [ShapedArray(a.shape, a.dtype), ShapedArray(tuple(batch) + (min(m, n),), a.dtype)]


def _geqrf_kernel(ctx, a):
  aval, t_aval = ctx.avals_out
  return lapack.call(ctx, lapack.target("geqrf", aval.dtype), [a], [aval], [aval, t_aval],
                     {}, [True], [True, False])


geqrf_p = linalg_primitive("geqrf", _geqrf_abstract_eval,
                           lowering(_geqrf_kernel, lambda a: list(geqrf_hlo(a)), "geqrf"))


def geqrf(a):
  """LAPACK's QR factorization: ``(R with the Householder reflectors below it, taus)``
  (what ``jnp.linalg.qr(mode="raw")`` returns, transposed)."""
  packed, taus = geqrf_p.bind(a)
  return packed, taus


def _geqp3_abstract_eval(a, jpvt):
  check_matrix("geqp3", a, square=False)
  *batch, m, n = a.shape
  if jpvt.shape != tuple(batch) + (n,) or not dtypes.is_integer(jpvt.dtype):
    raise ValueError(f"geqp3: jpvt must be integers of shape {tuple(batch) + (n,)}, got "
                     f"{jpvt.str_short(short_dtypes=True)}.")
  return [ShapedArray(a.shape, a.dtype), ShapedArray(jpvt.shape, jpvt.dtype),
          ShapedArray(tuple(batch) + (min(m, n),), a.dtype)]


def _geqp3_kernel(ctx, a, jpvt):
  return lapack.call(ctx, lapack.target("geqp3", ctx.avals_in[0].dtype), [a, jpvt],
                     list(ctx.avals_in), list(ctx.avals_out), {}, [True, False],
                     [True, False, False])


geqp3_p = linalg_primitive("geqp3", _geqp3_abstract_eval,
                           lowering(_geqp3_kernel, None, "geqp3"), ranks=(2, 1))


def geqp3(a, jpvt):
  """LAPACK's column-pivoted QR factorization: ``(packed R and reflectors, jpvt, taus)``
  with ``a[:, jpvt - 1] = Q R`` (1-based pivots; nonzero entries of the input ``jpvt`` pin
  columns to the front)."""
  packed, pivots, taus = geqp3_p.bind(a, jpvt)
  return packed, pivots, taus


def _ormqr_abstract_eval(a, taus, c, *, left, transpose):
  check_matrix("ormqr", a, square=False)
  m = a.shape[-2]
  side = c.shape[-2] if left else c.shape[-1]
  if c.ndim != a.ndim or side != m or taus.shape[-1] > min(a.shape[-2:]) or \
      len({a.dtype, taus.dtype, c.dtype}) != 1:
    raise ValueError(f"ormqr: a (..., m, n), taus (..., k) with k <= min(m, n) and c with m "
                     f"{'rows' if left else 'columns'}, all of one dtype; got {a.str_short(short_dtypes=True)}, "
                     f"{taus.str_short(short_dtypes=True)} and {c.str_short(short_dtypes=True)}.")
  return ShapedArray(c.shape, c.dtype)


def _ormqr_fn(a, taus, c, *, left, transpose):
  """``Q c`` (``Q^H c`` when ``transpose``; ``c Q`` / ``c Q^H`` when not ``left``), with Q
  the m x m product of the reflectors (the columns past ``a``'s are identity)."""
  m, n = a.shape
  if n < m:
    a = pad(a, np.zeros((), a.dtype)[()], [(0, 0, 0), (0, m - n, 0)])
  elif n > m:
    a = slice_in_dim(a, 0, m, axis=1)
  q = householder_product(a, taus)
  if transpose:
    q = mH(q)
  return [matmul(q, c) if left else matmul(c, q)]


def _ormqr_kernel(ctx, a, taus, c, *, left, transpose):
  a_aval, t_aval, c_aval = ctx.avals_in
  base = "unmqr" if dtypes.is_complex(a_aval.dtype) else "ormqr"
  return lapack.call(ctx, lapack.target(base, a_aval.dtype), [a, taus, c],
                     [a_aval, t_aval, c_aval], [c_aval],
                     {"left": str(left).lower(), "transpose": str(transpose).lower()},
                     [True, False, True], [True])[0]


ormqr_p = linalg_primitive("ormqr", _ormqr_abstract_eval,
                           lowering(_ormqr_kernel, _ormqr_fn, "ormqr", multiple_results=False),
                           multiple_results=False, ranks=(2, 1, 2))


def ormqr(a, taus, c, *, left: bool = True, transpose: bool = False):
  """``c`` multiplied by the Q of a ``geqrf`` factorization (``a``, ``taus``): ``Q c``,
  ``Q^H c`` (``transpose``), ``c Q`` or ``c Q^H`` (not ``left``)."""
  return ormqr_p.bind(a, taus, c, left=bool(left), transpose=bool(transpose))
