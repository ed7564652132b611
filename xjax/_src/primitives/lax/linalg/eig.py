"""``eig``: eigenvalues and left/right eigenvectors of general square matrices (LAPACK's
geev; CPU only, as in JAX).  Results are complex.  Eigenvalues are differentiable:
``dw = diag(V^{-1} dA V)``; eigenvectors only with ``enable_eigvec_derivs=True``, under
geev's normalisation (unit norm, largest-magnitude component real), as JAX.
"""
from __future__ import annotations

import enum
import warnings

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.avals import ShapedArray
from xjax._src.core.values import get_aval
from xjax._src.interpreters.ad import Zero
from xjax._src.primitives.lax.elementwise import (abs as lax_abs, add, complex as lax_complex, conj,
                                                  convert_element_type, div, eq, imag, mul, neg,
                                                  select, sub)
from xjax._src.primitives.lax.reductions import reduce_max, reduce_min, reduce_sum
from xjax._src.primitives.lax.shapes import broadcast_in_dim, broadcasted_iota, full, transpose
from xjax._src.primitives.lax.linalg import lapack
from xjax._src.primitives.lax.linalg.lu import lu_solve
from xjax._src.primitives.lax.linalg.matrices import (diagonal, eye, matmul, mH, nan_where_failed,
                                                      real)
from xjax._src.primitives.lax.linalg.rules import check_matrix, linalg_primitive, lower_fn, lowering


class EigImplementation(enum.Enum):
  """Implementations of the general eigendecomposition (only ``LAPACK`` runs on the CPU)."""
  CUSOLVER = "cusolver"
  MAGMA = "magma"
  LAPACK = "lapack"


def _abstract_eval(a, *, compute_left_eigenvectors, compute_right_eigenvectors,
                   enable_eigvec_derivs, implementation):
  check_matrix("eig", a)
  c = dtypes.to_complex_dtype(a.dtype)
  outs = [ShapedArray(a.shape[:-1], c)]
  outs += [ShapedArray(a.shape, c)] * (int(compute_left_eigenvectors)
                                       + int(compute_right_eigenvectors))
  return outs


def _kernel(ctx, a, *, compute_left_eigenvectors, compute_right_eigenvectors,
            enable_eigvec_derivs, implementation):
  if implementation is not None and implementation != EigImplementation.LAPACK:
    raise ValueError("Only the lapack implementation is supported on CPU.")
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
    ok = eq(info, np.int32(0))
    w = parts[0] if len(parts) == 1 else lax_complex(*parts)
    outs = [w] + [v for v, k in zip((vl, vr), keep) if k]
    return [nan_where_failed(o, ok) for o in outs]
  return lower_fn(ctx, post, [info, vl, vr, *parts], [info_aval, v_aval, v_aval, *part_avals])


eig_p = linalg_primitive("eig", _abstract_eval, lowering(_kernel, None, "eig"))


def _eigenvector_jvp(w, v, da):
  """``(dw, dv)`` for right eigenvectors ``v`` (columns) of distinct eigenvalues ``w``:
  first-order perturbation theory, ``dv_j = u_j + c_j v_j`` with ``c_j`` fixed by geev's
  normalisation (``re(v_j^H dv_j) = 0`` and the largest-magnitude component stays real)."""
  s = v.shape
  nb = len(s) - 2
  ident = eye(v.dtype, s)
  diff = sub(broadcast_in_dim(w, s, tuple(range(nb)) + (nb + 1,)),
                 broadcast_in_dim(w, s, tuple(range(nb + 1))))
  f = sub(div(full(s, 1, v.dtype), add(ident, diff)), ident)
  p = lu_solve(v, matmul(da, v))
  u = matmul(v, mul(f, p))
  mag = lax_abs(v)
  biggest = eq(mag, broadcast_in_dim(reduce_max(mag, (nb,)), s,
                                             tuple(range(nb)) + (nb + 1,)))
  rows = broadcasted_iota(np.int32, s, nb)
  first = reduce_min(select(biggest, rows, full(s, s[-1], np.int32)), (nb,))
  mask = convert_element_type(
      eq(rows, broadcast_in_dim(first, s, tuple(range(nb)) + (nb + 1,))), v.dtype)
  re_part = neg(real(reduce_sum(mul(conj(v), u), (nb,))))
  im_part = neg(div(imag(reduce_sum(mul(mask, u), (nb,))),
                            real(reduce_sum(mul(mask, v), (nb,)))))
  c = lax_complex(re_part, im_part)
  dv = add(u, mul(v, broadcast_in_dim(c, s, tuple(range(nb)) + (nb + 1,))))
  return diagonal(p), dv


def _jvp(primals, tangents, *, compute_left_eigenvectors, compute_right_eigenvectors,
         enable_eigvec_derivs, implementation):
  (a,), (da,) = primals, tangents
  vectors = compute_left_eigenvectors or compute_right_eigenvectors
  if vectors and not enable_eigvec_derivs:
    raise NotImplementedError(
        "Derivatives of non-symmetric eigenvectors are only valid under assumptions on the "
        "input that xjax cannot check (see the enable_eigvec_derivs argument to "
        "xjax.lax.linalg.eig). Pass enable_eigvec_derivs=True to xjax.lax.linalg.eig to opt "
        "in. See https://github.com/jax-ml/jax/issues/2748 for discussion.")
  outs = eig_p.bind(a, compute_left_eigenvectors=compute_left_eigenvectors,
                    compute_right_eigenvectors=True,
                    enable_eigvec_derivs=enable_eigvec_derivs, implementation=implementation)
  w, vr = outs[0], outs[-1]
  primal_out = [w] + ([outs[1]] if compute_left_eigenvectors else []) + (
      [vr] if compute_right_eigenvectors else [])
  if type(da) is Zero:
    return primal_out, [Zero.like(o) for o in primal_out]
  da = convert_element_type(da, w.dtype)
  if not vectors:   # diag(vr^-1 da vr), row by row as JAX's: (vr^-1 da) * vr^T summed
    nd = get_aval(vr).ndim
    vr_t = transpose(vr, tuple(range(nd - 2)) + (nd - 1, nd - 2))
    return primal_out, [reduce_sum(mul(lu_solve(vr, da), vr_t), (nd - 1,))]
  dw, dvr = _eigenvector_jvp(w, vr, da)
  tangent_out = [dw]
  if compute_left_eigenvectors:
    tangent_out.append(_eigenvector_jvp(conj(w), outs[1], mH(da))[1])
  if compute_right_eigenvectors:
    tangent_out.append(dvr)
  return primal_out, tangent_out


eig_p.jvp = _jvp


def eig(x, *, compute_left_eigenvectors: bool = True, compute_right_eigenvectors: bool = True,
        enable_eigvec_derivs: bool = False, implementation: EigImplementation | None = None,
        use_magma: bool | None = None):
  """``[w, vl?, vr?]``: complex eigenvalues and (normalised) left/right eigenvectors;
  ``use_magma`` is the deprecated spelling of ``implementation``."""
  if use_magma is not None:
    warnings.warn("use_magma is deprecated, please use implementation=EigImplementation.MAGMA "
                  "instead.", DeprecationWarning, stacklevel=2)
    implementation = EigImplementation.MAGMA if use_magma else EigImplementation.LAPACK
  return eig_p.bind(x, compute_left_eigenvectors=bool(compute_left_eigenvectors),
                    compute_right_eigenvectors=bool(compute_right_eigenvectors),
                    enable_eigvec_derivs=bool(enable_eigvec_derivs),
                    implementation=implementation)
