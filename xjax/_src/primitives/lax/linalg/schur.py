"""``schur`` (``a = Z T Z^H``, LAPACK's gees) and ``hessenberg`` (LAPACK's gehrd: the
Hessenberg form with the reflectors packed below it).  CPU only and not differentiable,
as in JAX.
"""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.avals import ShapedArray
from xjax._src.primitives.lax.elementwise import eq
from xjax._src.primitives.lax.linalg import lapack
from xjax._src.primitives.lax.linalg.matrices import nan_where_failed
from xjax._src.primitives.lax.linalg.rules import check_matrix, linalg_primitive, lower_fn, lowering


def _no_jvp(name):
  def jvp(primals, tangents, **params):
    raise NotImplementedError(f"Differentiation rule for '{name}' not implemented")
  return jvp


def _schur_abstract_eval(a, *, compute_schur_vectors):
  check_matrix("schur", a)
  return [ShapedArray(a.shape, a.dtype)] * (2 if compute_schur_vectors else 1)


def _schur_kernel(ctx, a, *, compute_schur_vectors):
  aval = ctx.avals_in[0]
  batch = aval.shape[:-2]
  i_aval = ShapedArray(batch, np.int32)
  w = ([ShapedArray(aval.shape[:-1], aval.dtype)] if dtypes.is_complex(aval.dtype)
       else [ShapedArray(aval.shape[:-1], aval.dtype)] * 2)
  outs = lapack.call(ctx, lapack.target("gees", aval.dtype), [a], [aval],
                     [aval, aval, *w, i_aval, i_aval],
                     {"mode": lapack.flag("V" if compute_schur_vectors else "N"),
                      "sort": lapack.flag("N")}, [True],
                     [True, True] + [False] * (len(w) + 2))
  t, vs, info = outs[0], outs[1], outs[-1]

  def post(t, vs, info):
    ok = eq(info, np.int32(0))
    res = [nan_where_failed(t, ok)]
    return res + [nan_where_failed(vs, ok)] if compute_schur_vectors else res
  return lower_fn(ctx, post, [t, vs, info], [aval, aval, i_aval])


schur_p = linalg_primitive("schur", _schur_abstract_eval,
                           lowering(_schur_kernel, None, "schur"))
schur_p.jvp = _no_jvp("schur")


def schur(x, *, compute_schur_vectors: bool = True, sort_eig_vals: bool = False,
          select_callable=None):
  """``(T, Z)``: the Schur form (upper triangular for complex input, quasi-triangular for
  real) and the unitary Schur vectors."""
  if sort_eig_vals or select_callable is not None:
    raise NotImplementedError("schur: sorting the eigenvalues is not supported.")
  return tuple(schur_p.bind(x, compute_schur_vectors=bool(compute_schur_vectors)))


def _hessenberg_abstract_eval(a):
  check_matrix("hessenberg", a)
  n = a.shape[-1]
  return [ShapedArray(a.shape, a.dtype), ShapedArray(a.shape[:-2] + (max(n - 1, 0),), a.dtype)]


def _hessenberg_kernel(ctx, a):
  aval = ctx.avals_in[0]
  _, t_aval = ctx.avals_out
  i_aval = ShapedArray(aval.shape[:-2], np.int32)
  n = aval.shape[-1]
  packed, taus, info = lapack.call(ctx, lapack.target("gehrd", aval.dtype), [a], [aval],
                                   [aval, t_aval, i_aval],
                                   {"high": f"{n} : i32", "low": "1 : i32"}, [True],
                                   [True, False, False])

  def post(p, t, info):
    ok = eq(info, np.int32(0))
    return [nan_where_failed(p, ok), nan_where_failed(t, ok)]
  return lower_fn(ctx, post, [packed, taus, info], [aval, t_aval, i_aval])


hessenberg_p = linalg_primitive("hessenberg", _hessenberg_abstract_eval,
                                lowering(_hessenberg_kernel, None, "hessenberg"))
hessenberg_p.jvp = _no_jvp("hessenberg")


def hessenberg(a):
  """``(packed, taus)``: the upper Hessenberg form of ``a`` with the Householder reflectors
  of ``Q`` stored below its first subdiagonal."""
  return tuple(hessenberg_p.bind(a))


