"""The error function family and the standard normal distribution function: erf, erfc,
erfinv, ndtr, ndtri, log_ndtr, and Owen's T."""
from __future__ import annotations

import numpy as np

from xjax._src.primitives.custom_derivatives import custom_jvp
from xjax._src.primitives.lax.elementwise import (abs as lax_abs, erf as lax_erf, erf_inv,
                                                  erfc as lax_erfc, exp, gt, log, lt,
                                                  max as lax_max, min as lax_min, mul, select,
                                                  sqrt, square, sub)
from xjax._src.primitives.lax.elementwise import _const
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import float_array, inexact_arrays

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
  dt = x.dtype.type
  half_sqrt_2 = dt(0.5) * np.sqrt(2., dtype=dt)
  w = x * half_sqrt_2
  z = lax_abs(w)
  # erf near zero, erfc (complemented on the right) elsewhere
  y = select(lt(z, half_sqrt_2), dt(1.) + lax_erf(w),
             select(gt(w, dt(0.)), dt(2.) - lax_erfc(z), lax_erfc(z)))
  return dt(0.5) * y


def ndtr(x):
  """The standard normal CDF (float32 and float64 only)."""
  return _ndtr(float_array(x))


def _norm_logpdf(x):
  # lax's arithmetic on rule constants, as JAX's: a weak x is not converted (its
  # cotangents through log_ndtr's rule stay strong)
  return sub(mul(_const(x, -0.5), square(x)), _const(x, _LOG_SQRT_2PI))


# log_ndtr's segments: the asymptotic series at or below the lower bound, log(ndtr(x))
# between, and -ndtr(-x) (log(1 - q) ~ -q) above the upper bound.
_SEGMENTS = {np.dtype(np.float32): (np.array(-10, np.float32), np.array(5, np.float32)),
             np.dtype(np.float64): (np.array(-20, np.float64), np.array(8, np.float64))}


def _double_factorial(n: int):
  return np.prod(np.arange(n, 1, -2))


def _log_ndtr_series(x, order):
  """1 + sum_{n=1}^{order} (-1)^n (2n-1)!! / x^(2n), alternating terms summed apart."""
  dt = x.dtype.type
  if order <= 0:
    return np.array(1, dt)
  x2 = square(x)
  even, odd, x2n = jnp.zeros_like(x), jnp.zeros_like(x), x2
  for n in range(1, order + 1):
    term = np.array(_double_factorial(2 * n - 1), dt) / x2n
    if n % 2:
      odd += term
    else:
      even += term
    x2n *= x2
  return dt(1.) + even - odd


def _log_ndtr_lower(x, order):
  """log Phi(x) for x << -1: log of exp(-x^2/2) / (-x sqrt(2 pi)) times the series."""
  dt = x.dtype.type
  log_scale = -dt(0.5) * square(x) - log(-x) - dt(_LOG_SQRT_2PI)
  return log_scale + log(_log_ndtr_series(x, order))


def _log_ndtr_impl(x, order):
  lower, upper = _SEGMENTS[x.dtype]
  above = gt(x, upper)
  # One ndtr call for both the middle and upper segments; the clamps keep the unchosen
  # branches finite (a NaN there would leak into the gradient of the select).
  res = _ndtr(jnp.where(above, -x, lax_max(x, lower)))
  return jnp.where(above, -res,
                   jnp.where(gt(x, lower), log(res), _log_ndtr_lower(lax_min(x, lower), order)))


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


# Cephes' rational approximations for ndtri (coefficients highest degree first): P0/Q0 on
# the centre, P1/Q1 and P2/Q2 on the tails split at z = sqrt(-2 log p) = 8.
_NDTRI_P0 = [-5.99633501014107895267E1, 9.80010754185999661536E1, -5.66762857469070293439E1,
             1.39312609387279679503E1, -1.23916583867381258016E0]
_NDTRI_Q0 = [1.0, 1.95448858338141759834E0, 4.67627912898881538453E0, 8.63602421390890590575E1,
             -2.25462687854119370527E2, 2.00260212380060660359E2, -8.20372256168333339912E1,
             1.59056225126211695515E1, -1.18331621121330003142E0]
_NDTRI_P1 = [4.05544892305962419923E0, 3.15251094599893866154E1, 5.71628192246421288162E1,
             4.40805073893200834700E1, 1.46849561928858024014E1, 2.18663306850790267539E0,
             -1.40256079171354495875E-1, -3.50424626827848203418E-2, -8.57456785154685413611E-4]
_NDTRI_Q1 = [1.0, 1.57799883256466749731E1, 4.53907635128879210584E1, 4.13172038254672030440E1,
             1.50425385692907503408E1, 2.50464946208309415979E0, -1.42182922854787788574E-1,
             -3.80806407691578277194E-2, -9.33259480895457427372E-4]
_NDTRI_P2 = [3.23774891776946035970E0, 6.91522889068984211695E0, 3.93881025292474443415E0,
             1.33303460815807542389E0, 2.01485389549179081538E-1, 1.23716634817820021358E-2,
             3.01581553508235416007E-4, 2.65806974686737550832E-6, 6.23974539184983293730E-9]
_NDTRI_Q2 = [1.0, 6.02427039364742014255E0, 3.67983563856160859403E0, 1.37702099489081330271E0,
             2.16236993594496635890E-1, 1.34204006088543189037E-2, 3.28014464682127739104E-4,
             2.89247864745380683936E-6, 6.79019408009981274425E-9]


def ndtri(p):
  """The inverse of the standard normal CDF (float32 and float64 only)."""
  return _ndtri(float_array(p))


def _ndtri(p):
  dt = p.dtype.type
  coeffs = lambda c: np.array(c, dtype=dt)
  # Work with q = min(p, 1 - p) (split at exp(-2)), 0 replaced by any harmless value
  q = jnp.where(p > dt(-np.expm1(-2.)), dt(1.) - p, p)
  q = jnp.where(q == dt(0.), jnp.full(p.shape, dt(0.5)), q)
  # Centre, q > exp(-2): x / sqrt(2 pi) = w + w^3 P0(w^2) / Q0(w^2) with w = q - 1/2
  w = q - dt(0.5)
  ww = square(w)
  centre = w + w * ww * (jnp.polyval(coeffs(_NDTRI_P0), ww) / jnp.polyval(coeffs(_NDTRI_Q0), ww))
  centre *= -dt(np.sqrt(2. * np.pi))
  # Tails: x = z - log(z) / z - P(1/z) / Q(1/z) / z with z = sqrt(-2 log q)
  z = sqrt(dt(-2.) * log(q))
  lead = z - log(z) / z
  far = lead - jnp.polyval(coeffs(_NDTRI_P2), 1 / z) / jnp.polyval(coeffs(_NDTRI_Q2), 1 / z) / z
  near = lead - jnp.polyval(coeffs(_NDTRI_P1), 1 / z) / jnp.polyval(coeffs(_NDTRI_Q1), 1 / z) / z
  x = jnp.where(q > dt(np.exp(-2.)), centre, jnp.where(z >= dt(8.0), far, near))
  x = jnp.where(p > dt(1. - np.exp(-2.)), x, -x)
  inf = jnp.full(p.shape, dt(np.inf))
  return jnp.where(p == dt(0.0), -inf, jnp.where(p == dt(1.0), inf, x))


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
