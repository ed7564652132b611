"""x log y and the entropy terms built on it, with derivatives defined at x = 0."""
from __future__ import annotations

import numpy as np

from xjax._src.primitives.custom_derivatives import custom_jvp
from xjax._src.primitives.lax.elementwise import log, log1p
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays, real_only


def _x_times(log_fn):
  """x * log_fn(y), 0 where x == 0 (NaN in y still propagates, as SciPy)."""
  def impl(x, y):
    return jnp.where((x != 0) | jnp.isnan(y), x * log_fn(y), jnp.zeros_like(x))
  return impl


@custom_jvp
def _xlogy(x, y):
  return _x_times(log)(x, y)


def _x_times_jvp(fun, log_fn, arg_fn):
  """The JVP of ``fun``, x * log_fn(y) with log_fn' = 1 / arg_fn: the term is cast to the
  result's dtype, so strong (as JAX's rule)."""
  def jvp(p, t):
    (x, y), out = p, fun(*p)
    return out, jnp.astype(t[0] * log_fn(y) + t[1] * x / arg_fn(y), out.dtype)
  return jvp


_xlogy.defjvp(_x_times_jvp(_xlogy, log, lambda y: y))


@custom_jvp
def _xlog1py(x, y):
  return _x_times(log1p)(x, y)


_xlog1py.defjvp(_x_times_jvp(_xlog1py, log1p, lambda y: 1 + y))


def xlogy(x, y):
  """x * log(y), 0 where x == 0."""
  x, y = inexact_arrays("xlogy", x, y)
  return _xlogy(x, y)


def xlog1py(x, y):
  """x * log1p(y), 0 where x == 0."""
  x, y = inexact_arrays("xlog1py", x, y)
  return _xlog1py(x, y)


@custom_jvp
def _xlogx(x):
  return _xlogy(x, x)


_xlogx.defjvp(lambda p, t: (_xlogx(p[0]), t[0] * (log(p[0]) + 1)))


def entr(x):
  """-x log x for x >= 0, -inf for x < 0."""
  (x,) = inexact_arrays("entr", x)
  real_only("entr", x)
  return jnp.where(x < 0, -np.inf, -_xlogx(x))


def rel_entr(p, q):
  """p log(p / q) for p, q > 0 (as p log p - p log q); 0 at p == 0 <= q; inf elsewhere."""
  p, q = inexact_arrays("rel_entr", p, q)
  real_only("rel_entr", p)
  both = (p > 0) & (q > 0)
  safe_p, safe_q = jnp.where(both, p, 1), jnp.where(both, q, 1)
  out = _xlogx(safe_p) - _xlogy(safe_p, safe_q)
  return jnp.where(both, out, jnp.where((p == 0) & (q >= 0), 0, np.inf))


def kl_div(p, q):
  """rel_entr(p, q) - p + q."""
  p, q = inexact_arrays("kl_div", p, q)
  real_only("kl_div", p)
  return rel_entr(p, q) - p + q
