"""The Faddeeva function w(z) = exp(-z^2) erfc(-iz) (Weideman's rational approximation,
SIAM J. Numer. Anal. 31 (1994)), and the functions of real x that follow from it: erfcx,
dawsn, fresnel."""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.primitives.custom_derivatives import custom_jvp
from xjax._src.primitives.lax.elementwise import complex as lax_complex, erfc, exp
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays, real_only

_SQRT_PI = np.sqrt(np.pi)


def _weideman_coefficients(n: int):
  """Polynomial coefficients (highest power first) of Weideman's approximation."""
  m = 2 * n
  length = np.sqrt(n / np.sqrt(2))
  theta = np.arange(-m + 1, m) * np.pi / m
  t = length * np.tan(theta / 2)
  f = np.concatenate([[0.0], np.exp(-t * t) * (length ** 2 + t * t)])
  a = np.real(np.fft.fft(np.fft.fftshift(f))) / (2 * m)
  return length, a[1:n + 1][::-1].copy()


_L, _COEFFS = _weideman_coefficients(40)


def _w_upper(z):
  """w(z) for Im z >= 0."""
  iz = 1j * z
  denom = _L - iz
  big_z = (_L + iz) / denom
  p = jnp.polyval(jnp.asarray(_COEFFS, dtype=z.dtype), big_z)
  return 2 * p / (denom * denom) + (1 / _SQRT_PI) / denom


@custom_jvp
def _wofz(z):
  upper = jnp.imag(z) >= 0
  zu = jnp.where(upper, z, -z)
  wu = _w_upper(zu)
  return jnp.where(upper, wu, 2 * jnp.exp(-z * z) - wu)


_wofz.defjvps(lambda g, w, z: g * (2j / _SQRT_PI - 2 * z * w))


def wofz(z):
  """The Faddeeva function w(z) = exp(-z^2) erfc(-iz); complex output."""
  (z,) = inexact_arrays("wofz", z)
  if not dtypes.issubdtype(z.dtype, np.complexfloating):
    z = z.astype(dtypes.to_complex_dtype(z.dtype))
  return _wofz(z)


def _cf_erfcx(x, terms: int = 40):
  """erfcx(x) for x >= 4 by the continued fraction of erfc, evaluated from the tail."""
  acc = jnp.zeros_like(x)
  for k in range(terms, 0, -1):
    acc = (k / 2) / (x + acc)
  return (1 / _SQRT_PI) / (x + acc)


@custom_jvp
def _erfcx(x):
  big = x >= 4
  safe_big = jnp.where(big, x, 4.0)
  safe_small = jnp.where(big, 0.0, x)
  direct = exp(safe_small * safe_small) * erfc(safe_small)
  return jnp.where(big, _cf_erfcx(safe_big), direct)


_erfcx.defjvps(lambda g, y, x: g * (2 * x * y - 2 / _SQRT_PI))


def erfcx(x):
  """The scaled complementary error function exp(x^2) erfc(x)."""
  (x,) = inexact_arrays("erfcx", x)
  return _erfcx(x)


# Rybicki's sum for Dawson's integral, step h (error ~ exp(-(pi/2h)^2)), 2 * _RYBICKI_M terms.
_RYBICKI_H = 0.2
_RYBICKI_M = 32


def _dawsn_series(x):
  x2 = x * x
  term, total = x, x
  for n in range(1, 12):
    term = term * (-2 * x2) / (2 * n + 1)
    total = total + term
  return total


def _dawsn_rybicki(x):
  h = _RYBICKI_H
  n0 = 2 * jnp.round(x / (2 * h))
  xp = x - n0 * h
  odd = np.arange(-2 * _RYBICKI_M + 1, 2 * _RYBICKI_M, 2, dtype=np.float64)
  m = jnp.asarray(odd, dtype=x.dtype)
  terms = jnp.exp(-jnp.square(xp[..., None] - m * h)) / (n0[..., None] + m)
  return jnp.sum(terms, axis=-1) / _SQRT_PI


@custom_jvp
def _dawsn(x):
  ax = jnp.abs(x)
  small = ax < 0.2
  huge = ax > 1e7
  mid = ~(small | huge)
  out_small = _dawsn_series(jnp.where(small, x, 0.0))
  out_mid = _dawsn_rybicki(jnp.where(mid, x, 1.0))
  safe_huge = jnp.where(huge, x, 1e7)
  out_huge = 0.5 / safe_huge
  return jnp.where(small, out_small, jnp.where(huge, out_huge, out_mid))


_dawsn.defjvps(lambda g, y, x: g * (1 - 2 * x * y))


def dawsn(x):
  """Dawson's integral exp(-x^2) * integral_0^x exp(t^2) dt."""
  (x,) = inexact_arrays("dawsn", x)
  return _dawsn(x)


def _fresnel_series(x):
  """(S, C) by their power series (|x| < 1)."""
  u = (np.pi / 2) * x * x
  s_term = (np.pi / 2) * x ** 3
  c_term = x
  s_total, c_total = s_term / 3, c_term
  for n in range(1, 14):
    c_term = c_term * (-u * u) / ((2 * n - 1) * (2 * n))
    s_term = s_term * (-u * u) / ((2 * n) * (2 * n + 1))
    c_total = c_total + c_term / (4 * n + 1)
    s_total = s_total + s_term / (4 * n + 3)
  return s_total, c_total


def _fresnel_faddeeva(x):
  """(S, C) for x >= 1 via C + iS = (1+i)/2 (1 - exp(i pi x^2/2) w((1+i) sqrt(pi) x / 2))."""
  cdt = dtypes.to_complex_dtype(x.dtype)
  xc = x.astype(cdt)
  w = _w_upper((1 + 1j) * (_SQRT_PI / 2) * xc)
  phase = (np.pi / 2) * (x * x)
  rot = lax_complex(jnp.cos(phase), jnp.sin(phase))
  out = (0.5 + 0.5j) * (1 - rot * w)
  return jnp.imag(out), jnp.real(out)


@custom_jvp
def _fresnel(x):
  ax = jnp.abs(x)
  small = ax < 1
  huge = ax > 1e6
  s1, c1 = _fresnel_series(jnp.where(small, ax, 0.0))
  s2, c2 = _fresnel_faddeeva(jnp.where(small | huge, 1.0, ax))
  s = jnp.where(small, s1, jnp.where(huge, 0.5, s2))
  c = jnp.where(small, c1, jnp.where(huge, 0.5, c2))
  sign = jnp.sign(x)
  nan = jnp.isnan(x)
  return jnp.where(nan, x, sign * s), jnp.where(nan, x, sign * c)


@_fresnel.defjvp
def _fresnel_jvp(primals, tangents):
  (x,), (g,) = primals, tangents
  s, c = _fresnel(x)
  phase = (np.pi / 2) * x * x
  return (s, c), (g * jnp.sin(phase), g * jnp.cos(phase))


def fresnel(x):
  """The Fresnel integrals (S(x), C(x)) of sin and cos(pi t^2 / 2) from 0 to x."""
  (x,) = inexact_arrays("fresnel", x)
  real_only("fresnel", x)
  return _fresnel(x)
