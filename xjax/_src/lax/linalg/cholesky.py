"""``cholesky``: the lower factor ``L`` of a Hermitian positive-definite ``a = L L^H``.

LAPACK's potrf on the CPU, ``stablehlo.cholesky`` elsewhere.  The strict upper triangle is
zeroed; a matrix that is not positive definite gives NaNs, as in JAX.  The JVP is
``L phi(L^{-1} da L^{-H})`` with ``phi`` the lower triangle with a halved diagonal.
"""
from __future__ import annotations

import numpy as np

from xjax._src import dtypes
from xjax._src.core.avals import ShapedArray
from xjax._src.interpreters.ad import Zero, instantiate
from xjax._src.lax import lax
from xjax._src.lax.linalg import lapack
from xjax._src.lax.linalg.matrices import eye, matmul, nan_where_failed, symmetrize, tril
from xjax._src.lax.linalg.rules import check_matrix, linalg_primitive, lower_fn
from xjax._src.lax.linalg.triangular_solve import triangular_solve


def _abstract_eval(a):
  check_matrix("cholesky", a)
  return ShapedArray(a.shape, a.dtype)


def _lowering(ctx, a):
  aval = ctx.avals_in[0]
  batch = aval.shape[:-2]
  info_aval = ShapedArray(batch, np.int32)
  if lapack.available(aval.dtype):
    factor, info = lapack.call(ctx, lapack.target("potrf", aval.dtype), [a], [aval],
                               [aval, info_aval], {"uplo": lapack.flag("L")}, [True],
                               [True, False])
    return lower_fn(ctx, lambda f, i: [nan_where_failed(tril(f), lax.eq(i, np.int32(0)))],
                    [factor, info], [aval, info_aval])[0]
  factor = ctx.op("stablehlo.cholesky", [a], aval, {"lower": "true"})
  # stablehlo.cholesky leaves NaNs on failure; keep the strict upper triangle zero.
  return lower_fn(ctx, lambda f: [_nan_unless_finite(tril(f))], [factor], [aval])[0]


def _nan_unless_finite(f):
  finite = lax.is_finite(lax.real(f) if dtypes.is_complex(f.dtype) else f)
  return nan_where_failed(f, lax.reduce_and(finite, (f.ndim - 2, f.ndim - 1)))


cholesky_p = linalg_primitive("cholesky", _abstract_eval, _lowering, multiple_results=False)


def _phi(x):
  """The lower triangle with its diagonal halved."""
  s = x.shape
  return lax.mul(tril(x), lax.sub(lax.full(s, 1, x.dtype),
                                  lax.mul(eye(x.dtype, s), lax.full(s, 0.5, x.dtype))))


def _jvp(primals, tangents):
  (a,), (da,) = primals, tangents
  factor = cholesky_p.bind(a)
  if type(da) is Zero:
    return factor, da
  da = instantiate(da)
  tmp = triangular_solve(factor, da, left_side=False, transpose_a=True, conjugate_a=True,
                         lower=True)
  inner = triangular_solve(factor, tmp, left_side=True, transpose_a=False, lower=True)
  return factor, matmul(factor, _phi(inner))


cholesky_p.jvp = _jvp


def cholesky(x, *, symmetrize_input: bool = True):
  """The lower Cholesky factor of each matrix of ``x`` (NaNs where not positive definite)."""
  if symmetrize_input:
    x = symmetrize(x)
  return cholesky_p.bind(x)
