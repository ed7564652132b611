"""The error function family and the standard normal distribution function: erf, erfc,
erfinv, ndtr, ndtri, log_ndtr, and Owen's T."""
from __future__ import annotations

import numpy as np

from xjax._src.primitives.custom_derivatives import custom_jvp
from xjax._src.primitives.lax.elementwise import (abs as lax_abs, erf as lax_erf, erf_inv,
                                                  erfc as lax_erfc, exp, gt, log, lt,
                                                  max as lax_max, min as lax_min, mul, select,
                                                  sign as lax_sign, sqrt, square, sub)
from xjax._src.primitives.lax.elementwise import _const
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.numpy.arguments import arraylike
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
  return _ndtri(float_array(*arraylike("ndtri", p)))


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


# Owen's T by Patefield & Tandy's (2000) method T5, as JAX: a 13-point Gauss-type quadrature
# of T(h, a) = (1/2pi) int_0^a exp(-h^2 (1+u^2)/2) / (1+u^2) du under u^2 = a^2 t, the 1/(2pi)
# and the Jacobian folded into the weights; |a| > 1 goes through the reciprocal identity.
_OWENS_T_NODES = np.array([
    0.0035082039676451715, 0.031279042338030754, 0.085266826283219451, 0.16245071730812277,
    0.25851196049125435, 0.36807553840697534, 0.48501092905604697, 0.60277514152618577,
    0.71477884217753227, 0.81475510988760099, 0.89711029755948966, 0.95723808085944262,
    0.99178832974629704])
_OWENS_T_WEIGHTS = np.array([
    0.018831438115323503, 0.018567086243977649, 0.018042093461223386, 0.017263829606398753,
    0.016243219975989857, 0.014994592034116705, 0.013535474469662088, 0.011886351605820165,
    0.010070377242777432, 0.0081130545742299587, 0.0060419009528470239,
    0.0038862217010742058, 0.0016793031084546090])


def _owens_t_quadrature(h, a):
  r = jnp.square(a)[..., None] * jnp.expand_dims(_OWENS_T_NODES, tuple(range(a.ndim)))
  integrand = jnp.exp(-0.5 * jnp.square(h)[..., None] * (1. + r)) / (1. + r)
  return a * (integrand @ _OWENS_T_WEIGHTS)


@custom_jvp
def _owens_t(h, a):
  h = jnp.abs(h)
  abs_a = jnp.abs(a)
  root_2 = np.array(np.sqrt(2), h.dtype)
  h_normed = h / root_2
  small_a = jnp.where(abs_a <= 1., abs_a, jnp.reciprocal(abs_a))
  small_h = jnp.where(abs_a <= 1., h, abs_a * h)
  out = _owens_t_quadrature(small_h, small_a)
  # exact at h = 0 and at a = 1
  out = jnp.where(small_h == 0., jnp.arctan(small_a) / (2 * np.pi), out)
  out = jnp.where(small_a == 1.,
                  0.125 * lax_erfc(-small_h / root_2) * lax_erfc(small_h / root_2), out)
  # T(h, a) = (Q(h) + Q(ah)) / 2 - Q(h) Q(ah) - T(ah, 1/a) for |a| > 1, Q the upper tail
  normh, normah = lax_erfc(h_normed), lax_erfc(abs_a * h_normed)
  out = jnp.where(abs_a > 1.,
                  jnp.where(abs_a * h <= 0.67,
                            0.25 - 0.25 * lax_erf(h_normed) * lax_erf(abs_a * h_normed) - out,
                            0.25 * (normh + normah - normh * normah) - out),
                  out)
  out = lax_sign(a) * out
  return jnp.where(jnp.isnan(a) | jnp.isnan(h), jnp.full_like(out, np.nan), out)


@_owens_t.defjvp
def _owens_t_jvp(primals, tangents):
  h, a = primals
  dh, da = tangents
  out = _owens_t(h, a)
  root_2 = np.array(np.sqrt(2), h.dtype)
  d_h = (-exp(-0.5 * square(h)) * lax_erf(a * h / root_2)
         / (2. * np.array(np.sqrt(2. * np.pi), h.dtype)))
  d_a = exp(-0.5 * (square(a) + 1.) * square(h)) / (2. * np.pi * (square(a) + 1.))
  return out, (d_h * dh + d_a * da).astype(out.dtype)


def owens_t(h, a):
  """Owen's T function T(h, a)."""
  h, a = inexact_arrays("owens_t", h, a)
  return _owens_t(h, a)
