"""Tridiagonal matrices: ``tridiagonal`` reduces a Hermitian matrix to tridiagonal form
(LAPACK's sytrd/hetrd), ``tridiagonal_solve`` solves ``T x = b`` for a tridiagonal ``T``
given by its three diagonals.

``tridiagonal_solve`` runs LAPACK's gtsv on the CPU (NaNs for a singular system, as JAX),
jaxlib's perturbed-pivot kernel for ``perturb_singular=True``, and elsewhere (or for
dtypes LAPACK lacks) the Thomas algorithm as a scan.  It is linear in ``b``: the JVP solves
again for ``db - dT x``, and the transpose solves with ``T^T``.  ``tridiagonal`` is not
differentiable (as in JAX).
"""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.avals import ShapedArray
from xjax._src.core.values import get_aval
from xjax._src.interpreters import ad, batching
from xjax._src.interpreters.ad import Zero
from xjax._src.primitives.lax.control_flow.loops import scan
from xjax._src.primitives.lax.elementwise import add, div, eq, mul, neg, sub
from xjax._src.primitives.lax.shapes import (broadcast_in_dim, concatenate, expand_dims, full,
                                             index_in_dim, reshape, slice_in_dim)
from xjax._src.primitives.lax.linalg import lapack
from xjax._src.primitives.lax.linalg.matrices import nan_where_failed, real_dtype
from xjax._src.primitives.lax.linalg.rules import (batch_sharding_rule, check_operands,
                                                   linalg_primitive, lower_fn,
                                                   lowering, per_matrix, weak_as_operands)
from xjax._src.primitives.lax.primitive_builders import standard_primitive


# -- tridiagonal ----------------------------------------------------------------------------

def _tridiagonal_abstract_eval(a, *, lower):
  check_operands("tridiagonal", [a], [2])
  if a.shape[-1] != a.shape[-2] or a.shape[-1] == 0:
    raise ValueError(f"The input to tridiagonal must be a square matrix. Got shape "
                     f"{a.shape[-2:]}.")
  lapack.check_dtype("tridiagonal", a.dtype)
  batch, n = a.shape[:-2], a.shape[-1]
  r = real_dtype(a.dtype)
  return [ShapedArray(a.shape, a.dtype), ShapedArray(batch + (n,), r),
          ShapedArray(batch + (n - 1,), r), ShapedArray(batch + (n - 1,), a.dtype)]


def _tridiagonal_kernel(ctx, a, *, lower):
  aval = ctx.avals_in[0]
  info_aval = ShapedArray(aval.shape[:-2], np.int32)
  base = "hetrd" if dtypes.is_complex(aval.dtype) else "sytrd"
  outs = lapack.call(ctx, lapack.target(base, aval.dtype), [a], [aval],
                     [*ctx.avals_out, info_aval], {"uplo": lapack.flag("L" if lower else "U")},
                     [True], [True, False, False, False, False])

  def post(*xs):
    *xs, info = xs
    ok = eq(info, np.int32(0))
    return [nan_where_failed(x, ok) for x in xs]
  return lower_fn(ctx, post, outs, [*ctx.avals_out, info_aval])


tridiagonal_p = linalg_primitive("tridiagonal", _tridiagonal_abstract_eval,
                                 lowering(_tridiagonal_kernel, None, "tridiagonal"))


def tridiagonal(a, *, lower: bool = True):
  """``(a, d, e, taus)``: the reduction ``Q^H a Q = T`` of Hermitian ``a`` to tridiagonal
  ``T`` with diagonal ``d`` and off-diagonal ``e``; ``a``'s other triangle holds the
  Householder reflectors of ``Q`` (scales ``taus``), as LAPACK's sytrd/hetrd packs them."""
  return tridiagonal_p.bind(a, lower=bool(lower))


# -- tridiagonal_solve ----------------------------------------------------------------------

def _solve_abstract_eval(dl, d, du, b, *, perturb_singular):
  check_operands("tridiagonal_solve", [dl, d, du, b], [1, 1, 1, 2])
  if not dl.shape == d.shape == du.shape:
    raise TypeError("tridiagonal_solve requires that all diagonal arguments have the same "
                    "shape.")
  if dl.shape != b.shape[:-1]:
    raise TypeError("tridiagonal_solve requires that the leading ndim-1 dimensions of b "
                    "equal the dimensions of the diagonal arguments.")
  return ShapedArray(b.shape, b.dtype)


def _thomas(dl, d, du, b):
  """The Thomas algorithm for one system (``b`` of shape ``(m, k)``): eliminate the
  subdiagonal going down, substitute back going up."""
  def down(carry, row):
    c_prev, y_prev = carry
    l, dd, u, rhs = row
    denom = sub(dd, mul(l, c_prev))
    c = div(u, denom)
    y = div(sub(rhs, mul(l, y_prev)), denom)
    return (c, y), (c, y)

  m = d.shape[0]
  head = lambda x: index_in_dim(x, 0, keepdims=False)
  tail = lambda x: slice_in_dim(x, 1, m)
  first = (div(head(du), head(d)), div(head(b), head(d)))
  _, (cs, ys) = scan(down, first, (tail(dl), tail(d), tail(du), tail(b)))
  cs = concatenate([expand_dims(first[0], (0,)), cs], 0)
  ys = concatenate([expand_dims(first[1], (0,)), ys], 0)

  def up(x_next, row):
    c, y = row
    x = sub(y, mul(c, x_next))
    return x, x

  last = index_in_dim(ys, m - 1, keepdims=False)
  _, xs = scan(up, last, (slice_in_dim(cs, 0, m - 1), slice_in_dim(ys, 0, m - 1)),
                   reverse=True)
  return concatenate([xs, expand_dims(last, (0,))], 0)


def _solve_lowering(ctx, dl, d, du, b, *, perturb_singular):
  avals = list(ctx.avals_in)
  b_aval = avals[3]
  if lapack.available(b_aval.dtype):
    if perturb_singular:
      return lapack.call(ctx, "tridiagonal_solve_perturbed_ffi", [dl, d, du, b], avals,
                         [b_aval], {}, [False, False, False, True], [True])[0]
    info_aval = ShapedArray(b_aval.shape[:-2], np.int32)
    *_, x, info = lapack.call(ctx, lapack.target("gtsv", b_aval.dtype), [dl, d, du, b],
                              avals, [*avals, info_aval], {}, [False, False, False, True],
                              [False, False, False, True, False])
    return lower_fn(ctx, lambda x, i: [nan_where_failed(x, eq(i, np.int32(0)))],
                    [x, info], [b_aval, info_aval])[0]
  if perturb_singular:
    raise NotImplementedError("tridiagonal_solve: perturb_singular=True is only implemented "
                              "with LAPACK on the CPU (float32/64, complex64/128).")
  if b_aval.shape[-2] == 0:
    return b
  solve = per_matrix(lambda *xs: [_thomas(*xs)], avals[0].ndim - 1)
  return lower_fn(ctx, solve, [dl, d, du, b], avals)[0]


tridiagonal_solve_p = standard_primitive("tridiagonal_solve",
                                         weak_as_operands(_solve_abstract_eval), _solve_lowering)
tridiagonal_solve_p.sharding_rule = batch_sharding_rule(tridiagonal_solve_p, (1, 1, 1, 2))


def _tridiagonal_matmul(dl, d, du, x):
  """``T x`` for the tridiagonal ``T`` with diagonals ``dl``, ``d``, ``du``."""
  s = get_aval(x).shape
  nb = len(s) - 2
  col = lambda v: broadcast_in_dim(v, s, tuple(range(nb + 1)))
  zero_row = full(s[:-2] + (1, s[-1]), 0, get_aval(x).dtype)
  m = s[-2]
  below = concatenate([zero_row, slice_in_dim(x, 0, m - 1, axis=nb)], nb)  # x[i-1]
  above = concatenate([slice_in_dim(x, 1, m, axis=nb), zero_row], nb)      # x[i+1]
  return add(add(mul(col(d), x), mul(col(dl), below)),
                 mul(col(du), above))


def _solve_jvp(primals, tangents, *, perturb_singular):
  dl, d, du, b = primals
  ddl, dd, ddu, db = tangents
  x = tridiagonal_solve_p.bind(dl, d, du, b, perturb_singular=perturb_singular)
  if all(type(t) is Zero for t in (ddl, dd, ddu)):
    rhs = db
  else:
    dt = [ad.instantiate(t) for t in (ddl, dd, ddu)]
    rhs = ad.add_tangents(db, neg(_tridiagonal_matmul(*dt, x)))
  if type(rhs) is Zero:
    return x, Zero.like(x)
  return x, tridiagonal_solve_p.bind(dl, d, du, rhs, perturb_singular=perturb_singular)


def _transposed_diagonals(dl, du):
  """The sub- and superdiagonals of ``T^T``: ``du`` shifted down, ``dl`` shifted up."""
  nd = get_aval(dl).ndim
  m = get_aval(dl).shape[-1]
  zero = full(get_aval(dl).shape[:-1] + (1,), 0, get_aval(dl).dtype)
  return (concatenate([zero, slice_in_dim(du, 0, m - 1, axis=nd - 1)], nd - 1),
          concatenate([slice_in_dim(dl, 1, m, axis=nd - 1), zero], nd - 1))


def _solve_transpose(ct, dl, d, du, b, *, perturb_singular):
  if type(ct) is Zero:
    return [None, None, None, Zero(b.aval)]
  dl_t, du_t = _transposed_diagonals(dl, du)
  return [None, None, None,
          tridiagonal_solve_p.bind(dl_t, d, du_t, ct, perturb_singular=perturb_singular)]


def _solve_batch(axis, args, dims, *, perturb_singular):
  dl, d, du, b = args
  if dims[:3] == (None, None, None):  # one system, more right-hand sides: fold them in
    nd = get_aval(b).ndim
    b = batching.moveaxis(b, dims[3], nd - 2)
    s = get_aval(b).shape
    flat = reshape(b, s[:-2] + (s[-1] * s[-2],))
    x = tridiagonal_solve_p.bind(dl, d, du, flat, perturb_singular=perturb_singular)
    return reshape(x, s), nd - 2
  xs = [batching.bdim_to_front(x, bd, axis.size) for x, bd in zip(args, dims)]
  return tridiagonal_solve_p.bind(*xs, perturb_singular=perturb_singular), 0


tridiagonal_solve_p.jvp = _solve_jvp
tridiagonal_solve_p.transpose = _solve_transpose
tridiagonal_solve_p.batch = _solve_batch


def tridiagonal_solve(dl, d, du, b, *, perturb_singular: bool = False):
  """Solves ``T x = b`` where ``T[i, i-1] = dl[i]``, ``T[i, i] = d[i]``, ``T[i, i+1] = du[i]``
  (``dl[0]`` and ``du[-1]`` are ignored); ``b`` has shape ``(..., m, k)``.
  ``perturb_singular`` nudges tiny pivots so singular systems give finite results."""
  return tridiagonal_solve_p.bind(dl, d, du, b, perturb_singular=bool(perturb_singular))
