"""``eigh``: eigenvectors and (ascending, real) eigenvalues of Hermitian matrices.

LAPACK's syevd/heevd on the CPU.  The JVP is JAX's: with ``V^H dA V = S``,
``dw = re(diag S)`` and ``dV = V (F * S)`` where ``F[i, j] = 1 / (w[j] - w[i])`` off the
diagonal and 0 on it.
"""
from __future__ import annotations

import numpy as np

from xjax._src.core.avals import ShapedArray
from xjax._src.interpreters.ad import Zero
from xjax._src.lax import lax
from xjax._src.lax.linalg import lapack
from xjax._src.lax.linalg.matrices import (diagonal, eye, matmul, mH, nan_where_failed, real,
                                           real_dtype, symmetrize)
from xjax._src.lax.linalg.rules import check_matrix, linalg_primitive, lower_fn, lowering


def _abstract_eval(a, *, lower, sort_eigenvalues):
  check_matrix("eigh", a)
  return [ShapedArray(a.shape, a.dtype), ShapedArray(a.shape[:-1], real_dtype(a.dtype))]


def _kernel(ctx, a, *, lower, sort_eigenvalues):
  aval = ctx.avals_in[0]
  v_aval, w_aval = ctx.avals_out
  info_aval = ShapedArray(aval.shape[:-2], np.int32)
  base = "heevd" if np.issubdtype(aval.dtype, np.complexfloating) else "syevd"
  v, w, info = lapack.call(ctx, lapack.target(base, aval.dtype), [a], [aval],
                           [v_aval, w_aval, info_aval],
                           {"mode": lapack.flag("V"), "uplo": lapack.flag("L" if lower else "U")},
                           [True], [True, False, False])

  def post(v, w, i):
    ok = lax.eq(i, np.int32(0))
    return [nan_where_failed(v, ok), nan_where_failed(w, ok)]
  return lower_fn(ctx, post, [v, w, info], [v_aval, w_aval, info_aval])


eigh_p = linalg_primitive("eigh", _abstract_eval, lowering(_kernel, None, "eigh"))


def _jvp(primals, tangents, *, lower, sort_eigenvalues):
  (a,), (da,) = primals, tangents
  v, w = eigh_p.bind(a, lower=lower, sort_eigenvalues=sort_eigenvalues)
  if type(da) is Zero:
    return (v, w), [Zero.like(v), Zero.like(w)]
  wc = lax.convert_element_type(w, a.dtype)
  s = a.shape
  ident = eye(a.dtype, s)
  diff = lax.sub(lax.broadcast_in_dim(wc, s, tuple(range(len(s) - 2)) + (len(s) - 1,)),
                 lax.broadcast_in_dim(wc, s, tuple(range(len(s) - 1))))
  f = lax.sub(lax.div(lax.full(s, 1, a.dtype), lax.add(ident, diff)), ident)
  vh_da_v = matmul(matmul(mH(v), da), v)
  dv = matmul(v, lax.mul(f, vh_da_v))
  dw = real(diagonal(vh_da_v))
  return (v, w), [dv, dw]


eigh_p.jvp = _jvp


def eigh(x, *, lower: bool = True, symmetrize_input: bool = True,
         sort_eigenvalues: bool = True, subset_by_index=None):
  """``(v, w)``: eigenvectors (columns) and ascending eigenvalues of Hermitian ``x``;
  ``subset_by_index=(lo, hi)`` keeps eigenpairs ``lo <= i < hi``."""
  if symmetrize_input:
    x = symmetrize(x)
  v, w = eigh_p.bind(x, lower=lower, sort_eigenvalues=sort_eigenvalues)
  if subset_by_index is not None:
    lo, hi = subset_by_index
    n = w.shape[-1]
    if not 0 <= lo <= hi <= n:
      raise ValueError(f"eigh: subset_by_index={subset_by_index} must satisfy "
                       f"0 <= lo <= hi <= {n}.")
    v = lax.slice_in_dim(v, lo, hi, axis=v.ndim - 1)
    w = lax.slice_in_dim(w, lo, hi, axis=w.ndim - 1)
  return v, w
