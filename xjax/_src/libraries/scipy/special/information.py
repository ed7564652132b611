"""x log y and the entropy terms built on it, with derivatives defined at x = 0."""
from __future__ import annotations

import numpy as np

from xjax._src.primitives.custom_derivatives import custom_jvp
from xjax._src.primitives.lax.elementwise import log, log1p, select
from xjax._src.primitives.lax.shapes import full_like
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays, real_only


def _x_times(name, log_fn, x, y):
  """x * log_fn(y), 0 where x == 0 (NaN in y still propagates, as SciPy)."""
  x, y = inexact_arrays(name, x, y)
  return jnp.where((x != 0) | jnp.isnan(y), x * log_fn(y), jnp.zeros_like(x))


def _x_times_tangent(x, y, x_dot, y_dot, log_fn, arg_fn, dtype):
  """The tangent of x * log_fn(y) with log_fn' = 1 / arg_fn, cast to the result's dtype
  (so strong, as JAX's rule). As in JAX the rule sees the arguments as given: an integer
  argument's tangent is float0, which the arithmetic refuses (TypeError)."""
  return jnp.astype(x_dot * log_fn(y) + y_dot * x / arg_fn(y), dtype)


@custom_jvp
def xlogy(x, y):
  """x * log(y), 0 where x == 0."""
  return _x_times("xlogy", log, x, y)


@xlogy.defjvp
def _xlogy_jvp(primals, tangents):
  out = xlogy(*primals)
  return out, _x_times_tangent(*primals, *tangents, log, lambda y: y, out.dtype)


@custom_jvp
def xlog1py(x, y):
  """x * log1p(y), 0 where x == 0."""
  return _x_times("xlog1py", log1p, x, y)


@xlog1py.defjvp
def _xlog1py_jvp(primals, tangents):
  out = xlog1py(*primals)
  return out, _x_times_tangent(*primals, *tangents, log1p, lambda y: 1 + y, out.dtype)


@custom_jvp
def _xlogx(x):
  return xlogy(x, x)


@_xlogx.defjvp
def _xlogx_jvp(primals, tangents):
  return _xlogx(primals[0]), tangents[0] * (log(primals[0]) + 1)


def entr(x):
  """-x log x for x >= 0, -inf for x < 0."""
  (x,) = inexact_arrays("entr", x)
  real_only("entr", x)
  return select(x < 0, full_like(x, -np.inf), -_xlogx(x))


def rel_entr(p, q):
  """p log(p / q) for p, q > 0 (as p log p - p log q); 0 at p == 0 <= q; inf elsewhere."""
  p, q = inexact_arrays("rel_entr", p, q)
  real_only("rel_entr", p)
  both = (p > 0) & (q > 0)
  safe_p, safe_q = jnp.where(both, p, 1), jnp.where(both, q, 1)
  out = _xlogx(safe_p) - xlogy(safe_p, safe_q)
  return jnp.where(both, out, jnp.where((p == 0) & (q >= 0), 0, np.inf))


def kl_div(p, q):
  """rel_entr(p, q) - p + q."""
  p, q = inexact_arrays("kl_div", p, q)
  real_only("kl_div", p)
  return rel_entr(p, q) - p + q
