"""``svd``: singular value decomposition ``a = U diag(s) V^H`` (LAPACK's gesdd on the CPU).

Singular values are real and descending.  The JVP is JAX's (reduced ``U``/``V`` only):
with ``S = U^H dA V``, ``ds = re(diag S)``; ``dU``/``dV`` use ``F[i, j] = 1 / (s_j^2 - s_i^2)``
(0 where equal) plus, for rectangular ``a``, the components outside the span of ``U``/``V``.
"""
from __future__ import annotations

import numpy as np

from xjax._src.core.avals import ShapedArray
from xjax._src.interpreters.ad import Zero
from xjax._src.lax import lax
from xjax._src.lax.linalg import lapack
from xjax._src.lax.linalg.matrices import diag, diagonal, matmul, mH, nan_where_failed, real
from xjax._src.lax.linalg.matrices import real_dtype
from xjax._src.lax.linalg.rules import check_matrix, linalg_primitive, lower_fn, lowering


def _uv_avals(aval, full_matrices):
  *batch, m, n = aval.shape
  k = min(m, n)
  return (ShapedArray(tuple(batch) + (m, m if full_matrices else k), aval.dtype),
          ShapedArray(tuple(batch) + (n if full_matrices else k, n), aval.dtype))


def _abstract_eval(a, *, full_matrices, compute_uv):
  check_matrix("svd", a, square=False)
  s = ShapedArray(a.shape[:-2] + (min(a.shape[-2:]),), real_dtype(a.dtype))
  return [s, *_uv_avals(a, full_matrices)] if compute_uv else [s]


def _kernel(ctx, a, *, full_matrices, compute_uv):
  aval = ctx.avals_in[0]
  s_aval = ctx.avals_out[0]
  u_aval, vt_aval = _uv_avals(aval, full_matrices)
  info_aval = ShapedArray(aval.shape[:-2], np.int32)
  mode = ("A" if full_matrices else "S") if compute_uv else "N"
  _, s, u, vt, info = lapack.call(ctx, lapack.target("gesdd", aval.dtype), [a], [aval],
                                  [aval, s_aval, u_aval, vt_aval, info_aval],
                                  {"mode": lapack.flag(mode)}, [True],
                                  [True, False, True, True, False])
  outs = [s, u, vt] if compute_uv else [s]
  avals = list(ctx.avals_out)

  def post(i, *xs):
    ok = lax.eq(i, np.int32(0))
    return [nan_where_failed(x, ok) for x in xs]
  return lower_fn(ctx, post, [info, *outs], [info_aval, *avals])


svd_p = linalg_primitive("svd", _abstract_eval, lowering(_kernel, None, "svd"))


def _jvp(primals, tangents, *, full_matrices, compute_uv):
  (a,), (da,) = primals, tangents
  if compute_uv and full_matrices:
    raise NotImplementedError(
        "Singular value decomposition JVP not implemented for full matrices")
  s, u, vt = svd_p.bind(a, full_matrices=False, compute_uv=True)
  outs = [s, u, vt] if compute_uv else [s]
  if type(da) is Zero:
    return outs, [Zero.like(o) for o in outs]
  dt = a.dtype
  v = mH(vt)
  ds_mat = matmul(matmul(mH(u), da), v)
  ds = real(diagonal(ds_mat))
  if not compute_uv:
    return outs, [ds]
  k = s.shape[-1]
  nb = s.ndim - 1
  sq = lax.broadcast_in_dim(s, s.shape[:-1] + (k, k), tuple(range(nb)) + (nb + 1,))
  sqt = lax.broadcast_in_dim(s, s.shape[:-1] + (k, k), tuple(range(nb + 1)))
  diffs = lax.mul(lax.add(sq, sqt), lax.sub(sq, sqt))
  zero_d = lax.convert_element_type(lax.eq(diffs, lax.full(diffs.shape, 0, s.dtype)), s.dtype)
  f = lax.sub(lax.div(lax.full(diffs.shape, 1, s.dtype), lax.add(diffs, zero_d)), zero_d)
  f = lax.convert_element_type(f, dt)
  s_c = lax.convert_element_type(sq, dt)      # s_j along columns
  st_c = lax.convert_element_type(sqt, dt)    # s_i along rows
  dss = lax.mul(s_c, ds_mat)
  sds = lax.mul(st_c, ds_mat)
  s_zero = lax.convert_element_type(lax.eq(s, lax.full(s.shape, 0, s.dtype)), s.dtype)
  s_inv = lax.sub(lax.div(lax.full(s.shape, 1, s.dtype), lax.add(s, s_zero)), s_zero)
  half = lax.full((), 0.5, dt)
  dudv_diag = lax.mul(lax.mul(half, lax.sub(ds_mat, mH(ds_mat))),
                      lax.convert_element_type(diag(s_inv), dt))
  du = matmul(u, lax.add(lax.mul(f, lax.add(dss, mH(dss))), dudv_diag))
  dv = matmul(v, lax.mul(f, lax.add(sds, mH(sds))))
  m, n = a.shape[-2:]
  by_column = lambda rows: lax.convert_element_type(
      lax.broadcast_in_dim(s, s.shape[:-1] + (rows, k), tuple(range(nb)) + (nb + 1,)), dt)
  if m > n:
    dav = matmul(da, v)
    du = lax.add(du, lax.div(lax.sub(dav, matmul(u, matmul(mH(u), dav))), by_column(m)))
  if n > m:
    dahu = matmul(mH(da), u)
    dv = lax.add(dv, lax.div(lax.sub(dahu, matmul(v, matmul(vt, dahu))), by_column(n)))
  return outs, [ds, du, mH(dv)]


svd_p.jvp = _jvp


def svd(x, *, full_matrices: bool = True, compute_uv: bool = True, subset_by_index=None,
        algorithm=None):
  """``(u, s, vh)`` (or ``s`` alone when not ``compute_uv``); ``s`` descending."""
  outs = svd_p.bind(x, full_matrices=bool(full_matrices), compute_uv=bool(compute_uv))
  if subset_by_index is not None:
    lo, hi = subset_by_index
    s, *uv = outs
    nd = s.ndim
    outs = [lax.slice_in_dim(s, lo, hi, axis=nd - 1)]
    if uv:
      outs += [lax.slice_in_dim(uv[0], lo, hi, axis=nd), lax.slice_in_dim(uv[1], lo, hi,
                                                                          axis=nd - 1)]
  if compute_uv:
    s, u, vt = outs
    return u, s, vt
  return outs[0]
