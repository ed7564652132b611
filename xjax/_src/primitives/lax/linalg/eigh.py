"""``eigh``: eigenvectors and (ascending, real) eigenvalues of Hermitian matrices.

LAPACK's syevd/heevd on the CPU (the QR implementation; Jacobi and QDWH are GPU/TPU
algorithms in JAX, refused here as there).  ``subset_by_index=(lo, hi)`` keeps the
eigenpairs ``lo <= i < hi`` of the full decomposition.  The JVP is JAX's: with
``V^H dA V = S``, ``dw = re(diag S)`` and ``dV = V (F * S)`` where
``F[i, j] = 1 / (w[j] - w[i])`` off the diagonal and 0 on it.
"""
from __future__ import annotations

import enum

import numpy as np

from xjax._src.core.avals import ShapedArray
from xjax._src.interpreters.ad import Zero
from xjax._src.primitives.lax.elementwise import add, convert_element_type, div, eq, mul, sub
from xjax._src.primitives.lax.shapes import broadcast_in_dim, full, slice_in_dim
from xjax._src.primitives.lax.linalg import lapack
from xjax._src.primitives.lax.linalg.matrices import (diagonal, eye, matmul, mH, nan_where_failed,
                                                      real, real_dtype, symmetrize)
from xjax._src.primitives.lax.linalg.rules import check_matrix, linalg_primitive, lower_fn, lowering


class EighImplementation(enum.Enum):
  """Algorithms for the Hermitian eigendecomposition (only ``QR`` runs on the CPU)."""
  QR = "qr"
  JACOBI = "jacobi"
  QDWH = "qdwh"


def _subset(n: int, subset_by_index) -> tuple[int, int]:
  lo, hi = (0, n) if subset_by_index is None else subset_by_index
  if not 0 <= lo <= hi <= n:
    raise ValueError(f"eigh: subset_by_index={subset_by_index} must satisfy "
                     f"0 <= lo <= hi <= {n}.")
  return lo, hi


def _abstract_eval(a, *, lower, sort_eigenvalues, subset_by_index, algorithm):
  check_matrix("eigh", a)
  lo, hi = _subset(a.shape[-1], subset_by_index)
  return [ShapedArray(a.shape[:-1] + (hi - lo,), a.dtype),
          ShapedArray(a.shape[:-2] + (hi - lo,), real_dtype(a.dtype))]


def _kernel(ctx, a, *, lower, sort_eigenvalues, subset_by_index, algorithm):
  if algorithm == EighImplementation.QDWH:
    raise NotImplementedError("QDWH implementation is only supported on TPU")
  if algorithm == EighImplementation.JACOBI:
    raise NotImplementedError("Jacobi implementation is not supported on CPU")
  aval = ctx.avals_in[0]
  v_aval = ShapedArray(aval.shape, aval.dtype)
  w_aval = ShapedArray(aval.shape[:-1], real_dtype(aval.dtype))
  info_aval = ShapedArray(aval.shape[:-2], np.int32)
  lo, hi = _subset(aval.shape[-1], subset_by_index)
  base = "heevd" if np.issubdtype(aval.dtype, np.complexfloating) else "syevd"
  v, w, info = lapack.call(ctx, lapack.target(base, aval.dtype), [a], [aval],
                           [v_aval, w_aval, info_aval],
                           {"mode": lapack.flag("V"), "uplo": lapack.flag("L" if lower else "U")},
                           [True], [True, False, False])

  def post(v, w, i):
    ok = eq(i, np.int32(0))
    return [nan_where_failed(_columns(v, lo, hi), ok), nan_where_failed(_columns(w, lo, hi), ok)]
  return lower_fn(ctx, post, [v, w, info], [v_aval, w_aval, info_aval])


def _columns(x, lo, hi):
  """Entries ``lo:hi`` of the last dimension."""
  return x if (lo, hi) == (0, x.shape[-1]) else slice_in_dim(x, lo, hi, axis=x.ndim - 1)


eigh_p = linalg_primitive("eigh", _abstract_eval, lowering(_kernel, None, "eigh"))


def _jvp(primals, tangents, *, lower, sort_eigenvalues, subset_by_index, algorithm):
  (a,), (da,) = primals, tangents
  v, w = eigh_p.bind(a, lower=lower, sort_eigenvalues=sort_eigenvalues, subset_by_index=None,
                     algorithm=algorithm)
  lo, hi = _subset(a.shape[-1], subset_by_index)
  if type(da) is Zero:
    v, w = _columns(v, lo, hi), _columns(w, lo, hi)
    return (v, w), [Zero.like(v), Zero.like(w)]
  wc = convert_element_type(w, a.dtype)
  s = a.shape
  ident = eye(a.dtype, s)
  diff = sub(broadcast_in_dim(wc, s, tuple(range(len(s) - 2)) + (len(s) - 1,)),
                 broadcast_in_dim(wc, s, tuple(range(len(s) - 1))))
  f = sub(div(full(s, 1, a.dtype), add(ident, diff)), ident)
  vh_da_v = matmul(matmul(mH(v), da), v)
  dv = matmul(v, mul(f, vh_da_v))
  dw = real(diagonal(vh_da_v))
  return ((_columns(v, lo, hi), _columns(w, lo, hi)),
          [_columns(dv, lo, hi), _columns(dw, lo, hi)])


eigh_p.jvp = _jvp


def eigh(x, *, lower: bool = True, symmetrize_input: bool = True,
         sort_eigenvalues: bool = True, subset_by_index=None,
         implementation: EighImplementation | None = None):
  """``(v, w)``: eigenvectors (columns) and ascending eigenvalues of Hermitian ``x``;
  ``subset_by_index=(lo, hi)`` keeps eigenpairs ``lo <= i < hi``."""
  if symmetrize_input:
    x = symmetrize(x)
  if subset_by_index is not None:
    subset_by_index = tuple(map(int, subset_by_index))
  v, w = eigh_p.bind(x, lower=lower, sort_eigenvalues=sort_eigenvalues,
                     subset_by_index=subset_by_index, algorithm=implementation)
  return v, w
