"""Exponential integrals (expi, exp1, expn) by Cephes's algorithms, as JAX computes them
(rational approximations for Ei; for E_n a power series, a continued fraction or an
expansion in n); the sine and cosine integrals (sici) by power series for small arguments
and a continued fraction (evaluated from a fixed depth) for large ones."""
from __future__ import annotations

from functools import partial

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.primitives.custom_derivatives import custom_jvp
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax.control_flow.loops import while_loop
from xjax._src.primitives.lax.elementwise import lgamma, mul as lax_mul, neg as lax_neg
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays, real_only

# Cephes's rational approximations of Ei(x) e^-x x (ei.c): (0, 2], then (2^k, 2^(k+1)] for
# k = 1..5 and (64, inf), as polynomials in x, then in w = 1/x (numerators, denominators)
_EI_RATIONAL = (
    ((-5.350447357812542947283e0, 2.185049168816613393830e2, -4.176572384826693777058e3,
      5.541176756393557601232e4, -3.313381331178144034309e5, 1.592627163384945414220e6),
     (1.0, -5.250547959112862969197e1, 1.259616186786790571525e3, -1.756549581973534652631e4,
      1.493062117002725991967e5, -7.294949239640527645655e5, 1.592627163384945429726e6)),
    ((1.981808503259689673238e-2, -1.271645625984917501326e0, -2.088160335681228318920e0,
      2.755544509187936721172e0, -4.409507048701600257171e-1, 4.665623805935891391017e-2,
      -1.545042679673485262580e-3, 7.059980605299617478514e-5),
     (1.0, 1.476498670914921440652e0, 5.629177174822436244827e-1, 1.699017897879307263248e-1,
      2.291647179034212017463e-2, 4.450150439728752875043e-3, 1.727439612206521482874e-4,
      3.953167195549672482304e-5)),
    ((-1.373215375871208729803e0, -7.084559133740838761406e-1, 1.580806855547941010501e0,
      -2.601500427425622944234e-1, 2.994674694113713763365e-2, -1.038086040188744005513e-3,
      4.371064420753005429514e-5, 2.141783679522602903795e-6),
     (1.0, 8.585231423622028380768e-1, 4.483285822873995129957e-1, 7.687932158124475434091e-2,
      2.449868241021887685904e-2, 8.832165941927796567926e-4, 4.590952299511353531215e-4,
      -4.729848351866523044863e-6, 2.665195537390710170105e-6)),
    ((-2.106934601691916512584e0, 1.732733869664688041885e0, -2.423619178935841904839e-1,
      2.322724180937565842585e-2, 2.372880440493179832059e-4, -8.343219561192552752335e-5,
      1.363408795605250394881e-5, -3.655412321999253963714e-7, 1.464941733975961318456e-8,
      6.176407863710360207074e-10),
     (1.0, -2.298062239901678075778e-1, 1.105077041474037862347e-1, -1.566542966630792353556e-2,
      2.761106850817352773874e-3, -2.089148012284048449115e-4, 1.708528938807675304186e-5,
      -4.459311796356686423199e-7, 1.394634930353847498145e-8, 6.150865933977338354138e-10)),
    ((-2.458119367674020323359e-1, -1.483382253322077687183e-1, 7.248291795735551591813e-2,
      -1.348315687380940523823e-2, 1.342775069788636972294e-3, -7.942465637159712264564e-5,
      2.644179518984235952241e-6, -4.239473659313765177195e-8),
     (1.0, -1.044225908443871106315e-1, -2.676453128101402655055e-1, 9.695000254621984627876e-2,
      -1.601745692712991078208e-2, 1.496414899205908021882e-3, -8.462452563778485013756e-5,
      2.728938403476726394024e-6, -4.239462431819542051337e-8)),
    ((1.212561118105456670844e-1, -5.823133179043894485122e-1, 2.348887314557016779211e-1,
      -3.040034318113248237280e-2, 1.510082146865190661777e-3, -2.523137095499571377122e-5),
     (1.0, -1.002252150365854016662e0, 2.928709694872224144953e-1, -3.337004338674007801307e-2,
      1.560544881127388842819e-3, -2.523137093603234562648e-5)),
    ((-7.657847078286127362028e-1, 6.886192415566705051750e-1, -2.132598113545206124553e-1,
      3.346107552384193813594e-2, -3.076541477344756050249e-3, 1.747119316454907477380e-4,
      -6.103711682274170530369e-6, 1.218032765428652199087e-7, -1.086076102793290233007e-9),
     (1.0, -1.888802868662308731041e0, 1.066691687211408896850e0, -2.751915982306380647738e-1,
      3.930852688233823569726e-2, -3.414684558602365085394e-3, 1.866844370703555398195e-4,
      -6.345146083130515357861e-6, 1.239754287483206878024e-7, -1.086076102793126632978e-9)),
)


def _ei_piece(k):
  """Ei(x) on the k-th interval of ``_EI_RATIONAL``."""
  def piece(x):
    num, den = (np.array(c, x.dtype) for c in _EI_RATIONAL[k])
    if k == 0:
      return x * (jnp.polyval(num, x) / jnp.polyval(den, x)) + np.euler_gamma + jnp.log(x)
    one = np.array(1, x.dtype)
    w = one / x
    f = w * (jnp.polyval(num, w) / jnp.polyval(den, w)) + one
    return jnp.exp(x) * w * f
  return piece


def _ei_positive(x):
  bounds = [(0, 2)] + [(2 ** i, 2 ** (i + 1)) for i in range(1, 6)]
  conds = [(np.array(lo, x.dtype) < x) & (x <= np.array(hi, x.dtype)) for lo, hi in bounds]
  return jnp.piecewise(x, conds, [_ei_piece(k) for k in range(7)])


@custom_jvp
@compiled_when_eager(staged="expi")
def expi(x):
  """The exponential integral Ei(x), by Cephes's rational approximations (as JAX)."""
  (x,) = inexact_arrays("expi", x)
  real_only("expi", x)
  return jnp.piecewise(x, [x < 0], [lambda v: -exp1(-v), _ei_positive])


@expi.defjvp
@compiled_when_eager(staged="expi_jvp")
def _expi_jvp(primals, tangents):
  (x,), (t,) = primals, tangents
  return expi(x), jnp.exp(x) / x * t


def _en_series(x, n):
  """E_n(x) by its power series (Cephes's expn.c, for x <= 1); scalars."""
  one, zero = np.array(1, x.dtype), np.array(0, x.dtype)
  eps = np.array(dtypes.finfo(x.dtype).eps, x.dtype)
  psi = while_loop(lambda s: s[0] < s[1], lambda s: (s[0] + one, s[1], s[2] + one / s[0]),
                   (jnp.ones_like(n), n, -np.euler_gamma - jnp.log(x)))[2]
  is_one = n == 1
  ans = jnp.where(is_one, zero, one / (one - jnp.where(is_one, one + one, n)))

  def body(s):  # the carries in JAX's order (its dict's sorted keys)
    ans, pk, _, x, xk, yk, z = s
    xk = xk + one
    yk = yk * (z / xk)
    pk = pk + one
    ans = ans + jnp.where(pk != zero, yk / pk, zero)
    return ans, pk, jnp.where(ans != zero, abs(yk / ans), one), x, xk, yk, z
  state = (ans, one - n, np.array(np.inf, x.dtype), x, zero, one, -x)
  ans = while_loop(lambda s: (s[3] > zero) & (s[2] > eps), body, state)[0]
  return (-x) ** (n - 1) * psi / jnp.exp(lgamma(n)) - ans


def _en_fraction(x, n):
  """E_n(x) by its continued fraction (Cephes's expn.c, for x > 1); scalars."""
  one, zero = np.array(1, x.dtype), np.array(0, x.dtype)
  big = np.array(1.44115188075855872e17, x.dtype)
  eps = np.array(dtypes.finfo(x.dtype).eps, x.dtype)

  def body(s):  # the carries in JAX's order (its dict's sorted keys)
    ans, k, pkm1, pkm2, qkm1, qkm2, r, _, x = s
    k = k + one
    odd = jnp.remainder(k, 2.0) == one
    yk = jnp.where(odd, one, x)
    xk = jnp.where(odd, n + (k - one) / 2.0, k / 2.0)
    pk = pkm1 * yk + pkm2 * xk
    qk = qkm1 * yk + qkm2 * xk
    nz = qk != zero
    r = jnp.where(nz, pk / qk, r)
    t = jnp.where(nz, abs((ans - r) / r), one)
    ans = jnp.where(nz, r, ans)
    big_pk = abs(pk) > big
    pkm1, pkm2, qkm1, qkm2 = (jnp.where(big_pk, v / big, v) for v in (pk, pkm1, qk, qkm1))
    return ans, k, pkm1, pkm2, qkm1, qkm2, r, t, x
  state = (one / (x + n), jnp.ones_like(n), one, one, x + n, x, zero, np.array(np.inf, x.dtype),
           x)
  ans = while_loop(lambda s: (s[8] > zero) & (s[7] > eps), body, state)[0]
  return ans * jnp.exp(-x)


def _en_large_n(x, n):
  """E_n(x) by its asymptotic expansion in n (Cephes's expn.c, for n >= 5000); scalars."""
  one = np.array(1, x.dtype)
  xk = x + n
  yk = one / (xk * xk)
  ans = yk * n * (np.array(6, x.dtype) * x * x - np.array(8, x.dtype) * n * x + n * n)
  ans = yk * (ans + n * (n - np.array(2, x.dtype) * x))
  ans = yk * (ans + n)
  return (ans + one) * jnp.exp(-x) / xk


@compiled_when_eager(staged="expn")
def _expn_scalar(n, x):
  zero, one = np.array(0, x.dtype), np.array(1, x.dtype)
  conds = [(n < 0) | (x < zero), (x == zero) & (n < 2), (x == zero) & (n >= 2),
           (n == 0) & (x >= zero), n >= 5000, x > one]
  # under vmap each piece runs on every element; where it is not selected, the loops get
  # operands that end them (JAX's can run forever there)
  return jnp.piecewise(x, conds, [
      np.nan, np.inf, one / jnp.where(n == 1, n + n, n), jnp.exp(-x) / x, _en_large_n,
      lambda x, n: _en_fraction(jnp.where(x > one, x, 2.0), n),
      lambda x, n: _en_series(jnp.where(x > one, 0.5, x), jnp.where(n >= 5000, 1.0, n))], n=n)


# eager, one program (as JAX's vmap of its jitted scalar function)
_expn_vectorized = compiled_when_eager(jnp.vectorize(_expn_scalar))


def expn(n, x):
  """The generalized exponential integral E_n(x), by Cephes's expn.c (as JAX)."""
  return _expn(n, x)


@partial(custom_jvp, nondiff_argnums=(0,))
def _expn(n, x):
  n, x = inexact_arrays("expn", n, x)
  real_only("expn", x)
  return _expn_vectorized(n, x)


@_expn.defjvp
# (``n`` static where it can be: a traced ``n`` would be a nondiff argument of the inner
# custom_jvp, which JAX's second derivatives cannot handle either)
@compiled_when_eager(staged="expn_jvp", static_argnames=("n",))
def _expn_jvp(n, primals, tangents):
  (x,), (t,) = primals, tangents
  if isinstance(n, int) and n == 0:  # E_-1 (Cephes has no negative n): -d/dx e^-x / x
    return _expn(n, x), lax_mul(lax_neg(t), jnp.exp(-x) / x * (1 + 1 / x))
  return _expn(n, x), lax_mul(lax_neg(t), _expn(n - 1, x))


def exp1(x):
  """The exponential integral E1(x) = E_n(x) at n = 1 (as JAX)."""
  (x,) = inexact_arrays("exp1", x)
  real_only("exp1", x)
  return _expn(1, x)


# Cephes's sici.c coefficients (highest degree first): the series' rational functions
# for |x| <= 4 (SN/SD for Si, CN/CD for Ci) and the asymptotic auxiliary functions f, g
# for 4 < |x| <= 8 and beyond.
_SICI = {
    "SN": [-8.39167827910303881427E-11, 4.62591714427012837309E-8,
           -9.75759303843632795789E-6, 9.76945438170435310816E-4,
           -4.13470316229406538752E-2, 1.00000000000000000302E0],
    "SD": [2.03269266195951942049E-12, 1.27997891179943299903E-9, 4.41827842801218905784E-7,
           9.96412122043875552487E-5, 1.42085239326149893930E-2, 9.99999999999999996984E-1],
    "CN": [2.02524002389102268789E-11, -1.35249504915790756375E-8,
           3.59325051419993077021E-6, -4.74007206873407909465E-4, 2.89159652607555242092E-2,
           -1.00000000000000000080E0],
    "CD": [4.07746040061880559506E-12, 3.06780997581887812692E-9, 1.23210355685883423679E-6,
           3.17442024775032769882E-4, 5.10028056236446052392E-2, 4.00000000000000000080E0],
    "FN4": [4.23612862892216586994E0, 5.45937717161812843388E0, 1.62083287701538329132E0,
           1.67006611831323023771E-1, 6.81020132472518137426E-3, 1.08936580650328664411E-4,
           5.48900223421373614008E-7],
    "FD4": [1, 8.16496634205391016773E0, 7.30828822505564552187E0, 1.86792257950184183883E0,
           1.78792052963149907262E-1, 7.01710668322789753610E-3, 1.10034357153915731354E-4,
           5.48900252756255700982E-7],
    "GN4": [8.71001698973114191777E-2, 6.11379109952219284151E-1, 3.97180296392337498885E-1,
           7.48527737628469092119E-2, 5.38868681462177273157E-3, 1.61999794598934024525E-4,
           1.97963874140963632189E-6, 7.82579040744090311069E-9],
    "GD4": [1, 1.64402202413355338886E0, 6.66296701268987968381E-1,
           9.88771761277688796203E-2, 6.22396345441768420760E-3, 1.73221081474177119497E-4,
           2.02659182086343991969E-6, 7.82579218933534490868E-9],
    "FN8": [4.55880873470465315206E-1, 7.13715274100146711374E-1, 1.60300158222319456320E-1,
           1.16064229408124407915E-2, 3.49556442447859055605E-4, 4.86215430826454749482E-6,
           3.20092790091004902806E-8, 9.41779576128512936592E-11, 9.70507110881952024631E-14],
    "FD8": [1.0, 9.17463611873684053703E-1, 1.78685545332074536321E-1,
           1.22253594771971293032E-2, 3.58696481881851580297E-4, 4.92435064317881464393E-6,
           3.21956939101046018377E-8, 9.43720590350276732376E-11, 9.70507110881952025725E-14],
    "GN8": [6.97359953443276214934E-1, 3.30410979305632063225E-1, 3.84878767649974295920E-2,
           1.71718239052347903558E-3, 3.48941165502279436777E-5, 3.47131167084116673800E-7,
           1.70404452782044526189E-9, 3.85945925430276600453E-12, 3.14040098946363334640E-15],
    "GD8": [1.0, 1.68548898811011640017E0, 4.87852258695304967486E-1,
           4.67913194259625806320E-2, 1.90284426674399523638E-3, 3.68475504442561108162E-5,
           3.57043223443740838771E-7, 1.72693748966316146736E-9, 3.87830166023954706752E-12,
           3.14040098946363335242E-15],
}


def _sici_poly(name, x):
  return jnp.polyval(np.array(_SICI[name], dtype=x.dtype), x)


def _sici_series(x):
  """(Si, Ci) for 0 <= x <= 4: Cephes's rational approximations (in JAX's order)."""
  t = x * x
  si = (x * _sici_poly("SN", t)) / _sici_poly("SD", t)
  ci = np.euler_gamma + jnp.log(x) + t * _sici_poly("CN", t) / _sici_poly("CD", t)
  return jnp.where(x == 0, 0.0, si), jnp.where(x == 0, -np.inf, ci)


def _sici_asymptotic(x):
  """(Si, Ci) for 4 < x <= 1e9 from Cephes's auxiliary functions f and g."""
  s, c, z = jnp.sin(x), jnp.cos(x), 1.0 / (x * x)
  f4 = _sici_poly("FN4", z) / (x * _sici_poly("FD4", z))
  g4 = z * _sici_poly("GN4", z) / _sici_poly("GD4", z)
  f8 = _sici_poly("FN8", z) / (x * _sici_poly("FD8", z))
  g8 = z * _sici_poly("GN8", z) / _sici_poly("GD8", z)
  near = x < 8.0
  f, g = jnp.where(near, f4, f8), jnp.where(near, g4, g8)
  return (np.pi / 2) - f * c - g * s, f * s - g * c


def _sici_large(x):
  """(Si, Ci) for x > 1e9 (and infinity)."""
  si, ci = (np.pi / 2) - jnp.cos(x) / x, jnp.sin(x) / x
  inf = jnp.isposinf(x)
  return jnp.where(inf, np.pi / 2, si), jnp.where(inf, 0.0, ci)


@custom_jvp
@compiled_when_eager(staged="sici")
def sici(x):
  """The sine and cosine integrals (Si(x), Ci(x)), by Cephes's approximations: a
  custom_jvp around the jitted computation, as JAX's (Ci of a negative x is Ci(|x|), NaN
  at -inf)."""
  (x,) = inexact_arrays("sici", x)
  real_only("sici", x)
  ax = jnp.abs(x)
  series, asymptotic, large = _sici_series(ax), _sici_asymptotic(ax), _sici_large(ax)
  conds = [ax <= 4, (ax > 4) & (ax <= 1e9)]
  si = jnp.select(conds, [series[0], asymptotic[0]], large[0])
  ci = jnp.select(conds, [series[1], asymptotic[1]], large[1])
  return jnp.sign(x) * si, jnp.where(jnp.isneginf(x), np.nan, ci)


@sici.defjvp
@compiled_when_eager(staged="sici_jvp")
def _sici_jvp(primals, tangents):
  (x,), (t,) = primals, tangents
  return sici(x), (jnp.sinc(x / np.pi) * t, jnp.cos(x) / x * t)
