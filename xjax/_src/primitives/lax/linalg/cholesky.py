"""``cholesky``: the lower factor ``L`` of a Hermitian positive-definite ``a = L L^H``;
``cholesky_update``: the upper factor of ``R^T R + w w^T`` from that of ``R^T R``.

LAPACK's potrf on the CPU, ``stablehlo.cholesky`` elsewhere.  The strict upper triangle is
zeroed; a matrix that is not positive definite gives NaN in the whole lower triangle (the
upper one stays zero), as in JAX.  The JVP is
``L phi(L^{-1} da L^{-H})`` with ``phi`` the lower triangle with a halved diagonal.
The rank-1 update applies one Givens rotation per row (O(n^2)); its JVP is the Cholesky
JVP of the updated matrix.
"""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.avals import ShapedArray
from xjax._src.interpreters.ad import Zero, instantiate
from xjax._src.primitives.lax.control_flow.loops import fori_loop
from xjax._src.primitives.lax.elementwise import (abs as lax_abs, add, div, eq, is_finite,
                                                  max as lax_max, mul, neg, real, rsqrt, select,
                                                  sub)
from xjax._src.primitives.lax.reductions import reduce_and
from xjax._src.primitives.lax.shapes import (broadcast_in_dim, dynamic_slice_in_dim,
                                             dynamic_update_slice_in_dim, full, reshape, squeeze)
from xjax._src.primitives.lax.linalg import lapack
from xjax._src.primitives.lax.linalg.matrices import (eye, matmul, mT, nan_where_failed, symmetrize,
                                                      tril)
from xjax._src.primitives.lax.linalg.rules import (check_matrix, check_operands, linalg_primitive,
                                                   lower_fn, per_matrix)
from xjax._src.primitives.lax.linalg.triangular_solve import triangular_solve


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
    return lower_fn(ctx, lambda f, i: [tril(nan_where_failed(f, eq(i, np.int32(0))))],
                    [factor, info], [aval, info_aval])[0]
  factor = ctx.op("stablehlo.cholesky", [a], aval, {"lower": "true"})
  # stablehlo.cholesky leaves NaNs on failure: the whole lower triangle becomes NaN.
  return lower_fn(ctx, lambda f: [tril(_nan_unless_finite(tril(f)))], [factor], [aval])[0]


def _nan_unless_finite(f):
  finite = is_finite(real(f) if dtypes.is_complex(f.dtype) else f)
  return nan_where_failed(f, reduce_and(finite, (f.ndim - 2, f.ndim - 1)))


cholesky_p = linalg_primitive("cholesky", _abstract_eval, _lowering, multiple_results=False)


def _phi(x):
  """The lower triangle with its diagonal halved."""
  s = x.shape
  return mul(tril(x), sub(full(s, 1, x.dtype),
                                  mul(eye(x.dtype, s), full(s, 0.5, x.dtype))))


def _factor_tangent(factor, da):
  """The tangent of the lower Cholesky factor ``factor`` of ``a`` for a tangent ``da``."""
  tmp = triangular_solve(factor, da, left_side=False, transpose_a=True, conjugate_a=True,
                         lower=True)
  inner = triangular_solve(factor, tmp, left_side=True, transpose_a=False, lower=True)
  return matmul(factor, _phi(inner))


def _jvp(primals, tangents):
  (a,), (da,) = primals, tangents
  factor = cholesky_p.bind(a)
  if type(da) is Zero:
    return factor, da
  return factor, _factor_tangent(factor, instantiate(da))


cholesky_p.jvp = _jvp


def cholesky(x, *, symmetrize_input: bool = True):
  """The lower Cholesky factor of each matrix of ``x`` (NaNs where not positive definite)."""
  if symmetrize_input:
    x = symmetrize(x)
  return cholesky_p.bind(x)


# -- cholesky_update ------------------------------------------------------------------------

def _update_abstract_eval(r, w):
  check_operands("cholesky_update", [r, w], [2, 1], complex_ok=False)
  if r.shape[-1] != r.shape[-2] or w.shape[-1] != r.shape[-1] or w.shape[:-1] != r.shape[:-2]:
    raise ValueError("Rank-1 update to Cholesky decomposition takes a square matrix and a "
                     f"vector of the same size as input. Got shapes {r.shape} and {w.shape} "
                     "instead")
  return ShapedArray(r.shape, r.dtype)


def _rotate_rows(r, w):
  """One matrix: for each row k, the Givens rotation that zeroes ``w[k]`` against
  ``r[k, k]``, applied to row k of ``r`` and to ``w``."""
  n = r.shape[0]
  zero, one = full((), 0, r.dtype), full((), 1, r.dtype)

  def step(k, carry):
    r, w = carry
    row = squeeze(dynamic_slice_in_dim(r, k, 1, 0), (0,))
    x = squeeze(dynamic_slice_in_dim(row, k, 1, 0), (0,))
    y = squeeze(dynamic_slice_in_dim(w, k, 1, 0), (0,))
    scale = lax_max(lax_abs(x), lax_abs(y))
    safe = select(eq(scale, zero), one, scale)
    xs, ys = div(x, safe), div(y, safe)
    inv = rsqrt(add(mul(xs, xs), mul(ys, ys)))
    trivial = eq(y, zero)
    c = select(trivial, one, mul(xs, inv))
    s = select(trivial, zero, neg(mul(ys, inv)))
    new_row = sub(mul(c, row), mul(s, w))
    w = add(mul(c, w), mul(s, row))
    r = dynamic_update_slice_in_dim(r, reshape(new_row, (1, n)), k, 0)
    return r, w

  return [fori_loop(np.int32(0), np.int32(n), step, (r, w))[0]]


def _update_lowering(ctx, r, w):
  r_aval, w_aval = ctx.avals_in
  return lower_fn(ctx, per_matrix(_rotate_rows, r_aval.ndim - 2), [r, w], [r_aval, w_aval])[0]


cholesky_update_p = linalg_primitive("cholesky_update", _update_abstract_eval,
                                     _update_lowering, multiple_results=False,
                                     ranks=None)  # (JAX's has no sharding rule)


def _update_jvp(primals, tangents):
  (r, w), (dr, dw) = primals, tangents
  out = cholesky_update_p.bind(r, w)
  if type(dr) is Zero and type(dw) is Zero:
    return out, Zero.like(out)
  dr, dw = instantiate(dr), instantiate(dw)
  s = r.shape
  nb = len(s) - 2
  col = lambda v: broadcast_in_dim(v, s, tuple(range(nb + 1)))
  row = lambda v: broadcast_in_dim(v, s, tuple(range(nb)) + (nb + 1,))
  dr_r = matmul(mT(dr), r)
  dw_w = mul(col(dw), row(w))
  da = add(add(dr_r, mT(dr_r)), add(dw_w, mT(dw_w)))
  return out, mT(_factor_tangent(mT(out), da))


cholesky_update_p.jvp = _update_jvp


def cholesky_update(r_matrix, w_vector):
  """The upper-triangular ``R'`` with ``R'^T R' = R^T R + w w^T``, from upper-triangular
  ``R = r_matrix`` and ``w = w_vector``, in O(n^2) (real dtypes)."""
  return cholesky_update_p.bind(r_matrix, w_vector)
