"""``svd``: singular value decomposition ``a = U diag(s) V^H`` (LAPACK on the CPU: gesdd,
or gesvd for ``SvdAlgorithm.QR``; Jacobi and polar are GPU/TPU algorithms in JAX).

Singular values are real and descending; ``subset_by_index=(lo, hi)`` keeps ``lo:hi`` of
them (and their vectors) from the full decomposition.  The JVP is JAX's (reduced ``U``/``V``,
or full ones of a square matrix): with ``S = U^H dA V``, ``ds = re(diag S)``; ``dU``/``dV``
use ``F[i, j] = 1 / (s_j^2 - s_i^2)`` (0 on the diagonal; inf/nan for repeated singular
values, as JAX's) plus, for rectangular ``a``, the components outside the span of
``U``/``V``.
"""
from __future__ import annotations

import enum

import numpy as np

from xjax._src.core.avals import ShapedArray
from xjax._src.interpreters.ad import Zero
from xjax._src.primitives.lax.elementwise import add, convert_element_type, div, eq, mul, sub
from xjax._src.primitives.lax.shapes import broadcast_in_dim, full, slice_in_dim
from xjax._src.primitives.lax.linalg import lapack
from xjax._src.primitives.lax.linalg.matrices import (diag, diagonal, eye, matmul, mH,
                                                      nan_where_failed)
from xjax._src.primitives.lax.linalg.matrices import real, real_dtype
from xjax._src.primitives.lax.linalg.rules import check_matrix, linalg_primitive, lower_fn, lowering


class SvdAlgorithm(enum.Enum):
  """SVD algorithms: the CPU runs ``DEFAULT``/``DIVIDE_AND_CONQUER`` (gesdd) and ``QR``
  (gesvd)."""
  DEFAULT = "default"
  QR = "QR"
  JACOBI = "Jacobi"
  POLAR = "polar"
  DIVIDE_AND_CONQUER = "divide_and_conquer"


_KERNELS = {None: "gesdd", SvdAlgorithm.DEFAULT: "gesdd", SvdAlgorithm.QR: "gesvd",
            SvdAlgorithm.DIVIDE_AND_CONQUER: "gesdd"}


def _uv_avals(aval, full_matrices):
  *batch, m, n = aval.shape
  k = min(m, n)
  return (ShapedArray(tuple(batch) + (m, m if full_matrices else k), aval.dtype),
          ShapedArray(tuple(batch) + (n if full_matrices else k, n), aval.dtype))


def _rank_slice(shape, full_matrices, subset_by_index) -> tuple[int, int]:
  """The kept singular values ``lo:hi``."""
  rank = min(shape[-2:])
  if subset_by_index is None:
    return 0, rank
  lo, hi = subset_by_index
  if full_matrices and (lo, hi) != (0, rank):
    raise ValueError("full_matrices and subset_by_index cannot both be set")
  if not 0 <= lo <= hi:
    raise ValueError(f"svd: subset_by_index={subset_by_index} must satisfy 0 <= lo <= hi.")
  return lo, min(hi, rank)


def _abstract_eval(a, *, full_matrices, compute_uv, subset_by_index, algorithm):
  check_matrix("svd", a, square=False)
  lo, hi = _rank_slice(a.shape, full_matrices, subset_by_index)
  batch, (m, n) = a.shape[:-2], a.shape[-2:]
  s = ShapedArray(batch + (hi - lo,), real_dtype(a.dtype))
  if not compute_uv:
    return [s]
  if (lo, hi) != (0, min(m, n)):
    return [s, ShapedArray(batch + (m, hi - lo), a.dtype),
            ShapedArray(batch + (hi - lo, n), a.dtype)]
  return [s, *_uv_avals(a, full_matrices)]


def _kernel(ctx, a, *, full_matrices, compute_uv, subset_by_index, algorithm):
  if algorithm not in _KERNELS:
    raise NotImplementedError("The SVD Jacobi and Polar algorithms are not implemented on CPU.")
  aval = ctx.avals_in[0]
  if 0 in aval.shape[-2:]:
    return lower_fn(ctx, lambda a: _empty_svd(a, full_matrices, compute_uv), [a], [aval])
  lo, hi = _rank_slice(aval.shape, full_matrices, subset_by_index)
  s_aval = ShapedArray(aval.shape[:-2] + (min(aval.shape[-2:]),), real_dtype(aval.dtype))
  u_aval, vt_aval = _uv_avals(aval, full_matrices)
  info_aval = ShapedArray(aval.shape[:-2], np.int32)
  mode = ("A" if full_matrices else "S") if compute_uv else "N"
  _, s, u, vt, info = lapack.call(ctx, lapack.target(_KERNELS[algorithm], aval.dtype), [a],
                                  [aval], [aval, s_aval, u_aval, vt_aval, info_aval],
                                  {"mode": lapack.flag(mode)}, [True],
                                  [True, False, True, True, False])
  outs, avals = ([s, u, vt], [s_aval, u_aval, vt_aval]) if compute_uv else ([s], [s_aval])

  def post(i, *outs):
    ok = eq(i, np.int32(0))
    return [nan_where_failed(x, ok) for x in _subset(outs, lo, hi)]
  return lower_fn(ctx, post, [info, *outs], [info_aval, *avals])


def _subset(outs, lo, hi):
  """``[s, u?, vt?]`` restricted to the singular values ``lo:hi``."""
  s, *uv = outs
  if (lo, hi) == (0, s.shape[-1]):
    return list(outs)
  kept = [slice_in_dim(s, lo, hi, axis=s.ndim - 1)]
  if uv:
    u, vt = uv
    kept += [slice_in_dim(u, lo, hi, axis=u.ndim - 1),
             slice_in_dim(vt, lo, hi, axis=vt.ndim - 2)]
  return kept


def _empty_svd(a, full_matrices, compute_uv):
  """The SVD of a matrix with no rows or no columns: no singular values; identity (full) or
  empty factors."""
  *batch, m, n = a.shape
  s = full(tuple(batch) + (0,), 0, real_dtype(a.dtype))
  if not compute_uv:
    return [s]
  u_aval, vt_aval = _uv_avals(ShapedArray(a.shape, a.dtype), full_matrices)
  u, vt = (eye(a.dtype, x.shape) for x in (u_aval, vt_aval))
  return [s, u, vt]


svd_p = linalg_primitive("svd", _abstract_eval, lowering(_kernel, None, "svd"))


def _jvp(primals, tangents, *, full_matrices, compute_uv, subset_by_index, algorithm):
  (a,), (da,) = primals, tangents
  if compute_uv and full_matrices and a.shape[-2] != a.shape[-1]:
    raise NotImplementedError(
        "Singular value decomposition JVP not implemented for full matrices")
  s, u, vt = svd_p.bind(a, full_matrices=False, compute_uv=True, subset_by_index=None,
                        algorithm=algorithm)
  lo, hi = _rank_slice(a.shape, full_matrices, subset_by_index)
  outs = _subset([s, u, vt] if compute_uv else [s], lo, hi)
  if type(da) is Zero:
    return outs, [Zero.like(o) for o in outs]
  dt = a.dtype
  v = mH(vt)
  ds_mat = matmul(matmul(mH(u), da), v)
  ds = real(diagonal(ds_mat))
  if not compute_uv:
    return outs, _subset([ds], lo, hi)
  k = s.shape[-1]
  nb = s.ndim - 1
  sq = broadcast_in_dim(s, s.shape[:-1] + (k, k), tuple(range(nb)) + (nb + 1,))
  sqt = broadcast_in_dim(s, s.shape[:-1] + (k, k), tuple(range(nb + 1)))
  diffs = mul(add(sq, sqt), sub(sq, sqt))
  ident = eye(s.dtype, diffs.shape)  # (only the diagonal is guarded: repeated values blow up)
  f = sub(div(full(diffs.shape, 1, s.dtype), add(diffs, ident)), ident)
  f = convert_element_type(f, dt)
  s_c = convert_element_type(sq, dt)      # s_j along columns
  st_c = convert_element_type(sqt, dt)    # s_i along rows
  dss = mul(s_c, ds_mat)
  sds = mul(st_c, ds_mat)
  s_zero = convert_element_type(eq(s, full(s.shape, 0, s.dtype)), s.dtype)
  s_inv = sub(div(full(s.shape, 1, s.dtype), add(s, s_zero)), s_zero)
  half = full((), 0.5, dt)
  dudv_diag = mul(mul(half, sub(ds_mat, mH(ds_mat))),
                      convert_element_type(diag(s_inv), dt))
  du = matmul(u, add(mul(f, add(dss, mH(dss))), dudv_diag))
  dv = matmul(v, mul(f, add(sds, mH(sds))))
  m, n = a.shape[-2:]
  by_column = lambda rows: convert_element_type(
      broadcast_in_dim(s, s.shape[:-1] + (rows, k), tuple(range(nb)) + (nb + 1,)), dt)
  if m > n:
    dav = matmul(da, v)
    du = add(du, div(sub(dav, matmul(u, matmul(mH(u), dav))), by_column(m)))
  if n > m:
    dahu = matmul(mH(da), u)
    dv = add(dv, div(sub(dahu, matmul(v, matmul(vt, dahu))), by_column(n)))
  return outs, _subset([ds, du, mH(dv)], lo, hi)


svd_p.jvp = _jvp


def svd(x, *, full_matrices: bool = True, compute_uv: bool = True, subset_by_index=None,
        algorithm: SvdAlgorithm | None = None):
  """``(u, s, vh)`` (or ``s`` alone when not ``compute_uv``); ``s`` descending."""
  if subset_by_index is not None:
    subset_by_index = tuple(map(int, subset_by_index))
  outs = svd_p.bind(x, full_matrices=bool(full_matrices), compute_uv=bool(compute_uv),
                    subset_by_index=subset_by_index, algorithm=algorithm)
  if compute_uv:
    s, u, vt = outs
    return u, s, vt
  return outs[0]
