"""BFGS (dense inverse-Hessian) and L-BFGS (two-loop recursion over a history of
``maxcor`` steps) minimization, each one ``while_loop`` so they jit-compile."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from xjax._src.api import value_and_grad
from xjax._src.lax import lax
from xjax._src.numpy import lax_numpy as jnp
from xjax._src.scipy.optimize.line_search import backtracking


class OptimizeResults(NamedTuple):
  """The result of ``minimize``: the solution, whether it converged (``status`` 0), the
  value and gradient there, the inverse-Hessian estimate (BFGS), and the counts."""
  x: object
  success: object
  status: object
  fun: object
  jac: object
  hess_inv: object
  nfev: object
  njev: object
  nit: object


def _converged(g, gtol, norm):
  if norm == np.inf:
    return jnp.max(jnp.abs(g)) < gtol
  return jnp.sum(jnp.abs(g) ** norm) ** (1 / norm) < gtol


# status: 0 converged, 1 too many iterations, 3 line search failed
def minimize_bfgs(fun, x0, maxiter=None, norm=np.inf, gtol=1e-5, line_search_maxiter=10):
  vg = value_and_grad(fun)
  n = x0.shape[0]
  maxiter = n * 200 if maxiter is None else maxiter
  f0, g0 = vg(x0)
  eye = jnp.eye(n, dtype=x0.dtype)

  def cond(state):
    k, _, _, g, _, done, _ = state
    return (~done) & (k < maxiter)

  def body(state):
    k, x, f, g, h, _, (nfev, _) = state
    p = -(h @ g)
    ls = backtracking(vg, x, f, g, p, line_search_maxiter)
    s = ls.a_k * p
    x_new = x + s
    y = ls.g_k - g
    rho = jnp.dot(y, s)
    ok = rho > 0
    rho_inv = 1 / jnp.where(ok, rho, 1)
    left = eye - rho_inv * jnp.outer(s, y)
    h_new = left @ h @ left.T + rho_inv * jnp.outer(s, s)
    h = jnp.where(ok, h_new, h)
    failed = ls.failed
    x, f, g = (jnp.where(failed, x, x_new), jnp.where(failed, f, ls.f_k),
               jnp.where(failed, g, ls.g_k))
    status = jnp.where(failed, 3, jnp.where(_converged(g, gtol, norm), 0, 1))
    return k + 1, x, f, g, h, status != 1, (nfev + ls.nfev, status)

  state = (0, x0, f0, g0, eye, _converged(g0, gtol, norm), (1, 0))
  k, x, f, g, h, _, (nfev, status) = lax.while_loop(cond, body, state)
  status = jnp.where(_converged(g, gtol, norm), 0, jnp.where(status == 3, 3, 1))
  return OptimizeResults(x=x, success=status == 0, status=status, fun=f, jac=g, hess_inv=h,
                         nfev=nfev, njev=nfev, nit=k)


def minimize_lbfgs(fun, x0, maxiter=None, norm=np.inf, maxcor=10, gtol=1e-5,
                   line_search_maxiter=10):
  vg = value_and_grad(fun)
  n = x0.shape[0]
  maxiter = n * 200 if maxiter is None else maxiter
  f0, g0 = vg(x0)
  zeros = jnp.zeros((maxcor, n), x0.dtype)

  def direction(g, s_hist, y_hist, rho_hist, count):
    """-H g by the two-loop recursion over the stored pairs (newest last)."""
    def backward(i, carry):
      q, alphas = carry
      j = maxcor - 1 - i
      use = i < count
      a = jnp.where(use, rho_hist[j] * jnp.dot(s_hist[j], q), 0)
      return q - a * y_hist[j], alphas.at[j].set(a)
    q, alphas = lax.fori_loop(0, maxcor, backward, (g, jnp.zeros(maxcor, g.dtype)))
    last_s, last_y = s_hist[-1], y_hist[-1]
    gamma = jnp.where(count > 0, jnp.dot(last_s, last_y) /
                      jnp.where(count > 0, jnp.dot(last_y, last_y), 1), 1)
    r = gamma * q

    def forward(i, r):
      use = i >= maxcor - count
      b = rho_hist[i] * jnp.dot(y_hist[i], r)
      return jnp.where(use, r + s_hist[i] * (alphas[i] - b), r)
    return -lax.fori_loop(0, maxcor, forward, r)

  def cond(state):
    k, *_, done, _ = state
    return (~done) & (k < maxiter)

  def body(state):
    k, x, f, g, s_hist, y_hist, rho_hist, count, _, (nfev, _) = state
    p = direction(g, s_hist, y_hist, rho_hist, count)
    ls = backtracking(vg, x, f, g, p, line_search_maxiter)
    s = ls.a_k * p
    y = ls.g_k - g
    sy = jnp.dot(s, y)
    keep = sy > 0
    s_hist = jnp.where(keep, jnp.roll(s_hist, -1, 0).at[-1].set(s), s_hist)
    y_hist = jnp.where(keep, jnp.roll(y_hist, -1, 0).at[-1].set(y), y_hist)
    rho_hist = jnp.where(keep, jnp.roll(rho_hist, -1).at[-1].set(1 / jnp.where(keep, sy, 1)),
                         rho_hist)
    count = jnp.where(keep, jnp.minimum(count + 1, maxcor), count)
    failed = ls.failed
    x, f, g = (jnp.where(failed, x, x + s), jnp.where(failed, f, ls.f_k),
               jnp.where(failed, g, ls.g_k))
    status = jnp.where(failed, 3, jnp.where(_converged(g, gtol, norm), 0, 1))
    return (k + 1, x, f, g, s_hist, y_hist, rho_hist, count, status != 1,
            (nfev + ls.nfev, status))

  state = (0, x0, f0, g0, zeros, zeros, jnp.zeros(maxcor, x0.dtype), 0,
           _converged(g0, gtol, norm), (1, 0))
  k, x, f, g, *_, (nfev, status) = lax.while_loop(cond, body, state)
  status = jnp.where(_converged(g, gtol, norm), 0, jnp.where(status == 3, 3, 1))
  return OptimizeResults(x=x, success=status == 0, status=status, fun=f, jac=g, hess_inv=None,
                         nfev=nfev, njev=nfev, nit=k)
