"""Special functions written in lax operations: the regularized incomplete gamma
functions (igamma, igammac) and their parameter derivative, the gamma-sample derivative,
the regularized incomplete beta function, Hurwitz's zeta (XLA's chlo.zeta) and the
exponentially scaled Bessel functions i0e/i1e (i0e's Chebyshev expansion, as XLA's).

The series and continued fractions iterate in a ``while_loop`` until every element has
converged; 16-bit floats compute in float32.
"""
from __future__ import annotations

import enum

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.avals import tangent_aval
from xjax._src.core.values import get_aval
from xjax._src.interpreters import ad
from xjax._src.interpreters.ad import Zero
from xjax._src.primitives.lax import elementwise as ew
from xjax._src.primitives.lax.elementwise import (abs, add, digamma, div, eq, exp, ge, gt, le,
                                                  lgamma, log, log1p, lt, mul, ne, select_n,
                                                  sub)
from xjax._src.primitives.lax.operand_checks import broadcasting_shape, dtype_checker
from xjax._src.primitives.lax.primitive_builders import lowering_from, standard_primitive
from xjax._src.primitives.lax.control_flow.loops import while_loop
from xjax._src.primitives.lax.reductions import reduce_or

_float = dtype_checker("float")


def _c(like, v):
  return ew._const(like, v)


def _where(pred, on_true, on_false):
  shape = get_aval(pred).shape
  return select_n(pred, ew.broadcast_to_aval(on_false, shape),
                  ew.broadcast_to_aval(on_true, shape))


def _prepared(fn):
  """Runs ``fn`` on operands broadcast to one shape, in float32 for 16-bit inputs."""
  def run(*args):
    shape = broadcasting_shape("special", [get_aval(a).shape for a in args])
    args = [ew.broadcast_to_aval(a, shape) for a in args]
    dt = get_aval(args[0]).dtype
    if np.dtype(dt).itemsize >= 4:
      return fn(*args)
    out = fn(*[ew.convert_element_type(a, np.float32) for a in args])
    return ew.convert_element_type(out, dt)
  return run


# ---------------------------------------------------------------------------------------
# Incomplete gamma: XLA's algorithm (Cephes's series and continued fraction, with their
# derivatives in a carried along), operation for operation as JAX computes it, so that
# the results agree bit for bit.

class _Mode(enum.Enum):
  VALUE = 1              # P(a, x) (series) or Q(a, x) (continued fraction)
  DERIVATIVE = 2         # its derivative in a
  SAMPLE_DERIVATIVE = 3  # d sample / d a of a Gamma(a) sample x


def _any(pred):
  return reduce_or(pred, tuple(range(get_aval(pred).ndim)))


def _finfo(x):
  return dtypes.finfo(get_aval(x).dtype)


def _series(ax, x, a, enabled, mode):
  """The power series of P(a, x) (or a derivative), for x < 1 or x <= a."""
  eps = _finfo(x).eps

  def body(vals):
    enabled, r, c, ans, x, dc_da, dans_da = vals
    r = add(r, _c(r, 1))
    dc_da = sub(mul(dc_da, div(x, r)), div(mul(c, x), mul(r, r)))
    dans_da = add(dans_da, dc_da)
    c = mul(c, div(x, r))
    ans = add(ans, c)
    if mode is _Mode.VALUE:
      going = gt(div(c, ans), _c(c, eps))
    else:
      going = gt(abs(div(dc_da, dans_da)), _c(c, eps))
    new = (r, c, ans, x, dc_da, dans_da)
    return (ew.bitwise_and(enabled, going),
            *(select_n(enabled, old, n) for old, n in zip(vals[1:], new)))

  one, zero = ew._full_like_value(a, 1), ew._full_like_value(a, 0)
  vals = while_loop(lambda vals: _any(vals[0]), body, (enabled, a, one, one, x, zero, zero))
  ans, dans_da = vals[3], vals[6]
  if mode is _Mode.VALUE:
    return div(mul(ans, ax), a)
  dlogax_da = sub(log(x), digamma(add(a, _c(a, 1))))
  if mode is _Mode.DERIVATIVE:
    return div(mul(ax, add(mul(ans, dlogax_da), dans_da)), a)
  return div(mul(ew.neg(add(dans_da, mul(ans, dlogax_da))), x), a)


def _continued_fraction(ax, x, a, enabled, mode):
  """The continued fraction of Q(a, x) (or a derivative), for x >= 1 and x > a; at most
  2,000 terms, rescaled by eps whenever the numerators grow past 1 / eps."""
  eps = _finfo(x).eps

  def body(vals):
    (enabled, ans, t, y, z, c, pkm1, qkm1, pkm2, qkm2,
     dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da, dans_da) = vals
    c, y, z = add(c, _c(c, 1)), add(y, _c(y, 1)), add(z, _c(z, 2))
    yc = mul(y, c)
    pk = sub(mul(pkm1, z), mul(pkm2, yc))
    qk = sub(mul(qkm1, z), mul(qkm2, yc))
    nonzero = ne(qk, _c(qk, 0))
    r = div(pk, qk)
    t = select_n(nonzero, ew._full_like_value(r, 1), abs(div(sub(ans, r), r)))
    ans = select_n(nonzero, ans, r)
    dpk_da = add(sub(sub(mul(dpkm1_da, z), pkm1), mul(dpkm2_da, yc)), mul(pkm2, c))
    dqk_da = add(sub(sub(mul(dqkm1_da, z), qkm1), mul(dqkm2_da, yc)), mul(qkm2, c))
    dans_da_new = select_n(nonzero, dans_da, div(sub(dpk_da, mul(ans, dqk_da)), qk))
    grad_change = select_n(nonzero, ew._full_like_value(dans_da, 1),
                           abs(sub(dans_da_new, dans_da)))
    pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
    dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da = dpkm1_da, dqkm1_da, dpk_da, dqk_da
    rescale = gt(abs(pk), _c(pk, 1 / eps))
    (pkm2, pkm1, qkm2, qkm1, dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da) = (
        select_n(rescale, v, mul(v, _c(v, eps)))
        for v in (pkm2, pkm1, qkm2, qkm1, dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da))
    going = gt(t, _c(t, eps)) if mode is _Mode.VALUE else gt(grad_change, _c(t, eps))
    new = (ans, t, y, z)
    rest = (pkm1, qkm1, pkm2, qkm2, dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da, dans_da_new)
    return (ew.bitwise_and(enabled, going),
            *(select_n(enabled, old, n) for old, n in zip(vals[1:5], new)), c,
            *(select_n(enabled, old, n) for old, n in zip(vals[6:], rest)))

  def cond(vals):
    return ew.bitwise_and(lt(vals[5], _c(vals[5], 2000)), _any(vals[0]))

  y = sub(_c(a, 1), a)
  z = add(add(x, y), _c(x, 1))
  pkm2, qkm2 = ew._full_like_value(x, 1), x
  pkm1 = add(x, _c(x, 1))
  qkm1 = mul(z, x)
  ans = div(pkm1, qkm1)
  zero = ew._full_like_value(x, 0)
  dqkm1_da = ew.neg(x)
  dans_da = div(sub(zero, mul(ans, dqkm1_da)), qkm1)
  vals = while_loop(cond, body, (enabled, ans, ew._full_like_value(x, 1), y, z, _c(x, 0),
                                 pkm1, qkm1, pkm2, qkm2, zero, zero, zero, dqkm1_da, dans_da))
  ans = vals[1]
  if mode is _Mode.VALUE:
    return mul(ans, ax)
  dans_da = vals[14]
  dlogax_da = sub(log(x), digamma(a))
  if mode is _Mode.DERIVATIVE:
    return mul(ax, add(mul(ans, dlogax_da), dans_da))
  return ew.neg(mul(add(dans_da, mul(ans, dlogax_da)), x))


def _any_of(*preds):
  out = preds[0]
  for p in preds[1:]:
    out = ew.bitwise_or(out, p)
  return out


def _log_ax(a, x):
  """(x^a e^-x / Gamma(a), whether its log underflows)."""
  log_ax = sub(sub(mul(a, log(x)), x), lgamma(a))
  return exp(log_ax), lt(log_ax, ew.neg(log(_c(x, _finfo(x).max))))


def _domain(a, x):
  """(x == inf, a == 0, x == 0, where P and Q are undefined: NaNs, negatives, a = x = 0)."""
  is_nan = ew.bitwise_or(ne(a, a), ne(x, x))  # (JAX's order)
  x_inf, a0, x0 = eq(x, _c(x, np.inf)), eq(a, _c(a, 0)), eq(x, _c(x, 0))
  return x_inf, a0, x0, _any_of(lt(x, _c(x, 0)), lt(a, _c(a, 0)), ew.bitwise_and(a0, x0),
                                is_nan)


def _igamma_impl(a, x):
  x_inf, a0, x0, domain_error = _domain(a, x)
  use_fraction = ew.bitwise_and(ge(x, _c(x, 1)), gt(x, a))
  ax, underflow = _log_ax(a, x)
  enabled = ew.bitwise_not(_any_of(x0, domain_error, underflow, x_inf))
  out = _where(use_fraction,
               sub(_c(a, 1), _continued_fraction(
                   ax, x, a, ew.bitwise_and(enabled, use_fraction), _Mode.VALUE)),
               _series(ax, x, a, ew.bitwise_and(enabled, ew.bitwise_not(use_fraction)),
                       _Mode.VALUE))
  out = _where(x0, _c(a, 0), out)
  out = _where(x_inf, _c(a, 1), out)
  return _where(domain_error, _c(a, np.nan), out)


def _igammac_impl(a, x):
  x_inf, a0, x0, domain_error = _domain(a, x)
  use_series = ew.bitwise_or(lt(x, _c(x, 1)), lt(x, a))
  ax, underflow = _log_ax(a, x)
  enabled = ew.bitwise_not(_any_of(domain_error, underflow, x_inf, a0))
  series = _series(ax, x, a, ew.bitwise_and(enabled, use_series), _Mode.VALUE)
  fraction = _continued_fraction(ax, x, a, ew.bitwise_and(enabled, ew.bitwise_not(use_series)),
                                 _Mode.VALUE)
  out = _where(use_series, sub(_c(a, 1), series), fraction)
  out = _where(ew.bitwise_or(x_inf, a0), _c(a, 0), out)
  return _where(domain_error, _c(a, np.nan), out)


def _derivative_in_a(mode):
  """d/da P(a, x) (DERIVATIVE) or the Gamma(a)-sample derivative (SAMPLE_DERIVATIVE)."""
  def impl(a, x):
    is_nan = ew.bitwise_or(ne(a, a), ne(x, x))
    x0 = eq(x, _c(x, 0))
    domain_error = ew.bitwise_or(lt(x, _c(x, 0)), le(a, _c(a, 0)))
    use_fraction = ew.bitwise_and(gt(x, _c(x, 1)), gt(x, a))
    ax, underflow = _log_ax(a, x)
    enabled = ew.bitwise_not(_any_of(x0, domain_error, underflow, is_nan))
    out = _where(use_fraction,
                 ew.neg(_continued_fraction(ax, x, a, ew.bitwise_and(enabled, use_fraction),
                                            mode)),
                 _series(ax, x, a, ew.bitwise_and(enabled, ew.bitwise_not(use_fraction)),
                         mode))
    out = _where(x0, _c(a, 0), out)
    return _where(ew.bitwise_or(domain_error, is_nan), _c(a, np.nan), out)
  return impl


def _special(name, impl):
  prim = standard_primitive(name, ew._nary_abstract_eval(name, _float),
                            lowering_from(_prepared(impl)))
  prim.batch = ew.elementwise_batch(prim)
  prim.sharding_rule = ew.broadcasting_sharding_rule(name)
  return prim


def _dp_dx(a, x):
  """d/dx P(a, x) = x^(a-1) e^-x / Gamma(a)."""
  return exp(sub(add(ew.neg(x), mul(sub(a, _c(a, 1)), log(x))), lgamma(a)))


igamma_p = _special("igamma", _igamma_impl)
igammac_p = _special("igammac", _igammac_impl)
igamma_grad_a_p = _special("igamma_grad_a", _derivative_in_a(_Mode.DERIVATIVE))
ad.defjvp(igamma_p, ew._broadcasting_jvp(lambda t, a, x: mul(t, igamma_grad_a(a, x))),
          ew._broadcasting_jvp(lambda t, a, x: mul(t, _dp_dx(a, x))))
ad.defjvp(igammac_p, ew._broadcasting_jvp(lambda t, a, x: ew.neg(mul(t, igamma_grad_a(a, x)))),
          ew._broadcasting_jvp(lambda t, a, x: ew.neg(mul(t, _dp_dx(a, x)))))


def igamma(a, x):
  """The regularized lower incomplete gamma function P(a, x)."""
  return igamma_p.bind(a, x)


def igammac(a, x):
  """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
  return igammac_p.bind(a, x)


def igamma_grad_a(a, x):
  """d/da of ``igamma(a, x)``."""
  return igamma_grad_a_p.bind(a, x)


def random_gamma_grad(a, x):
  """The derivative of a Gamma(a) sample ``x`` with respect to ``a`` (implicit
  differentiation of the CDF). As JAX, not a primitive: its operations are traced inline,
  so forward mode differentiates them and reverse mode stops at their while loops."""
  for v in (a, x):
    dt = get_aval(v).dtype
    if not dtypes.issubdtype(dt, np.floating):
      raise TypeError(f"random_gamma_grad does not accept dtype {np.dtype(dt).name}. "
                      "Accepted dtypes are subtypes of floating.")
  return _prepared(_derivative_in_a(_Mode.SAMPLE_DERIVATIVE))(a, x)


# ---------------------------------------------------------------------------------------
# Regularized incomplete beta

def _betainc_numerator(i, a, b, x):
  """The i-th partial numerator of I_x(a, b)'s continued fraction (DLMF 8.17.23); the
  first is 1 (all partial denominators are 1)."""
  i = ew.broadcast_to_aval(i, get_aval(a).shape)
  m_int = div(sub(i, np.int32(1)), np.int32(2))
  m = ew.convert_element_type(m_int, get_aval(a).dtype)
  one, two = _c(a, 1), _c(a, 2)
  a2m = add(a, mul(two, m))
  first_even = div(mul(ew.neg(add(a, b)), x), add(a, one))
  even = _where(eq(m_int, np.int32(0)), first_even,
                div(mul(mul(ew.neg(add(a, m)), add(add(a, b), m)), x),
                    mul(a2m, add(a2m, one))))
  odd = div(mul(mul(m, sub(b, m)), x), mul(sub(a2m, one), a2m))
  return _where(eq(i, np.int32(1)), _c(x, 1),
                _where(eq(ew.rem(i, np.int32(2)), np.int32(0)), even, odd))


def _betacf(a, b, x):
  """I_x(a, b)'s continued fraction, by the Lentz-Thompson-Barnett algorithm as XLA's:
  every element iterates until all have converged (at most 199 terms for float32, 599
  for float64)."""
  small = _c(x, dtypes.finfo(get_aval(x).dtype).eps / 2)
  one = _c(x, 1)
  steps = np.int32(200 if get_aval(x).dtype == np.float32 else 600)

  def floor_(v):
    return _where(lt(abs(v), small), small, v)

  def body(s):
    i, _, c, d, h = s
    numerator = _betainc_numerator(i, a, b, x)
    c = floor_(add(one, div(numerator, c)))
    d = div(one, floor_(add(one, mul(numerator, d))))
    delta = mul(c, d)
    going = _any(ge(abs(sub(delta, one)), small))
    return add(i, np.int32(1)), going, c, d, mul(h, delta)
  h = ew.broadcast_to_aval(small, get_aval(x).shape)
  return while_loop(lambda s: ew.bitwise_and(lt(s[0], steps), s[1]), body,
                    (np.int32(1), np.bool_(True), h, mul(h, _c(h, 0)), h))[-1]


def _betainc_impl(a, b, x):
  """I_x(a, b), as XLA's: the continued fraction at x < (a + 1) / (a + b + 2), else
  1 - I_(1-x)(b, a)."""
  zero, one, inf = _c(x, 0), _c(x, 1), _c(x, np.inf)
  a0 = ew.bitwise_or(eq(a, zero), eq(b, inf))
  b0 = ew.bitwise_or(eq(b, zero), eq(a, inf))
  x0, x1 = eq(x, zero), eq(x, one)
  is_nan = _any_of(ne(a, a), ne(b, b), ne(x, x))
  is_zero = ew.bitwise_or(ew.bitwise_and(b0, ew.bitwise_not(x1)), ew.bitwise_and(a0, x0))
  is_one = ew.bitwise_or(ew.bitwise_and(a0, ew.bitwise_not(x0)), ew.bitwise_and(b0, x1))
  bad = _any_of(lt(a, zero), lt(b, zero), lt(x, zero), gt(x, one), ew.bitwise_and(a0, b0),
                is_nan)
  direct = lt(x, div(add(a, one), add(add(a, b), _c(b, 2))))
  a, b, x = _where(direct, a, b), _where(direct, b, a), _where(direct, x, sub(one, x))
  cf = _betacf(a, b, x)
  lbeta_small_a = sub(lgamma(b), lgamma(add(a, b)))
  lbeta = add(lgamma(a), lbeta_small_a)
  log1m_x_b = mul(log1p(ew.neg(x)), b)
  factor = _where(lt(a, _c(a, dtypes.finfo(get_aval(a).dtype).tiny * 2)),
                  exp(sub(log1m_x_b, lbeta_small_a)),
                  div(exp(sub(add(mul(log(x), a), log1m_x_b), lbeta)), a))
  out = mul(cf, factor)
  out = _where(direct, out, sub(one, out))
  out = _where(is_zero, zero, out)
  out = _where(is_one, one, out)
  return _where(bad, _c(out, np.nan), out)


regularized_incomplete_beta_p = _special("regularized_incomplete_beta", _betainc_impl)


def _betainc_jvp(primals, tangents):
  a, b, x = primals
  if type(tangents[0]) is not Zero or type(tangents[1]) is not Zero:
    raise ValueError("Betainc gradient with respect to a and b not supported.")
  out = regularized_incomplete_beta_p.bind(a, b, x)
  tx = tangents[2]
  if type(tx) is Zero:
    return out, Zero(tangent_aval(get_aval(out)))
  lbeta = sub(add(lgamma(a), lgamma(b)), lgamma(add(a, b)))
  dx = exp(sub(add(mul(sub(b, _c(b, 1)), log1p(ew.neg(x))), mul(sub(a, _c(a, 1)), log(x))),
               lbeta))
  return out, ew.broadcast_to_aval(mul(dx, tx), get_aval(out).shape)


regularized_incomplete_beta_p.jvp = _betainc_jvp


def betainc(a, b, x):
  """The regularized incomplete beta function I_x(a, b)."""
  return regularized_incomplete_beta_p.bind(a, b, x)


# ---------------------------------------------------------------------------------------
# Hurwitz zeta

zeta_p = standard_primitive("zeta", ew._nary_abstract_eval("zeta", _float),
                            ew._lower_nary("chlo.zeta"))
zeta_p.batch = ew.elementwise_batch(zeta_p)
zeta_p.sharding_rule = ew.broadcasting_sharding_rule("zeta")


def zeta(x, q):
  """The Hurwitz zeta function: sum over n >= 0 of (n + q) ** -x."""
  return zeta_p.bind(x, q)


# ---------------------------------------------------------------------------------------
# Exponentially scaled modified Bessel functions of order 0 and 1 (chlo.bessel_i0e/i1e)

bessel_i0e_p = ew.unary_primitive(
    "bessel_i0e", "chlo.bessel_i0e", _float,
    jvp2=lambda t, y, x: mul(t, sub(bessel_i1e(x), mul(ew.sign(x), y))),
    lowering=lowering_from(lambda x: _bessel_i0e_impl(x)))
bessel_i1e_p = ew.unary_primitive("bessel_i1e", "chlo.bessel_i1e", _float,
                                  jvp2=lambda t, y, x: mul(t, _bessel_i1e_deriv(y, x)))


def bessel_i0e(x):
  """Elementwise ``bessel_i0e``: exp(-|x|) I0(x)."""
  return bessel_i0e_p.bind(x)


def bessel_i1e(x):
  """Elementwise ``bessel_i1e``: exp(-|x|) I1(x)."""
  return bessel_i1e_p.bind(x)


def _bessel_i1e_deriv(y, x):
  """i0e(x) - y (sign(x) + 1/x), and its limit 0.5 where |x| is within eps of 0."""
  eps = dtypes.finfo(get_aval(x).dtype).eps
  not_tiny = gt(abs(x), ew._const(x, eps))
  safe_x = select_n(not_tiny, ew._full_like_value(x, eps), x)
  d = sub(bessel_i0e(safe_x), mul(y, add(ew.sign(safe_x), ew.reciprocal(safe_x))))
  return select_n(not_tiny, ew._full_like_value(x, 0.5), d)


# Chebyshev coefficients of exp(-|x|) I0(x) on [0, 8] and of sqrt(x) exp(-x) I0(x) on
# (8, inf), as in the Cephes library (XLA has no i0e op).
_I0E_A = (-4.41534164647933937950e-18, 3.33079451882223809783e-17, -2.43127984654795469359e-16,
          1.71539128555513303061e-15, -1.16853328779934516808e-14, 7.67618549860493561688e-14,
          -4.85644678311192946090e-13, 2.95505266312963983461e-12, -1.72682629144155570723e-11,
          9.67580903537323691224e-11, -5.18979560163526290666e-10, 2.65982372468238665035e-09,
          -1.30002500998624804212e-08, 6.04699502254191894932e-08, -2.67079385394061173391e-07,
          1.11738753912010371815e-06, -4.41673835845875056359e-06, 1.64484480707288970893e-05,
          -5.75419501008210370398e-05, 1.88502885095841655729e-04, -5.76375574538582365885e-04,
          1.63947561694133579842e-03, -4.32430999505057594430e-03, 1.05464603945949983183e-02,
          -2.37374148058994688156e-02, 4.93052842396707084878e-02, -9.49010970480476444210e-02,
          1.71620901522208775349e-01, -3.04682672343198398683e-01, 6.76795274409476084995e-01)
_I0E_B = (-7.23318048787475395456e-18, -4.83050448594418207126e-18, 4.46562142029675999901e-17,
          3.46122286769746109310e-17, -2.82762398051658348494e-16, -3.42548561967721913462e-16,
          1.77256013305652638360e-15, 3.81168066935262242075e-15, -9.55484669882830764870e-15,
          -4.15056934728722208663e-14, 1.54008621752140982691e-14, 3.85277838274214270114e-13,
          7.18012445138366623367e-13, -1.79417853150680611778e-12, -1.32158118404477131188e-11,
          -3.14991652796324136454e-11, 1.18891471078464383424e-11, 4.94060238822496958910e-10,
          3.39623202570838634515e-09, 2.26666899049817806459e-08, 2.04891858946906374183e-07,
          2.89137052083475648297e-06, 6.88975834691682398426e-05, 3.36911647825569408990e-03,
          8.04490411014108831608e-01)


def _chebyshev(x, coeffs):
  b0, b1, b2 = ew._const(x, coeffs[0]), ew._const(x, 0), ew._const(x, 0)
  for c in coeffs[1:]:
    b2, b1 = b1, b0
    b0 = add(sub(mul(x, b1), b2), ew._const(x, c))
  return mul(ew._const(x, 0.5), sub(b0, b2))


def _bessel_i0e_impl(x):
  dt = get_aval(x).dtype
  if dt in (np.float16, dtypes.bfloat16):  # evaluated in float32, as XLA's own expansion
    return ew.convert_element_type(_bessel_i0e_impl(ew.convert_element_type(x, np.float32)), dt)
  # float32 takes Cephes' float32 expansions, their last 18 and 7 terms (as JAX)
  a, b = (_I0E_A, _I0E_B) if dt == np.float64 else (_I0E_A[-18:], _I0E_B[-7:])
  z = abs(x)
  small = _chebyshev(sub(mul(z, ew._const(z, 0.5)), ew._const(z, 2)), a)
  safe = ew.max(z, ew._const(z, 8))
  large = div(_chebyshev(sub(div(ew._const(z, 32), safe), ew._const(z, 2)), b), ew.sqrt(safe))
  return select_n(le(z, ew._const(z, 8)), large, small)
