"""Confluent (1F1) and Gauss (2F1) hypergeometric functions of real arguments. 1F1 as
JAX's (its series or asymptotic expansion, with their own derivative series); 2F1 by power
series of fixed length (so every transformation differentiates them), with Pfaff's and the
1 - x transformations to keep the series argument small."""
from __future__ import annotations

import numpy as np

from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.custom_derivatives import custom_jvp
from xjax._src.primitives.lax.control_flow.loops import fori_loop, while_loop
from xjax._src.primitives.lax.elementwise import digamma
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays, real_only
from xjax._src.libraries.scipy.special.gamma_functions import gamma

_TERMS_2F1 = 400


def _series(ratio, like, n_terms):
  """1 + sum_k t_k with t_k = t_{k-1} * ratio(k - 1) (a fixed-length scan)."""
  def body(k, carry):
    t, total = carry
    t = t * ratio(k.astype(like.dtype))
    return t, total + t
  return fori_loop(0, n_terms, body, (jnp.ones_like(like), jnp.ones_like(like)))[1]


def _hyp1f1_sum(a, b, x, first, weight):
  """first + sum_k weight(k) t_k, t_k the series' terms (a)_k x^k / ((b)_k k!) from k = 1,
  until a term is below eps relative to the sum or 250 terms; scalars."""
  eps = np.array(np.finfo(x.dtype).eps, x.dtype)

  def body(s):
    total, k, term = s
    kf = k.astype(x.dtype)
    return (total + weight(term, kf), k + 1,
            term * ((a + kf) / (b + kf) * x / (kf + 1)))
  return while_loop(lambda s: (s[1] < 250) & (abs(s[2]) / abs(s[0]) > eps), body,
                    (jnp.asarray(first, x.dtype), np.int32(1), a / b * x))[0]


def _hyp1f1_asymptotic(a, b, x):
  """The asymptotic expansion for large |x| (Pearson, Olver & Porter 2014, eq. 3.8)."""
  eps = np.array(np.finfo(x.dtype).eps, x.dtype)

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


def _hyp2f1_series(a, b, c, x):
  return _series(lambda k: (a + k) * (b + k) / ((c + k) * (k + 1)) * x, x, _TERMS_2F1)


def _hyp2f1_unit(a, b, c, x):
  """2F1 for 0 <= x < 1: the series below 0.9, the 1 - x connection formula above."""
  near = x > 0.9
  direct = _hyp2f1_series(a, b, c, jnp.where(near, 0.0, x))
  y = jnp.where(near, 1 - x, 0.5)
  s = c - a - b
  first = gamma(c) * gamma(s) / (gamma(c - a) * gamma(c - b)) * _hyp2f1_series(
      a, b, 1 - s, y)
  second = gamma(c) * gamma(-s) / (gamma(a) * gamma(b)) * y ** s * _hyp2f1_series(
      c - a, c - b, 1 + s, y)
  return jnp.where(near, first + second, direct)


@compiled_when_eager(staged="hyp2f1")
def hyp2f1(a, b, c, x):
  """The Gauss hypergeometric function 2F1(a, b; c; x) for real x < 1 (and x == 1)."""
  a, b, c, x = jnp.broadcast_arrays(*inexact_arrays("hyp2f1", a, b, c, x))
  real_only("hyp2f1", x)
  neg = x < 0
  # Pfaff: 2F1(a, b; c; x) = (1 - x)^-a 2F1(a, c - b; c; x / (x - 1))
  safe_x = jnp.where(neg, x, -1.0)
  z = jnp.where(neg, safe_x / (safe_x - 1), jnp.where(x < 1, x, 0.5))
  b2 = jnp.where(neg, c - b, b)
  inner = _hyp2f1_unit(a, b2, c, z)
  out = jnp.where(neg, (1 - safe_x) ** (-a) * inner, inner)
  s = c - a - b
  at_one = jnp.where(s > 0, gamma(c) * gamma(jnp.where(s > 0, s, 1.0)) /
                     (gamma(c - a) * gamma(c - b)), np.inf)
  out = jnp.where(x == 1, at_one, jnp.where(x > 1, np.nan, out))
  out = jnp.where((a == 0) | (b == 0), 1.0, out)
  return jnp.where((c == jnp.floor(c)) & (c <= 0), np.inf, out).astype(x.dtype)
