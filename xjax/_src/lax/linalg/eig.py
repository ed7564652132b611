"""``eig``: eigenvalues and left/right eigenvectors of general square matrices (LAPACK's
geev; CPU only, as in JAX).  Results are complex.  Only eigenvalues are differentiable:
``dw = diag(V^{-1} dA V)``.
"""
from __future__ import annotations

import numpy as np

from xjax._src import dtypes
from xjax._src.core.avals import ShapedArray
from xjax._src.interpreters.ad import Zero
from xjax._src.lax import lax
from xjax._src.lax.linalg import lapack
from xjax._src.lax.linalg.matrices import diagonal, matmul, nan_where_failed
from xjax._src.lax.linalg.rules import check_matrix, linalg_primitive, lower_fn, lowering


def _abstract_eval(a, *, compute_left_eigenvectors, compute_right_eigenvectors):
  check_matrix("eig", a)
  c = dtypes.to_complex_dtype(a.dtype)
  outs = [ShapedArray(a.shape[:-1], c)]
  outs += [ShapedArray(a.shape, c)] * (int(compute_left_eigenvectors)
                                       + int(compute_right_eigenvectors))
  return outs


def _kernel(ctx, a, *, compute_left_eigenvectors, compute_right_eigenvectors):
  aval = ctx.avals_in[0]
  c = dtypes.to_complex_dtype(aval.dtype)
  w_aval, v_aval = ShapedArray(aval.shape[:-1], c), ShapedArray(aval.shape, c)
  info_aval = ShapedArray(aval.shape[:-2], np.int32)
  attrs = {"compute_left": lapack.flag("V" if compute_left_eigenvectors else "N"),
           "compute_right": lapack.flag("V" if compute_right_eigenvectors else "N")}
  name = lapack.target("geev", aval.dtype)
  if dtypes.is_complex(aval.dtype):
    w, vl, vr, info = lapack.call(ctx, name, [a], [aval], [w_aval, v_aval, v_aval, info_aval],
                                  attrs, [True], [False, True, True, False])
    parts, part_avals = [w], [w_aval]
  else:
    r_aval = ShapedArray(aval.shape[:-1], aval.dtype)
    wr, wi, vl, vr, info = lapack.call(ctx, name, [a], [aval],
                                       [r_aval, r_aval, v_aval, v_aval, info_aval], attrs,
                                       [True], [False, False, True, True, False])
    parts, part_avals = [wr, wi], [r_aval, r_aval]
  keep = [compute_left_eigenvectors, compute_right_eigenvectors]

  def post(info, vl, vr, *parts):
    ok = lax.eq(info, np.int32(0))
    w = parts[0] if len(parts) == 1 else lax.complex(*parts)
    outs = [w] + [v for v, k in zip((vl, vr), keep) if k]
    return [nan_where_failed(o, ok) for o in outs]
  return lower_fn(ctx, post, [info, vl, vr, *parts], [info_aval, v_aval, v_aval, *part_avals])


eig_p = linalg_primitive("eig", _abstract_eval, lowering(_kernel, None, "eig"))


def _jvp(primals, tangents, *, compute_left_eigenvectors, compute_right_eigenvectors):
  (a,), (da,) = primals, tangents
  if compute_left_eigenvectors or compute_right_eigenvectors:
    raise NotImplementedError(
        "The derivatives of eigenvectors are not implemented, only eigenvalues. "
        "See https://github.com/jax-ml/jax/issues/2748 for discussion.")
  w, vr = eig_p.bind(a, compute_left_eigenvectors=False, compute_right_eigenvectors=True)
  if type(da) is Zero:
    return [w], [Zero.like(w)]
  from xjax._src.lax.linalg.lu import lu_solve
  da = lax.convert_element_type(da, w.dtype)
  return [w], [diagonal(lu_solve(vr, matmul(da, vr)))]


eig_p.jvp = _jvp


def eig(x, *, compute_left_eigenvectors: bool = True, compute_right_eigenvectors: bool = True,
        use_magma=None, implementation=None):
  """``[w, vl?, vr?]``: complex eigenvalues and (normalised) left/right eigenvectors."""
  return eig_p.bind(x, compute_left_eigenvectors=bool(compute_left_eigenvectors),
                    compute_right_eigenvectors=bool(compute_right_eigenvectors))
