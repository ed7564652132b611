"""Exponential integrals (expi, exp1, expn) and the sine and cosine integrals (sici):
power series for small arguments, continued fractions (evaluated from a fixed depth) or
asymptotic series for large ones."""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.primitives.custom_derivatives import custom_jvp
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax.control_flow.loops import fori_loop
from xjax._src.primitives.lax.elementwise import (complex as lax_complex, digamma, lgamma, mul,
                                                  neg as lax_neg)
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays, real_only

_EULER = 0.5772156649015329


def _e1_series(x):
  """E1(x) = -gamma - log x - sum (-x)^k / (k k!), for 0 < x <= 1."""
  # sum (-x)^k / (k k!) = sum t_k / k with t_k = (-x)^k / k!
  def body(k, carry):
    t, total = carry
    kf = k.astype(x.dtype)
    t = t * (-x) / kf
    return t, total + t / kf
  _, s = fori_loop(1, 30, body, (jnp.ones_like(x), jnp.zeros_like(x)))
  return -_EULER - jnp.log(x) - s


def _en_fraction(n, x, depth=60):
  """E_n(x) = exp(-x) / (x + n - 1 n / (x + n + 2 - 2 (n + 1) / (x + n + 4 - ...))), x > 1."""
  acc = jnp.zeros_like(x)
  for i in range(depth, 0, -1):
    acc = i * (n + i - 1) / (x + n + 2 * i - acc)
  return jnp.exp(-x) / (x + n - acc)


def _e1(x):
  """E1(x) for x > 0."""
  small = x <= 1
  s = _e1_series(jnp.where(small, x, 1.0))
  f = _en_fraction(1.0, jnp.where(small, 2.0, x))
  return jnp.where(small, s, f)


def _ei_positive(x):
  """Ei(x) for x > 0: the power series up to 40, the asymptotic series beyond."""
  series_region = x <= 40
  xs = jnp.where(series_region, x, 1.0)

  def body(k, carry):
    t, total = carry
    kf = k.astype(x.dtype)
    t = t * xs / kf
    return t, total + t / kf
  _, s = fori_loop(1, 120, body, (jnp.ones_like(x), jnp.zeros_like(x)))
  series = _EULER + jnp.log(xs) + s
  xa = jnp.where(series_region, 50.0, x)
  term, total = jnp.ones_like(x), jnp.ones_like(x)
  for k in range(1, 40):
    term = term * k / xa
    total = total + term
  asym = jnp.exp(xa) / xa * total
  return jnp.where(series_region, series, asym)


@custom_jvp
def _expi(x):
  pos = x > 0
  neg = x < 0
  ep = _ei_positive(jnp.where(pos, x, 1.0))
  en = -_e1(jnp.where(neg, -x, 1.0))
  # as JAX (unlike SciPy): NaN at 0 and at +-inf
  out = jnp.where(pos, ep, jnp.where(neg, en, np.nan))
  return jnp.where(jnp.isinf(x), np.nan, out)


_expi.defjvps(lambda g, ans, x: g * jnp.exp(x) / x)


@compiled_when_eager(staged="expi")
def expi(x):
  """The exponential integral Ei(x)."""
  (x,) = inexact_arrays("expi", x)
  real_only("expi", x)
  return _expi(x)


@custom_jvp
def _exp1(x):
  pos = x > 0
  out = _e1(jnp.where(pos & (x < np.inf), x, 1.0))
  # as JAX (unlike SciPy): NaN at +inf
  return jnp.where(pos & (x < np.inf), out, jnp.where(x == 0, np.inf, np.nan))


# the term is -g E0(x), E0 strong as E1 is and NaN for x < 0 where E1 is (as JAX's, which
# differentiates expn)
_exp1.defjvps(lambda g, ans, x: mul(lax_neg(g), jnp.astype(
    jnp.where(x < 0, np.nan, jnp.exp(-x) / x), ans.dtype)))


def exp1(x):
  """The exponential integral E1(x) = integral_1^inf exp(-x t) / t dt."""
  (x,) = inexact_arrays("exp1", x)
  real_only("exp1", x)
  return _exp1(x)


def _en_series(n, x):
  """E_n(x) by its power series, for 0 < x <= 1 and integer n >= 1."""
  # (-x)^(n-1)/(n-1)! (psi(n) - log x) - sum_{k != n-1} (-x)^k / ((k - n + 1) k!)
  psi = digamma(n)
  lead = jnp.exp((n - 1) * jnp.log(x) - lgamma(n)) * jnp.where(
      jnp.fmod(n - 1, 2) == 0, 1.0, -1.0)

  def body(k, carry):
    t, total = carry
    kf = k.astype(x.dtype)
    t = jnp.where(k == 0, 1.0, t * (-x) / jnp.where(k == 0, 1.0, kf))
    denom = kf - n + 1
    total = total - jnp.where(denom == 0, 0.0, t / jnp.where(denom == 0, 1.0, denom))
    return t, total
  _, s = fori_loop(0, 40, body, (jnp.ones_like(x), jnp.zeros_like(x)))
  return lead * (psi - jnp.log(x)) + s


def _expn_impl(n, x):
  pos_x = x > 0
  small = x <= 1
  n_ok = (n >= 0) & (n == jnp.floor(n))
  n1 = jnp.maximum(n, 1.0)
  s = _en_series(n1, jnp.where(small & pos_x, x, 0.5))
  f = _en_fraction(n1, jnp.where(small, 2.0, x))
  out = jnp.where(small, s, f)
  out = jnp.where(n == 0, jnp.exp(-x) / x, out)
  at_zero = jnp.where(n > 1, 1 / (n - 1), np.inf)
  out = jnp.where(x == 0, at_zero, out)
  out = jnp.where(x == np.inf, 0.0, out)
  return jnp.where(n_ok & (x >= 0), out, np.nan)


def expn(n, x):
  """The generalized exponential integral E_n(x) for integer n >= 0, x >= 0."""
  n, x = inexact_arrays("expn", n, x)
  real_only("expn", x)
  return _expn(n, x)


@custom_jvp
def _expn(n, x):
  return _expn_impl(n, x)


@_expn.defjvp
def _expn_jvp(primals, tangents):
  n, x = primals
  _, tx = tangents
  return _expn(n, x), -_expn(n - 1, x) * tx


def _sici_series(x):
  """(Si, Ci) by their power series, for 0 < x <= 4."""
  x2 = x * x
  si_term, ci_term = x, jnp.ones_like(x)
  si, ci = x, jnp.zeros_like(x)
  for k in range(1, 22):
    ci_term = ci_term * (-x2) / ((2 * k - 1) * (2 * k))
    si_term = si_term * (-x2) / ((2 * k) * (2 * k + 1))
    ci = ci + ci_term / (2 * k)
    si = si + si_term / (2 * k + 1)
  return si, _EULER + jnp.log(x) + ci


def _sici_fraction(x, depth=80):
  """(Si, Ci) for x >= 4 from E1(ix) = -Ci(x) + i (Si(x) - pi/2) by its continued fraction."""
  cdt = dtypes.to_complex_dtype(x.dtype)
  z = lax_complex(jnp.zeros_like(x), x).astype(cdt)
  acc = jnp.zeros_like(z)
  for i in range(depth, 0, -1):
    acc = (i * i) / (z + 2 * i + 1 - acc)
  phase = lax_complex(jnp.cos(x), -jnp.sin(x))
  e1 = phase / (z + 1 - acc)
  return np.pi / 2 + jnp.imag(e1), -jnp.real(e1)


@custom_jvp
def _sici(x):
  ax = jnp.abs(x)
  small = ax <= 4
  s1, c1 = _sici_series(jnp.where(small, ax, 1.0))
  s2, c2 = _sici_fraction(jnp.where(small, 5.0, ax))
  si = jnp.where(small, s1, s2)
  ci = jnp.where(small, c1, c2)
  si = jnp.where(ax == np.inf, np.pi / 2, si)
  ci = jnp.where(ax == np.inf, 0.0, jnp.where(ax == 0, -np.inf, ci))
  si = jnp.sign(x) * si
  nan = jnp.isnan(x)
  return jnp.where(nan, x, si), jnp.where(nan, x, ci)


@_sici.defjvp
def _sici_jvp(primals, tangents):
  (x,), (g,) = primals, tangents
  si, ci = _sici(x)
  return (si, ci), (g * jnp.sinc(x / np.pi), g * jnp.cos(x) / x)


@compiled_when_eager(staged="sici")
def sici(x):
  """The sine and cosine integrals (Si(x), Ci(x)); Ci uses |x|, as SciPy's real version."""
  (x,) = inexact_arrays("sici", x)
  real_only("sici", x)
  return _sici(x)
