"""The Faddeeva function w(z) = exp(-z^2) erfc(-iz) (Weideman's rational approximation,
SIAM J. Numer. Anal. 31 (1994)), and the functions of real x that follow from it: erfcx,
dawsn; and the Fresnel integrals (Cephes's fresnl, as JAX)."""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.custom_derivatives import custom_jvp
from xjax._src.primitives.lax.elementwise import erfc, exp
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


_FRESNEL32 = {  # Cephes, single precision
    "sn": (
        1.647629463788700e-9, -1.522754752581096e-7, 8.424748808502400e-6,
            -3.120693124703272e-4, 7.244727626597022e-3, -9.228055941124598e-2,
        5.235987735681432e-1),
        "cn": (
        1.416802502367354e-8, -1.157231412229871e-6, 5.387223446683264e-5,
            -1.604381798862293e-3, 2.818489036795073e-2, -2.467398198317899e-1,
        9.999999760004487e-1),
        "fn": (
        -1.903009855649792e12, 1.355942388050252e11, -4.158143148511033e9, 7.343848463587323e7,
            -8.732356681548485e5, 8.560515466275470e3, -1.032877601091159e2, 2.999401847870011e0),
        "gn": (
        -1.860843997624650e11, 1.278350673393208e10, -3.779387713202229e8, 6.492611570598858e6,
            -7.787789623358162e4, 8.602931494734327e2, -1.493439396592284e1, 9.999841934744914e-1),
}
_FRESNEL64 = {  # Cephes, double precision
    "sn": (
        -2.99181919401019853726e3, 7.08840045257738576863e5, -6.29741486205862506537e7,
        2.54890880573376359104e9, -4.42979518059697779103e10, 3.18016297876567817986e11),
        "sd": (
        1.00000000000000000000e0, 2.81376268889994315696e2, 4.55847810806532581675e4,
        5.17343888770096400730e6, 4.19320245898111231129e8, 2.24411795645340920940e10,
        6.07366389490084639049e11),
        "cn": (
        -4.98843114573573548651e-8, 9.50428062829859605134e-6, -6.45191435683965050962e-4,
        1.88843319396703850064e-2, -2.05525900955013891793e-1, 9.99999999999999998822e-1),
        "cd": (
        3.99982968972495980367e-12, 9.15439215774657478799e-10, 1.25001862479598821474e-7,
        1.22262789024179030997e-5, 8.68029542941784300606e-4, 4.12142090722199792936e-2,
        1.00000000000000000118e0),
        "fn": (
        4.21543555043677546506e-1, 1.43407919780758885261e-1, 1.15220955073585758835e-2,
        3.45017939782574027900e-4, 4.63613749287867322088e-6, 3.05568983790257605827e-8,
        1.02304514164907233465e-10, 1.72010743268161828879e-13, 1.34283276233062758925e-16,
        3.76329711269987889006e-20),
        "fd": (
        1.00000000000000000000e0, 7.51586398353378947175e-1, 1.16888925859191382142e-1,
        6.44051526508858611005e-3, 1.55934409164153020873e-4, 1.84627567348930545870e-6,
        1.12699224763999035261e-8, 3.60140029589371370404e-11, 5.88754533621578410010e-14,
        4.52001434074129701496e-17, 1.25443237090011264384e-20),
        "gn": (
        5.04442073643383265887e-1, 1.97102833525523411709e-1, 1.87648584092575249293e-2,
        6.84079380915393090172e-4, 1.15138826111884280931e-5, 9.82852443688422223854e-8,
        4.45344415861750144738e-10, 1.08268041139020870318e-12, 1.37555460633261799868e-15,
        8.36354435630677421531e-19, 1.86958710162783235106e-22),
        "gd": (
        1.00000000000000000000e0, 1.47495759925128324529e0, 3.37748989120019970451e-1,
        2.53603741420338795122e-2, 8.14679107184306179049e-4, 1.27545075667729118702e-5,
        1.04314589657571990585e-7, 4.60680728146520428211e-10, 1.10273215066240270757e-12,
        1.38796531259578871258e-15, 8.39158816283118707363e-19, 1.86958710162783236342e-22),
}


@compiled_when_eager(staged="sincospisquaredhalf")
def _sincospi_half_square(x):
  """(sin, cos)(pi x^2 / 2), reduced exactly: with s = |x| mod 2, x^2 / 2 = s (|x| - s/2)
  modulo 2 (SciPy's sinpi and cospi)."""
  x = jnp.abs(x)
  s = jnp.fmod(x, 2.0)
  r = jnp.fmod(s * (x - s / 2), 2.0)
  sin = jnp.where(r < 0.5, jnp.sin(np.pi * r),
                  jnp.where(r > 1.5, jnp.sin(np.pi * (r - 2.0)), -jnp.sin(np.pi * (r - 1.0))))
  cos = jnp.where(r == 0.5, 0.0,
                  jnp.where(r < 1.0, -jnp.sin(np.pi * (r - 0.5)), jnp.sin(np.pi * (r - 1.5))))
  return sin, cos


@custom_jvp
def _fresnel(x):
  """Cephes's fresnl (16-bit floats in float32): a power series (float32) or rational
  function (float64) in x^4 below x^2 = 2.5625, the auxiliary functions f and g (their
  asymptotic expansions) above, and 1/2 (float32) or the first asymptotic term past
  36974."""
  dtype = x.dtype
  single = dtype != np.float64
  xa = x.astype(np.float32) if single else x
  c = {k: jnp.array(v, dtype=xa.dtype) for k, v in (_FRESNEL32 if single else _FRESNEL64).items()}
  ax = jnp.abs(xa)
  x2 = ax * ax
  t = x2 * x2
  sinpi, cospi = _sincospi_half_square(ax)
  if single:
    s_small = ax * x2 * jnp.polyval(c["sn"], t)
    c_small = ax * jnp.polyval(c["cn"], t)
    s_large = c_large = 0.5
  else:
    s_small = ax * x2 * jnp.polyval(c["sn"], t) / jnp.polyval(c["sd"], t)
    c_small = ax * jnp.polyval(c["cn"], t) / jnp.polyval(c["cd"], t)
    c_large = 0.5 + 1 / (np.pi * ax) * sinpi
    s_large = 0.5 - 1 / (np.pi * ax) * cospi
  t = np.pi * x2
  u = 1.0 / (t * t)
  t = 1.0 / t
  if single:
    f = 1.0 - u * jnp.polyval(c["fn"], u)
    g = t * jnp.polyval(c["gn"], u)
  else:
    f = 1.0 - u * jnp.polyval(c["fn"], u) / jnp.polyval(c["fd"], u)
    g = t * jnp.polyval(c["gn"], u) / jnp.polyval(c["gd"], u)
  t = np.pi * ax
  c_other = 0.5 + (f * sinpi - g * cospi) / t
  s_other = 0.5 - (f * cospi + g * sinpi) / t
  inf, small, large = jnp.isinf(xa), x2 < 2.5625, ax > 36974.0
  s = jnp.where(inf, 0.5, jnp.where(small, s_small, jnp.where(large, s_large, s_other)))
  c = jnp.where(inf, 0.5, jnp.where(small, c_small, jnp.where(large, c_large, c_other)))
  neg = xa < 0.0
  s, c = jnp.where(neg, -s, s), jnp.where(neg, -c, c)
  return s.astype(dtype), c.astype(dtype)


@_fresnel.defjvp
def _fresnel_jvp(primals, tangents):
  (x,), (g,) = primals, tangents
  sin, cos = _sincospi_half_square(x)
  return _fresnel(x), (sin * g, cos * g)


def fresnel(x):
  """The Fresnel integrals (S(x), C(x)) of sin and cos(pi t^2 / 2) from 0 to x (Cephes's
  algorithm, as JAX)."""
  (x,) = inexact_arrays("fresnel", x)
  real_only("fresnel", x)
  return _fresnel(x)
