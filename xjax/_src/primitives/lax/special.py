"""Special functions written in lax operations: the regularized incomplete gamma
functions (igamma, igammac) and their parameter derivative, the gamma-sample derivative,
the regularized incomplete beta function, and Hurwitz's zeta (XLA's chlo.zeta).

The series and continued fractions iterate in a ``while_loop`` until every element has
converged; 16-bit floats compute in float32.
"""
from __future__ import annotations

import numpy as np

from xjax._src.core.avals import tangent_aval
from xjax._src.core.values import get_aval
from xjax._src.interpreters import ad
from xjax._src.interpreters.ad import Zero
from xjax._src.primitives.lax import elementwise as ew
from xjax._src.primitives.lax.elementwise import (abs, add, digamma, div, eq, exp, gt, le, lgamma,
                                                  log, log1p, lt, mul, ne, select_n, sub)
from xjax._src.primitives.lax.operand_checks import broadcasting_shape, dtype_checker
from xjax._src.primitives.lax.primitive_builders import lowering_from, standard_primitive
from xjax._src.primitives.lax.control_flow.loops import while_loop
from xjax._src.primitives.lax.reductions import reduce_and

_MAX_ITER = 2000
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


def _iterate(body, state, done):
  """Applies ``body`` to ``state`` until ``done`` holds everywhere (or _MAX_ITER steps)."""

  def cond(carry):
    i, _, d = carry
    return ew.bitwise_and(lt(i, np.int32(_MAX_ITER)),
                          ew.bitwise_not(reduce_and(d, tuple(range(get_aval(d).ndim)))))

  def step(carry):
    i, s, d = carry
    new, conv = body(s)
    s = tuple(_where(d, old, n) for old, n in zip(s, new))
    return add(i, np.int32(1)), s, ew.bitwise_or(d, conv)
  return while_loop(cond, step, (np.int32(0), tuple(state), done))[1]


def _eps(x):
  return _c(x, np.finfo(get_aval(x).dtype).eps)


# ---------------------------------------------------------------------------------------
# Incomplete gamma

def _log_prefactor(a, x):
  return sub(sub(mul(a, log(x)), x), lgamma(a))


def _small(d, total):
  return le(abs(d), mul(abs(total), _eps(total)))


def _igamma_series(a, x, active):
  """(P(a, x), dP/da) by the power series (good for x <= max(1, a))."""
  def body(s):
    r, c, dc, ans, dans = s
    r = add(r, _c(r, 1))
    dc = sub(mul(dc, div(x, r)), div(mul(c, div(x, r)), r))
    c = mul(c, div(x, r))
    ans, dans = add(ans, c), add(dans, dc)
    return (r, c, dc, ans, dans), ew.bitwise_and(_small(c, ans), _small(dc, dans))
  one = ew._full_like_value(x, 1)
  zero = ew._full_like_value(x, 0)
  _, _, _, ans, dans = _iterate(body, (a, one, zero, one, zero), ew.bitwise_not(active))
  pre = div(exp(_log_prefactor(a, x)), a)
  dlog = sub(sub(log(x), digamma(a)), div(_c(a, 1), a))
  return mul(ans, pre), mul(pre, add(dans, mul(ans, dlog)))


def _igammac_fraction(a, x, active):
  """(Q(a, x), dQ/da) by the continued fraction (good for x > max(1, a))."""
  big = _c(x, 2.0 ** 52 if get_aval(x).dtype == np.float64 else 2.0 ** 24)
  y = sub(_c(a, 1), a)
  z = add(add(x, y), _c(x, 1))
  zero = ew._full_like_value(x, 0)
  pkm2, qkm2, pkm1, qkm1 = add(zero, _c(x, 1)), x, add(x, _c(x, 1)), mul(z, x)
  dqkm1 = ew.neg(x)

  def body(s):
    c, y, z, pkm2, qkm2, pkm1, qkm1, dpkm2, dqkm2, dpkm1, dqkm1, ans, dans = s
    c, y, z = add(c, _c(c, 1)), add(y, _c(y, 1)), add(z, _c(z, 2))
    yc = mul(y, c)
    pk = sub(mul(pkm1, z), mul(pkm2, yc))
    qk = sub(mul(qkm1, z), mul(qkm2, yc))
    dpk = add(sub(sub(mul(dpkm1, z), pkm1), mul(dpkm2, yc)), mul(pkm2, c))
    dqk = add(sub(sub(mul(dqkm1, z), qkm1), mul(dqkm2, yc)), mul(qkm2, c))
    nonzero = ne(qk, _c(qk, 0))
    safe_qk = _where(nonzero, qk, _c(qk, 1))
    r = div(pk, safe_qk)
    dr = div(sub(dpk, mul(r, dqk)), safe_qk)
    conv = ew.bitwise_and(nonzero, ew.bitwise_and(_small(sub(ans, r), r),
                                                  _small(sub(dans, dr), dr)))
    ans, dans = _where(nonzero, r, ans), _where(nonzero, dr, dans)
    scale = _where(gt(abs(pk), big), div(_c(pk, 1), big), _c(pk, 1))
    vals = [mul(v, scale) for v in (pkm1, qkm1, pk, qk, dpkm1, dqkm1, dpk, dqk)]
    return (c, y, z, *vals, ans, dans), conv
  state = (zero, y, z, pkm2, qkm2, pkm1, qkm1, zero, zero, zero, dqkm1, div(pkm1, qkm1),
           div(ew.neg(mul(div(pkm1, qkm1), dqkm1)), qkm1))
  out = _iterate(body, state, ew.bitwise_not(active))
  ans, dans = out[-2], out[-1]
  pre = exp(_log_prefactor(a, x))
  # Far in the tail the prefactor underflows to 0 while the fraction overflows: Q is 0.
  tail = eq(pre, _c(pre, 0))
  q = _where(tail, _c(pre, 0), mul(ans, pre))
  dq = _where(tail, _c(pre, 0), mul(pre, add(dans, mul(ans, sub(log(x), digamma(a))))))
  return q, dq


def _igamma_parts(a, x):
  """(use_fraction, (P, dP/da), (Q, dQ/da), nan mask, x == 0, a == 0, x == inf, a == inf)."""
  zero = _c(x, 0)
  bad = ew.bitwise_or(ew.bitwise_or(lt(a, zero), lt(x, zero)),
                      ew.bitwise_or(ne(a, a), ne(x, x)))
  ainf = eq(a, _c(a, np.inf))
  special = ew.bitwise_or(ew.bitwise_or(bad, le(x, zero)), le(a, zero))
  special = ew.bitwise_or(ew.bitwise_or(special, eq(x, _c(x, np.inf))), ainf)
  frac = ew.bitwise_and(gt(x, _c(x, 1)), gt(x, a))
  safe_a = _where(special, _c(a, 1), a)
  safe_x = _where(special, _c(x, 1), x)
  ok = ew.bitwise_not(special)
  p = _igamma_series(safe_a, safe_x, ew.bitwise_and(ok, ew.bitwise_not(frac)))
  q = _igammac_fraction(safe_a, safe_x, ew.bitwise_and(ok, frac))
  return frac, p, q, bad, eq(x, zero), eq(a, _c(a, 0)), eq(x, _c(x, np.inf)), ainf


def _igamma_impl(a, x):
  frac, (p, _), (q, _), bad, x0, a0, xinf, ainf = _igamma_parts(a, x)
  out = _where(frac, sub(_c(q, 1), q), p)
  out = _where(ew.bitwise_or(a0, xinf), _c(out, 1), _where(x0, _c(out, 0), out))
  out = _where(ew.bitwise_and(ainf, ew.bitwise_not(xinf)), _c(out, 0), out)
  nan = ew.bitwise_or(ew.bitwise_and(a0, lt(x, _c(x, 1))), _infinite_a_nan(ainf, x, xinf))
  return _where(ew.bitwise_or(bad, nan), _c(out, np.nan), out)


def _infinite_a_nan(ainf, x, xinf):
  """Where XLA's (so JAX's) incomplete gamma with a == inf is NaN: a finite x >= 1."""
  return ew.bitwise_and(ainf, ew.bitwise_not(ew.bitwise_or(lt(x, _c(x, 1)), xinf)))


def _igammac_impl(a, x):
  frac, (p, _), (q, _), bad, x0, a0, xinf, ainf = _igamma_parts(a, x)
  out = _where(frac, q, sub(_c(p, 1), p))
  out = _where(ew.bitwise_or(a0, xinf), _c(out, 0), _where(x0, _c(out, 1), out))
  out = _where(ew.bitwise_and(ainf, ew.bitwise_not(xinf)), _c(out, 1), out)
  nan = ew.bitwise_or(ew.bitwise_and(a0, x0), _infinite_a_nan(ainf, x, xinf))
  return _where(ew.bitwise_or(bad, nan), _c(out, np.nan), out)


def _igamma_grad_a_impl(a, x):
  frac, (_, dp), (_, dq), bad, x0, a0, xinf, ainf = _igamma_parts(a, x)
  out = _where(frac, ew.neg(dq), dp)
  out = _where(ew.bitwise_or(x0, xinf), _c(out, 0), out)
  return _where(ew.bitwise_or(ew.bitwise_or(bad, a0), ainf), _c(out, np.nan), out)


def _dp_dx(a, x):
  """d/dx P(a, x) = x^(a-1) e^-x / Gamma(a)."""
  return exp(sub(add(ew.neg(x), mul(sub(a, _c(a, 1)), log(x))), lgamma(a)))


def _random_gamma_grad_impl(a, x):
  return ew.neg(div(_igamma_grad_a_impl(a, x), _dp_dx(a, x)))


def _special(name, impl):
  prim = standard_primitive(name, ew._nary_abstract_eval(name, _float),
                            lowering_from(_prepared(impl)))
  prim.batch = ew.elementwise_batch(prim)
  return prim


igamma_p = _special("igamma", _igamma_impl)
igammac_p = _special("igammac", _igammac_impl)
igamma_grad_a_p = _special("igamma_grad_a", _igamma_grad_a_impl)
random_gamma_grad_p = _special("random_gamma_grad", _random_gamma_grad_impl)
def _random_gamma_grad_jvp(primals, tangents):
  """As JAX: the JVP of its implementation (forward mode works; reverse mode stops at the
  implementation's while loops with their ValueError)."""
  outs, out_tangents = ad.jvp_flat(lambda a, x: [_random_gamma_grad_impl(a, x)], primals,
                                   [ad.instantiate(t) for t in tangents])
  return outs[0], out_tangents[0]


random_gamma_grad_p.jvp = _random_gamma_grad_jvp
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
  differentiation of the CDF)."""
  return random_gamma_grad_p.bind(a, x)


# ---------------------------------------------------------------------------------------
# Regularized incomplete beta

def _betacf(a, b, x, active):
  """The continued fraction of I_x(a, b) (modified Lentz)."""
  tiny = _c(x, np.finfo(get_aval(x).dtype).tiny * 1e3)
  one = _c(x, 1)

  def floor_(v):
    return _where(lt(abs(v), tiny), tiny, v)

  qab, qap, qam = add(a, b), add(a, one), sub(a, one)
  d = div(one, floor_(sub(one, div(mul(qab, x), qap))))

  def body(s):
    m, c, d, h = s
    m = add(m, one)
    m2 = add(m, m)
    aa = div(mul(mul(m, sub(b, m)), x), mul(add(qam, m2), add(a, m2)))
    d = div(one, floor_(add(one, mul(aa, d))))
    c = floor_(add(one, div(aa, c)))
    h = mul(h, mul(d, c))
    aa = ew.neg(div(mul(mul(add(a, m), add(qab, m)), x), mul(add(a, m2), add(qap, m2))))
    d = div(one, floor_(add(one, mul(aa, d))))
    c = floor_(add(one, div(aa, c)))
    delta = mul(d, c)
    return (m, c, d, mul(h, delta)), le(abs(sub(delta, one)), mul(_eps(x), _c(x, 4)))
  zero = mul(x, _c(x, 0))
  return _iterate(body, (zero, add(zero, one), d, d), ew.bitwise_not(active))[-1]


def _lbeta(a, b):
  return sub(add(lgamma(a), lgamma(b)), lgamma(add(a, b)))


def _betainc_impl(a, b, x):
  zero, one = _c(x, 0), _c(x, 1)
  bad = ew.bitwise_or(ew.bitwise_or(lt(a, zero), lt(b, zero)),
                      ew.bitwise_or(lt(x, zero), gt(x, one)))
  bad = ew.bitwise_or(bad, ew.bitwise_or(ne(x, x), ew.bitwise_or(ne(a, a), ne(b, b))))
  inf = _c(x, np.inf)
  a_inf, b_inf = eq(a, inf), eq(b, inf)
  bad = ew.bitwise_or(bad, ew.bitwise_and(eq(a, zero), eq(b, zero)))
  bad = ew.bitwise_or(bad, ew.bitwise_and(a_inf, b_inf))
  # the limits, as JAX: x = 0 or 1 first, then a or b at 0, then a or b infinite
  a0, b0 = ew.bitwise_or(eq(a, zero), b_inf), ew.bitwise_or(eq(b, zero), a_inf)
  x0, x1 = eq(x, zero), eq(x, one)
  special = ew.bitwise_or(ew.bitwise_or(bad, ew.bitwise_or(a0, b0)), ew.bitwise_or(x0, x1))
  a = _where(special, one, a)
  b = _where(special, one, b)
  x = _where(special, _c(x, 0.5), x)
  swap = gt(x, div(add(a, one), add(add(a, b), _c(x, 2))))
  sa, sb, sx = _where(swap, b, a), _where(swap, a, b), _where(swap, sub(one, x), x)
  front = exp(sub(add(mul(sa, log(sx)), mul(sb, log1p(ew.neg(sx)))), _lbeta(sa, sb)))
  r = div(mul(front, _betacf(sa, sb, sx, ew.bitwise_not(special))), sa)
  out = _where(swap, sub(one, r), r)
  out = _where(x0, zero, _where(x1, one, _where(a0, one, _where(b0, zero, out))))
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
  one = _c(x, 1)
  dx = exp(sub(add(mul(sub(a, one), log(x)), mul(sub(b, one), log1p(ew.neg(x)))),
               _lbeta(a, b)))
  return out, ew.broadcast_to_aval(mul(tx, dx), get_aval(out).shape)


regularized_incomplete_beta_p.jvp = _betainc_jvp


def betainc(a, b, x):
  """The regularized incomplete beta function I_x(a, b)."""
  return regularized_incomplete_beta_p.bind(a, b, x)


# ---------------------------------------------------------------------------------------
# Hurwitz zeta

zeta_p = standard_primitive("zeta", ew._nary_abstract_eval("zeta", _float),
                            ew._lower_nary("chlo.zeta"))
zeta_p.batch = ew.elementwise_batch(zeta_p)


def zeta(x, q):
  """The Hurwitz zeta function: sum over n >= 0 of (n + q) ** -x."""
  return zeta_p.bind(x, q)
