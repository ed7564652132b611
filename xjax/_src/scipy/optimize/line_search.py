"""A backtracking line search (Armijo sufficient decrease) for the quasi-Newton methods."""
from __future__ import annotations

from typing import NamedTuple

from xjax._src.lax import lax
from xjax._src.numpy import lax_numpy as jnp


class LineSearchResult(NamedTuple):
  failed: object
  nfev: object
  a_k: object
  f_k: object
  g_k: object


def backtracking(value_and_grad, x, f, g, p, maxiter: int, c1: float = 1e-4):
  """The first of 1, 1/2, 1/4, ... (``maxiter`` tries) with f(x + a p) <= f + c1 a g.p."""
  slope = jnp.dot(g, p)

  def cond(state):
    k, a, f_new, _, ok = state
    return (~ok) & (k < maxiter)

  def body(state):
    k, a, _, _, _ = state
    a = jnp.where(k == 0, a, a / 2)
    f_new, g_new = value_and_grad(x + a * p)
    ok = jnp.isfinite(f_new) & (f_new <= f + c1 * a * slope)
    return k + 1, a, f_new, g_new, ok

  state = (jnp.int32(0), jnp.ones((), x.dtype), f, g, jnp.zeros((), bool))
  k, a, f_new, g_new, ok = lax.while_loop(cond, body, state)
  return LineSearchResult(~ok | (slope >= 0), k, a, f_new, g_new)
