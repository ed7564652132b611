"""The Faddeeva function w(z) = exp(-z^2) erfc(-iz) (Weideman's N = 32 rational
approximation, SIAM J. Numer. Anal. 31 (1994)), erfcx (directly, or by its asymptotic series
where exp(x^2) overflows), Dawson's integral (Cody, Paciorek & Thacher's rational
approximations), and the Fresnel integrals (Cephes's fresnl) -- all as JAX computes them."""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.core.values import get_aval
from xjax._src.primitives.custom_derivatives import custom_jvp
from xjax._src.primitives.lax.elementwise import (abs as lax_abs, complex as lax_complex,
                                                  convert_element_type, erfc, exp, ge, imag,
                                                  neg, real, select, square)
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays, real_only


def _const(like, value):
  """``value`` as a strong constant of ``like``'s dtype (JAX's ``lax._const`` of an array)."""
  return np.array(value, get_aval(like).dtype)


# w(z) = 2 p(Z) / (L - iz)^2 + 1 / (sqrt(pi) (L - iz)), Z = (L + iz) / (L - iz), for Im z >= 0;
# p's coefficients highest degree first
_WOFZ_L = 4.7568284600108841
_WOFZ_C = np.array([
    -1.3034426067909105e-12, 3.7411838373738471e-12, 8.030427700497756e-12,
    -2.1543593557490879e-11, -5.5442449963237932e-11, 1.165824698850374e-10,
    4.1537441121999766e-10, -5.2310202114920615e-10, -3.2080151339721323e-09,
    8.1248864216535907e-10, 2.3797556530014025e-08, 2.2930438438915445e-08,
    -1.4813078929137642e-07, -4.1840763750512053e-07, 4.2558331397138446e-07,
    4.4015317312832251e-06, 6.8210319443575151e-06, -2.1409619201999998e-05,
    -0.00013075449254579421, -0.00024532980270038237, 0.00039259136070109705,
    0.0045195411053493093, 0.019006155784845501, 0.057304403529837282, 0.14060716226893755,
    0.29544451071508743, 0.54601397206393376, 0.9019254893648001, 1.3455441692345449,
    1.8256696296324815, 2.2635372999002676, 2.5722534081245696])


def _wofz_upper(z):
  """w(z) for Im z >= 0."""
  re = real(z)
  length = lax_complex(_const(re, _WOFZ_L), _const(re, 0.))
  iz = lax_complex(neg(imag(z)), re)
  denom = length - iz
  big_z = (length + iz) / denom
  p = jnp.polyval(jnp.asarray(_WOFZ_C, dtype=big_z.dtype), big_z)
  inv_sqrt_pi = lax_complex(_const(re, 1. / np.sqrt(np.pi)), _const(re, 0.))
  return 2 * p / (denom * denom) + inv_sqrt_pi / denom


@custom_jvp
def _wofz(z):
  upper = ge(imag(z), _const(real(z), 0.))
  w_upper = _wofz_upper(select(upper, z, neg(z)))
  return select(upper, w_upper, 2 * exp(neg(z * z)) - w_upper)


_wofz.defjvps(lambda g, w, z: g * (neg(2 * z * w) + lax_complex(
    _const(real(z), 0.), _const(real(z), 2. / np.sqrt(np.pi)))))


def wofz(z):
  """The Faddeeva function w(z) = exp(-z^2) erfc(-iz); complex output."""
  (z,) = inexact_arrays("wofz", z)
  aval = get_aval(z)
  if not dtypes.issubdtype(aval.dtype, np.complexfloating):
    z = convert_element_type(z, dtypes.to_complex_dtype(aval.dtype), aval.weak_type)
  return _wofz(z)


# erfcx(x) ~ P(1/x^2) / (sqrt(pi) x), P's coefficients (-1)^k (2k-1)!! / 2^k highest first
_ERFCX_ASYMPTOTIC = (7918.06640625, -1055.7421875, 162.421875, -29.53125, 6.5625, -1.875, .75,
                     -.5, 1.)


def _erfcx_impl(x, nterms: int):
  """exp(x^2) erfc(x), by the asymptotic series where exp(x^2) would overflow."""
  large = x > _const(x, np.sqrt(np.log(dtypes.finfo(x.dtype).max)))
  safe_x = select(large, jnp.full_like(x, 1.), x)
  direct = exp(square(safe_x)) * erfc(safe_x)
  t = _const(x, 1.) / square(x)
  p = jnp.polyval(np.array(_ERFCX_ASYMPTOTIC[-nterms:], dtype=x.dtype), t)
  return select(large, p / (x * _const(x, np.sqrt(np.pi))), direct)


@custom_jvp
def _erfcx(x):
  if x.dtype == np.float64:
    return _erfcx_impl(x, nterms=9)
  if x.dtype == np.float32:
    return _erfcx_impl(x, nterms=5)
  return _erfcx_impl(x.astype(np.float32), nterms=5).astype(x.dtype)  # (16-bit floats)


_erfcx.defjvps(lambda g, y, x: g * (2 * x * y - _const(x, 2. / np.sqrt(np.pi))))


def erfcx(x):
  """The scaled complementary error function exp(x^2) erfc(x) (complex: w(iz))."""
  (x,) = inexact_arrays("erfcx", x)
  if dtypes.issubdtype(x.dtype, np.complexfloating):
    return _wofz(lax_complex(neg(imag(x)), real(x)))
  return _erfcx(x)


# Dawson's integral on |x| (odd): x P(x^2) / Q(x^2) below 3.25, else
# (1 + t P(t) / Q(t)) / (2 |x|) with t = 1/x^2 (one pair of polynomials below 6.25, one above)
_DAWSN_AN = np.array([
    1.13681498971755972054e-11, 8.49262267667473811108e-10, 1.94434204175553054283e-8,
    9.53151741254484363489e-7, 3.07828309874913200438e-6, 3.52513368520288738649e-4,
    -8.50149846724410912031e-4, 4.22618223005546594270e-2, -9.17480371773452345351e-2,
    9.99999999999999994612e-1])
_DAWSN_AD = np.array([
    2.40372073066762605484e-11, 1.48864681368493396752e-9, 5.21265281010541664570e-8,
    1.27258478273186970203e-6, 2.32490249820789513991e-5, 3.25524741826057911661e-4,
    3.48805814657162590916e-3, 2.79448531198828973716e-2, 1.58874241960120565368e-1,
    5.74918629489320327824e-1, 1.00000000000000000539e0])
_DAWSN_BN = np.array([
    5.08955156417900903354e-1, -2.44754418142697847934e-1, 9.41512335303534411857e-2,
    -2.18711255142039025206e-2, 3.66207612329569181322e-3, -4.23209114460388756528e-4,
    3.59641304793896631888e-5, -2.14640351719968974225e-6, 9.10010780076391431042e-8,
    -2.40274520828250956942e-9, 3.59233385440928410398e-11])
_DAWSN_BD = np.array([
    1.00000000000000000000e0, -6.31839869873368190192e-1, 2.36706788228248691528e-1,
    -5.31806367003223277662e-2, 8.48041718586295374409e-3, -9.47996768486665330168e-4,
    7.81025592944552338085e-5, -4.55875153252442634831e-6, 1.89100358111421846170e-7,
    -4.91324691331920606875e-9, 7.18466403235734541950e-11])
_DAWSN_CN = np.array([
    -5.90592860534773254987e-1, 6.29235242724368800674e-1, -1.72858975380388136411e-1,
    1.64837047825189632310e-2, -4.86827613020462700845e-4])
_DAWSN_CD = np.array([
    1.00000000000000000000e0, -2.69820057197544900361e0, 1.73270799045947845857e0,
    -3.93708582281939493482e-1, 3.44278924041233391079e-2, -9.73655226040941223894e-4])


def _dawsn_impl(x):
  sign = jnp.sign(x)  # (0 at 0, where the rest is 0 too)
  ax = lax_abs(x)
  t = _const(x, 1.) / square(ax)
  below, above = ax < _const(x, 3.25), ax >= _const(x, 6.25)
  # each region's polynomials at a harmless 1 outside it (their overflow would give inf/inf)
  ax1 = select(below, ax, jnp.full_like(ax, 1.))
  val1 = (ax1 * jnp.polyval(np.array(_DAWSN_AN, x.dtype), square(ax1))
          / jnp.polyval(np.array(_DAWSN_AD, x.dtype), square(ax1)))

  def tail(inside, num, den):
    ti = select(inside, t, jnp.full_like(t, 1.))
    axi = select(inside, ax, jnp.full_like(ax, 1.))
    return (_const(x, 0.5) / axi) * (_const(x, 1.) + ti * jnp.polyval(np.array(num, x.dtype), ti)
                                     / jnp.polyval(np.array(den, x.dtype), ti))

  val2 = tail((ax >= _const(x, 3.25)) & (ax < _const(x, 6.25)), _DAWSN_BN, _DAWSN_BD)
  val3 = tail(above, _DAWSN_CN, _DAWSN_CD)
  return sign * select(below, val1, select(ax < _const(x, 6.25), val2, val3))


@custom_jvp
def _dawsn(x):
  if x.dtype in (np.float32, np.float64):
    return _dawsn_impl(x)
  return _dawsn_impl(x.astype(np.float32)).astype(x.dtype)  # (16-bit floats)


_dawsn.defjvps(lambda g, y, x: g * (_const(x, 1.) - _const(x, 2.) * x * y))


def dawsn(x):
  """Dawson's integral exp(-x^2) * integral_0^x exp(t^2) dt."""
  (x,) = inexact_arrays("dawsn", x)
  if dtypes.issubdtype(x.dtype, np.complexfloating):
    raise ValueError("dawsn does not support complex-valued inputs.")
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
