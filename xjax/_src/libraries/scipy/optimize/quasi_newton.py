"""BFGS (a dense inverse-Hessian estimate; Nocedal & Wright, algorithm 6.1) and L-BFGS (a
two-loop recursion over the last ``maxcor`` steps; algorithm 7.5, complex inputs as Sorber
et al.), each one ``while_loop`` over the strong-Wolfe line search, so they jit-compile.
Their updates, tests and status codes are JAX's, so results agree with it step for step."""
from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.api.transformations import value_and_grad
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax.control_flow.loops import fori_loop, while_loop
from xjax._src.primitives.lax.dot import dot_general, Precision
from xjax._src.primitives.lax.shapes import dynamic_index_in_dim, dynamic_update_index_in_dim
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.numpy import linalg as jla
from xjax._src.libraries.scipy.optimize.line_search import dot, line_search

# one compiled program when eager, as JAX's (its reduction rounds differently op by op)
_norm = compiled_when_eager(jla.norm, static_argnames=("ord", "axis", "keepdims"))


class OptimizeResults(NamedTuple):
  """The result of ``minimize``.

  ``x``: the last iterate; ``success``: converged without a line-search failure;
  ``status``: 0 converged, 1 ``maxiter`` reached, then by method: BFGS 3 the zoom failed,
  5 the line search ran out of steps, -1 undefined; L-BFGS 2 ``maxfun`` or 3 ``maxgrad``
  reached, 4 too little decrease (``ftol``), 5 the line search failed. ``fun``, ``jac``: the
  value and gradient at ``x``; ``hess_inv``: the inverse-Hessian estimate (BFGS; None for
  L-BFGS); ``nfev``, ``njev``: evaluations of the function and its gradient; ``nit``: steps.
  """
  x: object
  success: object
  status: object
  fun: object
  jac: object
  hess_inv: object
  nfev: object
  njev: object
  nit: object


# -- BFGS -------------------------------------------------------------------------------------

class _BFGSState(NamedTuple):
  converged: object
  failed: object
  k: object
  nfev: object
  x: object
  f: object
  g: object
  h: object           # the inverse-Hessian estimate
  f_prev: object      # f one step back: sets the line search's first trial step
  ls_status: object


# ``w.T`` contracted on the left and right of ``h``: (w h) w^T, in the order JAX contracts.
_CONTRACT_0_1 = (((0,), (1,)), ((), ()))


def _sandwich(w, h):
  wh_t = dot_general(h, w, _CONTRACT_0_1, precision=Precision.HIGHEST)
  return dot_general(wh_t, w, _CONTRACT_0_1, precision=Precision.HIGHEST)


def minimize_bfgs(fun: Callable, x0, maxiter: int | None = None, norm=np.inf,
                  gtol: float = 1e-5, line_search_maxiter: int = 10) -> OptimizeResults:
  """BFGS from the identity: stops when ``|grad|_norm < gtol``, after ``maxiter``
  (default ``200 n``) steps, or when a line search fails."""
  if maxiter is None:
    maxiter = np.size(x0) * 200
  n = x0.shape[0]
  f0, g0 = value_and_grad(fun)(x0)

  def body(s):
    p = -dot(s.h, s.g)
    ls = line_search(fun, s.x, p, old_fval=s.f, old_old_fval=s.f_prev, gfk=s.g,
                     maxiter=line_search_maxiter)
    step = ls.a_k * p
    dg = ls.g_k - s.g
    rho = jnp.reciprocal(dot(dg, step))
    w = jnp.eye(n, dtype=rho.dtype) - rho * (step[:, None] * dg[None, :])
    h = _sandwich(w, s.h) + rho * step[:, None] * step[None, :]
    return _BFGSState(converged=_norm(ls.g_k, ord=norm) < gtol, failed=ls.failed,
                      k=s.k + 1, nfev=s.nfev + ls.nfev, x=s.x + step, f=ls.f_k, g=ls.g_k,
                      h=jnp.where(jnp.isfinite(rho), h, s.h), f_prev=s.f,
                      ls_status=ls.status)

  start = _BFGSState(converged=_norm(g0, ord=norm) < gtol, failed=False, k=0, nfev=1,
                     x=x0, f=f0, g=g0, h=jnp.eye(n, dtype=x0.dtype),
                     f_prev=f0 + _norm(g0) / 2, ls_status=0)
  s = while_loop(lambda s: ~s.converged & ~s.failed & (s.k < maxiter), body, start)
  status = jnp.where(s.converged, 0, jnp.where(
      s.k == maxiter, 1, jnp.where(s.failed, 2 + s.ls_status, -1)))
  return OptimizeResults(x=s.x, success=s.converged & ~s.failed, status=status, fun=s.f,
                         jac=s.g, hess_inv=s.h, nfev=s.nfev, njev=s.nfev, nit=s.k)


# -- L-BFGS -----------------------------------------------------------------------------------

class _LBFGSState(NamedTuple):
  converged: object
  failed: object
  k: object
  nfev: object
  x: object
  f: object
  g: object
  s_hist: object      # the last maxcor steps, oldest first
  y_hist: object      # their gradient changes
  rho_hist: object    # 1 / Re(y.s) of each
  gamma: object       # Re(y.s) / |y|^2 of the last step: the initial Hessian's scale
  status: object


def _two_loop(s):
  """The L-BFGS direction ``-H g`` from the stored pairs (the newest ``min(k, maxcor)``)."""
  at = lambda history, i: dynamic_index_in_dim(history, i, keepdims=False)
  dtype = s.rho_hist.dtype
  size = s.rho_hist.shape[0]
  used = jnp.where(s.k < size, s.k, size)

  def newest_first(j, carry):
    q, alphas = carry
    i = size - 1 - j
    alpha = at(s.rho_hist, i) * dot(jnp.conj(at(s.s_hist, i)), q).real.astype(dtype)
    return (q - alpha * jnp.conj(at(s.y_hist, i)),
            dynamic_update_index_in_dim(alphas, alpha, i, 0))

  def oldest_first(j, q):
    i = size - used + j
    beta = at(s.rho_hist, i) * dot(at(s.y_hist, i), q).real.astype(dtype)
    return q + (at(alphas, i) - beta) * at(s.s_hist, i)

  q, alphas = fori_loop(0, used, newest_first, (-jnp.conj(s.g), jnp.zeros_like(s.rho_hist)))
  return fori_loop(0, used, oldest_first, s.gamma * q)


def _push(history, new):
  """Drops the oldest entry and appends ``new``."""
  return jnp.concatenate([history[1:], jnp.expand_dims(new, 0)])


def minimize_lbfgs(fun: Callable, x0, maxiter: float | None = None, norm=np.inf,
                   maxcor: int = 10, ftol: float = 2.220446049250313e-09, gtol: float = 1e-05,
                   maxfun: float | None = None, maxgrad: float | None = None,
                   maxls: int = 20) -> OptimizeResults:
  """L-BFGS keeping ``maxcor`` pairs: stops when ``|grad|_norm < gtol``, the decrease is
  below ``ftol``, a line search (``maxls`` steps) fails, or past ``maxiter`` steps
  (default ``200 n`` when no limit is given) or ``maxfun``/``maxgrad`` evaluations."""
  n = len(x0)
  dtype = dtypes.dtype(x0)
  if maxiter is None and maxfun is None and maxgrad is None:
    maxiter = n * 200
  f0, g0 = value_and_grad(fun)(x0)

  def body(s):
    p = _two_loop(s)
    ls = line_search(fun, s.x, p, old_fval=s.f, gfk=s.g, maxiter=maxls)
    step = jnp.asarray(ls.a_k).astype(p.dtype) * p
    dg = ls.g_k - s.g
    curvature = jnp.real(dot(dg, step))
    rho = jnp.reciprocal(curvature).astype(dg.dtype)
    gamma = curvature / jnp.real(dot(jnp.conj(dg), dg))
    status = jnp.where(s.f - ls.f_k < ftol, 4, jnp.array(0))
    for count, limit, code in ((s.nfev, maxgrad, 3), (s.nfev, maxfun, 2), (s.k, maxiter, 1)):
      if limit is not None:                         # (njev == nfev)
        status = jnp.where(count >= limit, code, status)
    status = jnp.where(ls.failed, 5, status)
    converged = _norm(ls.g_k, ord=norm) < gtol
    return _LBFGSState(
        converged=converged, failed=(status > 0) & ~converged, k=s.k + 1,
        nfev=s.nfev + ls.nfev, x=(s.x + step).astype(s.x.dtype), f=ls.f_k.astype(s.f.dtype),
        g=ls.g_k.astype(s.g.dtype), s_hist=_push(s.s_hist, step), y_hist=_push(s.y_hist, dg),
        rho_hist=_push(s.rho_hist, rho), gamma=gamma.astype(s.g.dtype),
        status=jnp.where(converged, 0, status))

  start = _LBFGSState(converged=jnp.array(False), failed=jnp.array(False), k=0, nfev=1, x=x0,
                      f=f0, g=g0, s_hist=jnp.zeros((maxcor, n), dtype),
                      y_hist=jnp.zeros((maxcor, n), dtype), rho_hist=jnp.zeros((maxcor,), dtype),
                      gamma=1., status=0)
  s = while_loop(lambda s: ~s.converged & ~s.failed, body, start)
  return OptimizeResults(x=s.x, success=s.converged & ~s.failed, status=s.status, fun=s.f,
                         jac=s.g, hess_inv=None, nfev=s.nfev, njev=s.nfev, nit=s.k)
