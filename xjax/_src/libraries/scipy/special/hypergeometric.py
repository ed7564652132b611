"""Confluent (1F1) and Gauss (2F1) hypergeometric functions of real arguments: power
series of fixed length (so every transformation differentiates them), with Kummer's,
Pfaff's and the 1 - x transformations to keep the series argument small."""
from __future__ import annotations

import numpy as np

from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax.control_flow.loops import fori_loop
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays, real_only
from xjax._src.libraries.scipy.special.gamma_functions import gamma

_TERMS_1F1 = 300
_TERMS_2F1 = 400


def _series(ratio, like, n_terms):
  """1 + sum_k t_k with t_k = t_{k-1} * ratio(k - 1) (a fixed-length scan)."""
  def body(k, carry):
    t, total = carry
    t = t * ratio(k.astype(like.dtype))
    return t, total + t
  return fori_loop(0, n_terms, body, (jnp.ones_like(like), jnp.ones_like(like)))[1]


def _hyp1f1_series(a, b, x):
  return _series(lambda k: (a + k) / (b + k) * x / (k + 1), x, _TERMS_1F1)


def _hyp1f1_asymptotic(a, b, x, shift):
  """Gamma(b)/Gamma(a) e^(x + shift) x^(a-b) sum (b-a)_k (1-a)_k / (k! x^k), for large
  positive x (``shift`` folds Kummer's e^x factor into the exponent)."""
  term, total = jnp.ones_like(x), jnp.ones_like(x)
  for k in range(30):
    term = term * (b - a + k) * (1 - a + k) / ((k + 1) * x)
    total = total + term
  return gamma(b) / gamma(a) * jnp.exp(x + shift) * x ** (a - b) * total


@compiled_when_eager(staged="hyp1f1")
def hyp1f1(a, b, x):
  """The confluent hypergeometric function 1F1(a; b; x) (1 where a == 0, as JAX)."""
  a, b, x = jnp.broadcast_arrays(*inexact_arrays("hyp1f1", a, b, x))  # series carries one shape
  real_only("hyp1f1", x)
  neg = x < 0
  # Kummer: 1F1(a; b; x) = e^x 1F1(b - a; b; -x)
  a2 = jnp.where(neg, b - a, a)
  x2 = jnp.abs(x)
  big = x2 > 60
  series = _hyp1f1_series(a2, b, jnp.where(big, 1.0, x2))
  # lanes off the asymptotic branch evaluate it at 61 (e^100 would overflow float32 and
  # poison their gradients)
  asym = _hyp1f1_asymptotic(a2, b, jnp.where(big, x2, 61.0), jnp.where(neg & big, x, 0.0))
  out = jnp.where(big, asym, jnp.where(neg, jnp.exp(x) * series, series))
  out = jnp.where(a == b, jnp.exp(x), out)
  out = jnp.where((b == 0) & (a != 0), np.inf, out)
  return jnp.where(a == 0, 1.0, out).astype(x.dtype)


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
