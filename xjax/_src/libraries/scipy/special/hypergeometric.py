"""Confluent (1F1) and Gauss (2F1) hypergeometric functions of real arguments, as JAX's: 1F1
by its series or asymptotic expansion, 2F1 by its series, terminating series or 1 - x
transformation (Pearson, Olver & Porter 2014), each with its own derivative series."""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.custom_derivatives import custom_jvp
from xjax._src.primitives.lax.control_flow.loops import fori_loop, while_loop
from xjax._src.primitives.lax.elementwise import digamma, select_n
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays, real_only
from xjax._src.libraries.scipy.special.gamma_functions import gamma

def _hyp1f1_sum(a, b, x, first, weight):
  """first + sum_k weight(k) t_k, t_k the series' terms (a)_k x^k / ((b)_k k!) from k = 1,
  until a term is below eps relative to the sum or 250 terms; scalars."""
  eps = np.array(dtypes.finfo(x.dtype).eps, x.dtype)

  def body(s):
    total, k, term = s
    kf = k.astype(x.dtype)
    return (total + weight(term, kf), k + 1,
            term * ((a + kf) / (b + kf) * x / (kf + 1)))
  return while_loop(lambda s: (s[1] < 250) & (abs(s[2]) / abs(s[0]) > eps), body,
                    (jnp.asarray(first, x.dtype), np.int32(1), a / b * x))[0]


def _hyp1f1_asymptotic(a, b, x):
  """The asymptotic expansion for large |x| (Pearson, Olver & Porter 2014, eq. 3.8)."""
  eps = np.array(dtypes.finfo(x.dtype).eps, x.dtype)

  def body(s):
    total, k, term = s
    kf = k.astype(x.dtype)
    return total + term, k + 1, term * ((b - a + kf) * (1 - a + kf) / (kf + 1) / x)
  total = while_loop(lambda s: (s[1] < 250) & (abs(s[2]) / abs(s[0]) > eps), body,
                     (jnp.ones_like(x), np.int32(1), (b - a) * (1 - a) / x))[0]
  return gamma(b) / gamma(a) * jnp.exp(x) * x ** (a - b) * total


@jnp.vectorize
def _hyp1f1_scalar(a, b, x):
  # as JAX's vmapped cond: both branches on every element
  out = jnp.where(abs(x) < 100, _hyp1f1_sum(a, b, x, 1, lambda t, k: t),
                  _hyp1f1_asymptotic(a, b, x))
  out = jnp.where((b == 0) & (a != 0), np.inf, out)
  out = jnp.where((a == b) & (a != 0), jnp.exp(x), out)
  return jnp.where(a == 0, jnp.ones_like(x), out)


@custom_jvp
@compiled_when_eager(staged="hyp1f1")
def _hyp1f1(a, b, x):
  return _hyp1f1_scalar(a, b, x)


@compiled_when_eager(staged="_hyp1f1_a_derivative")
@jnp.vectorize
def _hyp1f1_da(a, b, x):
  return _hyp1f1_sum(a, b, x, 0, lambda t, k: t * (digamma(a + k) - digamma(a)))


@compiled_when_eager(staged="_hyp1f1_b_derivative")
@jnp.vectorize
def _hyp1f1_db(a, b, x):
  return _hyp1f1_sum(a, b, x, 0, lambda t, k: t * (digamma(b) - digamma(b + k)))


@compiled_when_eager(staged="_hyp1f1_x_derivative")
def _hyp1f1_dx(a, b, x):
  return a / b * _hyp1f1(a + 1, b + 1, x)


_hyp1f1.defjvps(lambda t, ans, a, b, x: _hyp1f1_da(a, b, x) * t,
                lambda t, ans, a, b, x: _hyp1f1_db(a, b, x) * t,
                lambda t, ans, a, b, x: _hyp1f1_dx(a, b, x) * t)


def hyp1f1(a, b, x):
  """The confluent hypergeometric function 1F1(a; b; x): its power series below |x| = 100,
  its asymptotic expansion beyond (as JAX)."""
  a, b, x = inexact_arrays("hyp1f1", a, b, x)
  real_only("hyp1f1", x)
  return _hyp1f1(a, b, x)


def _hyp2f1_terminal(a, b, c, x):
  """The terminating series when a or b is a non-positive integer (Pearson, Olver & Porter
  2014, eq. 4.1), summed up to the larger such |a| or |b| (one below |c| if c is too)."""
  eps = dtypes.finfo(x.dtype).eps * 50
  swap = (b < a) & (jnp.abs(b - jnp.round(b)) < eps) & ~((c % 1 == 0) & (c <= 0) & (c > b))
  a, b = jnp.where(swap, b, a), jnp.where(swap, a, b)
  a = jnp.abs(a)

  def body(i, state):
    total, term = state
    term = term * (-(a - i + 1) / (c + i - 1) * (b + i - 1) / i * x)
    return total + term, term
  one = jnp.array(1, dtype=x.dtype)
  return fori_loop(jnp.array(1, dtype=a.dtype), a + 1, body, (one, one))[0]


def _hyp2f1_serie(a, b, c, x):
  """The power series until a term is below eps relative to the sum, or 250 terms."""
  rtol = dtypes.finfo(x.dtype).eps

  def body(state):
    total, k, term = state
    total = total + term
    return total, k + 1, term * ((a + k - 1) * (b + k - 1) / (c + k - 1) / k * x)
  init = (jnp.array(0, dtype=x.dtype), jnp.array(1, dtype=x.dtype), jnp.array(1, dtype=x.dtype))
  return while_loop(lambda s: (s[1] < 250) & (abs(s[2]) > rtol * abs(s[0])), body, init)[0]


def _hyp2f1_digamma_transform(a, b, c, x):
  """The 1 - x transformation for integer c - a - b, with its digamma terms (Abramowitz &
  Stegun 15.3.10-12)."""
  rtol = dtypes.finfo(x.dtype).eps
  d = c - a - b
  s = 1 - x
  rd = jnp.round(d)
  e = jnp.where(rd >= 0, d, -d)
  d1 = jnp.where(rd >= 0, d, jnp.array(0, dtype=d.dtype))
  d2 = jnp.where(rd >= 0, jnp.array(0, dtype=d.dtype), d)
  ard = jnp.where(rd >= 0, rd, -rd).astype("int32")
  ax = jnp.log(s)
  y = digamma(1.0) + digamma(1.0 + e) - digamma(a + d1) - digamma(b + d1) - ax
  y = y / gamma(e + 1.0)
  p = (a + d1) * (b + d1) * s / gamma(e + 2.0)

  def body(state):
    p, q, t, y = state
    r = digamma(1.0 + t) + digamma(1.0 + t + e) - digamma(a + t + d1) - digamma(b + t + d1) - ax
    q = p * r
    y = y + q
    p = p * (s * (a + t + d1) / (t + 1.0))
    p = p * ((b + t + d1) / (t + 1.0 + e))
    return p, q, t + 1.0, y
  _, _, _, y = while_loop(lambda st: (st[2] < 250) & (jnp.abs(st[1]) >= rtol * jnp.abs(st[3])),
                          body, (p, y, jnp.array(1, dtype=x.dtype), y))

  def finite_sum(y):
    def term(i, state):
      p, t, y1 = state
      p = p * (s * (a + t + d2) * (b + t + d2) / (1.0 - e + t))
      t = t + 1.0
      p = p / t
      return p, t, y1 + p
    one = jnp.array(1, dtype=x.dtype)
    y1 = fori_loop(1, ard, term, (one, jnp.array(0, dtype=x.dtype), one))[-1]
    g = gamma(c)
    y1 = y1 * (gamma(e) * g / (gamma(a + d1) * gamma(b + d1)))
    y = y * (g / (gamma(a + d2) * gamma(b + d2)))
    y = jnp.where((ard & 1) != 0, -y, y)
    q = s ** rd
    return jnp.where(rd > 0, y * q + y1, y + y1 * q)
  return jnp.where(rd == 0, y * gamma(c) / (gamma(a) * gamma(b)), finite_sum(y))


def _hyp2f1_terminal_or_serie(a, b, c, x):
  """The terminating series, the 1 - x transformation (x > 0.9, integer c - a - b) or the
  power series (Pearson, Olver & Porter 2014, 4.6.1)."""
  eps = dtypes.finfo(x.dtype).eps * 50
  d = c - a - b
  neg_int_a = (a <= 0) & (jnp.abs(a - jnp.round(a)) < eps)
  neg_int_b = (b <= 0) & (jnp.abs(b - jnp.round(b)) < eps)
  neg_int = neg_int_a | neg_int_b
  index = jnp.where((x > 0.9) & ~neg_int, jnp.where(jnp.abs(d - jnp.round(d)) >= eps, 0, 1),
                    jnp.where(neg_int, 2, 0))
  return select_n(index, _hyp2f1_serie(a, b, c, x), _hyp2f1_digamma_transform(a, b, c, x),
                  _hyp2f1_terminal(a, b, c, x))


@jnp.vectorize
def _hyp2f1_scalar(a, b, c, x):
  eps = dtypes.finfo(x.dtype).eps * 50
  d = c - a - b
  s = 1 - x
  ca, cb = c - a, c - b
  index = jnp.where((x == 0) | (((a == 0) | (b == 0)) & (c != 0)), 0,
          jnp.where((c == 0) | ((c < 0) & (c % 1 == 0)), 1,
          jnp.where((d <= -1) & ~((jnp.abs(d - jnp.round(d)) >= eps) & (s < 0)), 2,
          jnp.where((d <= 0) & (x == 1), 1,
          jnp.where((x < 1) & (b == c), 3,
          jnp.where((x < 1) & (a == c), 4,
          jnp.where(x > 1, 1,
          jnp.where(x == 1, 5, 6))))))))
  return select_n(index, jnp.array(1, dtype=x.dtype), jnp.array(np.inf, dtype=x.dtype),
                  s ** d * _hyp2f1_terminal_or_serie(ca, cb, c, x), s ** (-a), s ** (-b),
                  gamma(c) * gamma(d) / (gamma(ca) * gamma(cb)),
                  _hyp2f1_terminal_or_serie(a, b, c, x))


@custom_jvp
@compiled_when_eager(staged="hyp2f1")
def _hyp2f1(a, b, c, x):
  return _hyp2f1_scalar(a, b, c, x)


def _hyp2f1_parameter_derivative(name, digammas):
  """d 2F1 / d(a, b or c): the series weighted by ``digammas(a, b, c, k)``, until a term is
  below eps relative to the sum, or 250 terms."""
  @compiled_when_eager(staged=f"_hyp2f1_{name}_derivative")
  @jnp.vectorize
  def derivative(a, b, c, x):
    precision = dtypes.finfo(x.dtype).eps

    def body(state):
      total, k, term = state
      total = total + term * digammas(a, b, c, k)
      return total, k + 1, term * ((a + k) * (b + k) / (c + k) / (k + 1) * x)
    return while_loop(lambda s: (s[1] < 250) & (abs(s[2]) / abs(s[0]) > precision), body,
                      (0, 1, a * b / c * x))[0]
  return derivative


_hyp2f1_da = _hyp2f1_parameter_derivative("a", lambda a, b, c, k: digamma(a + k) - digamma(a))
_hyp2f1_db = _hyp2f1_parameter_derivative("b", lambda a, b, c, k: digamma(b + k) - digamma(b))
_hyp2f1_dc = _hyp2f1_parameter_derivative("c", lambda a, b, c, k: digamma(c) - digamma(c + k))


@compiled_when_eager(staged="_hyp2f1_x_derivative")
def _hyp2f1_dx(a, b, c, x):
  return a * b / c * _hyp2f1(a + 1, b + 1, c + 1, x)


_hyp2f1.defjvps(lambda t, ans, a, b, c, x: _hyp2f1_da(a, b, c, x) * t,
                lambda t, ans, a, b, c, x: _hyp2f1_db(a, b, c, x) * t,
                lambda t, ans, a, b, c, x: _hyp2f1_dc(a, b, c, x) * t,
                lambda t, ans, a, b, c, x: _hyp2f1_dx(a, b, c, x) * t)


def hyp2f1(a, b, c, x):
  """The Gauss hypergeometric function 2F1(a, b; c; x), as JAX: its power series, the
  terminating series, or the 1 - x transformation, with closed forms at special points."""
  a, b, c, x = inexact_arrays("hyp2f1", a, b, c, x)
  real_only("hyp2f1", x)
  return _hyp2f1(a, b, c, x)
