"""The error function family and the standard normal distribution function: erf, erfc,
erfinv, ndtr, ndtri, log_ndtr, and Owen's T."""
from __future__ import annotations

import numpy as np

from xjax._src.primitives.custom_derivatives import custom_jvp
from xjax._src.primitives.lax.elementwise import (erf as lax_erf, erf_inv, erfc as lax_erfc, exp,
                                                  mul, square, sub)
from xjax._src.primitives.lax.elementwise import _const
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import float_array, inexact_arrays
from xjax._src.libraries.scipy.special.faddeeva import _erfcx

_LOG_SQRT_2PI = 0.5 * np.log(2 * np.pi)


def erf(x):
  (x,) = inexact_arrays("erf", x)
  return lax_erf(x)


def erfc(x):
  (x,) = inexact_arrays("erfc", x)
  return lax_erfc(x)


def erfinv(x):
  (x,) = inexact_arrays("erfinv", x)
  return erf_inv(x)


def _ndtr(x):
  w = x * np.sqrt(0.5)
  z = jnp.abs(w)
  return 0.5 * jnp.where(z < np.sqrt(0.5), 1 + lax_erf(w),
                         jnp.where(w > 0, 2 - lax_erfc(z), lax_erfc(z)))


def ndtr(x):
  """The standard normal CDF (float32 and float64 only)."""
  return _ndtr(float_array(x))


def _norm_logpdf(x):
  # lax's arithmetic on rule constants, as JAX's: a weak x is not converted (its
  # cotangents through log_ndtr's rule stay strong)
  return sub(mul(_const(x, -0.5), square(x)), _const(x, _LOG_SQRT_2PI))


# Below these, log_ndtr uses the asymptotic series of the requested order.
_LOWER = {np.dtype(np.float32): -10.0, np.dtype(np.float64): -20.0}


def _double_factorial(n: int) -> int:
  return int(np.prod(np.arange(n, 1, -2))) if n > 1 else 1


def _log_ndtr_series(x, order):
  x2 = x * x
  total, power = jnp.ones_like(x), x2
  for n in range(1, order + 1):
    total = total + ((-1) ** n * _double_factorial(2 * n - 1)) / power
    power = power * x2
  return _norm_logpdf(x) - jnp.log(-x) + jnp.log(total)


def _log_ndtr_impl(x, order):
  lower = _LOWER[x.dtype]
  tail = x <= lower
  neg = (x < 0) & ~tail
  # log Phi(x) = log(erfcx(-x / sqrt 2) / 2) - x^2 / 2 on the left; log1p(-Phi(-x)) on the right
  xn = jnp.where(neg, x, -1.0)
  left = jnp.log(0.5 * _erfcx(-xn * np.sqrt(0.5))) - 0.5 * xn * xn
  right = jnp.log1p(-_ndtr(-jnp.where(neg | tail, 1.0, x)))
  series = _log_ndtr_series(jnp.where(tail, x, lower), order)
  return jnp.where(tail, series, jnp.where(neg, left, right))


def log_ndtr(x, series_order: int = 3):
  """log of the standard normal CDF, accurate far into both tails."""
  if not isinstance(series_order, int):
    raise TypeError("series_order must be a Python integer.")
  if series_order < 0:
    raise ValueError("series_order must be non-negative.")
  if series_order > 30:
    raise ValueError("series_order must be <= 30.")
  return _log_ndtr(float_array(x, see_docstring=False), series_order)


def _log_ndtr(x, order):
  @custom_jvp
  def f(x):
    return _log_ndtr_impl(x, order)
  # lax's arithmetic, as JAX's rule: no conversion of a weak x or g, so the term is strong
  f.defjvps(lambda g, ans, x: mul(g, exp(sub(_norm_logpdf(x), ans))))
  return f(x)


def _ndtri_newton(q, steps):
  """x <= 0 with Phi(x) = q (0 < q <= 1/2), by Newton's method on log Phi."""
  t = jnp.sqrt(-2 * jnp.log(q))
  # Abramowitz & Stegun 26.2.23 (error < 4.5e-4) as the starting point
  x = -(t - (2.515517 + t * (0.802853 + t * 0.010328))
        / (1 + t * (1.432788 + t * (0.189269 + t * 0.001308))))
  log_q = jnp.log(q)
  for _ in range(steps):
    lp = _log_ndtr_impl(x, 3)
    x = x - (lp - log_q) / jnp.exp(_norm_logpdf(x) - lp)
  return x


def ndtri(p):
  """The inverse of the standard normal CDF (float32 and float64 only)."""
  return _ndtri(float_array(p))


@custom_jvp
def _ndtri(p):
  upper = p > 0.5
  q = jnp.where(upper, 1 - p, p)
  central = q > 0.1
  ok = (q > 0) & ~central
  tail = _ndtri_newton(jnp.where(ok, q, 0.05), 4)
  mid = np.sqrt(2) * erf_inv(2 * jnp.where(central, q, 0.3) - 1)
  x = jnp.where(central, mid, tail)
  x = jnp.where(q == 0, -np.inf, x)
  x = jnp.where(upper, -x, x)
  return jnp.where((p < 0) | (p > 1) | jnp.isnan(p), np.nan, x).astype(p.dtype)


_ndtri.defjvps(lambda g, x, p: g * np.sqrt(2 * np.pi) * jnp.exp(0.5 * x * x))


# Owen's T: Gauss-Legendre quadrature of T(h, a) = 1/(2 pi) int_0^a exp(-h^2 (1+u^2)/2)/(1+u^2)
# after u = a s, on |a| <= 1 (larger |a| uses the reciprocal identity).
_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(40)
_GL_NODES = (_GL_NODES + 1) / 2
_GL_WEIGHTS = _GL_WEIGHTS / 2


def _owens_t_small_a(h, a):
  u2 = jnp.square(a[..., None] * _GL_NODES.astype(h.dtype))
  f = jnp.exp(-0.5 * jnp.square(h)[..., None] * (1 + u2)) / (1 + u2)
  return a * jnp.sum(f * _GL_WEIGHTS.astype(h.dtype), axis=-1) / (2 * np.pi)


@custom_jvp
def _owens_t(h, a):
  h = jnp.abs(h)
  abs_a = jnp.abs(a)
  recip = abs_a > 1
  small_a = jnp.where(recip, 1 / jnp.where(recip, abs_a, 1), abs_a)
  small_h = jnp.where(recip, abs_a * h, h)
  t = _owens_t_small_a(small_h, small_a)
  phi_h, phi_ah = _ndtr(-h), _ndtr(-abs_a * h)
  # T(h, a) = (Q(h) + Q(ah)) / 2 - Q(h) Q(ah) - T(ah, 1/a) for a > 1, h >= 0, with the
  # upper tails Q = 1 - Phi
  big = 0.5 * (phi_h + phi_ah) - phi_h * phi_ah - t
  big = jnp.where(jnp.isinf(abs_a), 0.5 * phi_h, big)
  out = jnp.sign(a) * jnp.where(recip, big, t)
  return jnp.where(jnp.isnan(h) | jnp.isnan(a), np.nan, out).astype(t.dtype)


@_owens_t.defjvp
def _owens_t_jvp(primals, tangents):
  h, a = primals
  dh, da = tangents
  d_h = -jnp.exp(-0.5 * h * h) * lax_erf(a * h * np.sqrt(0.5)) / (2 * np.sqrt(2 * np.pi))
  d_a = jnp.exp(-0.5 * (a * a + 1) * h * h) / (2 * np.pi * (a * a + 1))
  return _owens_t(h, a), d_h * dh + d_a * da


def owens_t(h, a):
  """Owen's T function T(h, a)."""
  h, a = inexact_arrays("owens_t", h, a)
  return _owens_t(h, a)
