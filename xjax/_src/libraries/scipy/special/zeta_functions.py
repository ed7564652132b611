"""The Hurwitz zeta function (with derivatives from its Euler-Maclaurin expansion), the
Bernoulli numbers, and Spence's function (the dilogarithm)."""
from __future__ import annotations

import operator
from fractions import Fraction

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.concrete import concrete_or_error
from xjax._src.api.jacobians import jvp
from xjax._src.primitives.custom_derivatives import custom_jvp
from xjax._src.primitives.lax.special import zeta as lax_zeta
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import float_array, inexact_arrays


def _bernoulli_exact(n: int) -> list:
  """B_0 .. B_n as Fractions (B_1 = -1/2), by the Akiyama-Tanigawa recurrence."""
  out, row = [], []
  for m in range(n + 1):
    row.append(Fraction(1, m + 1))
    for j in range(m, 0, -1):
      row[j - 1] = j * (row[j - 1] - row[j])
    out.append(row[0])
  if n >= 1:
    out[1] = -out[1]
  return out


def bernoulli(n: int):
  """The Bernoulli numbers B_0 .. B_n (B_1 = -1/2)."""
  n = concrete_or_error(n, "bernoulli n")
  try:
    n = operator.index(n)
  except TypeError:
    raise TypeError(f"Argument n of bernoulli must be a concrete integer, got {n!r}.") from None
  if n < 0:
    raise ValueError("n must be a non-negative integer.")
  values = np.array([float(b) for b in _bernoulli_exact(n)])
  return jnp.asarray(values, dtype=dtypes.default_float_dtype())


_EM_TERMS = 12  # Euler-Maclaurin correction terms
def _em_coefficients():
  bern = _bernoulli_exact(2 * _EM_TERMS)
  fact = 1
  out = []
  for j in range(1, _EM_TERMS + 1):
    fact = fact * (2 * j - 1) * (2 * j)
    out.append(float(bern[2 * j] / fact))
  return out


_EM = _em_coefficients()


def _zeta_expansion(s, a):
  """Euler-Maclaurin: sum_{k<N} (a+k)^-s + (a+N)^(1-s)/(s-1) + (a+N)^-s/2 + corrections."""
  # The constants are strongly typed (as JAX's expansion's are), which decides the weak
  # types of the derivatives of weakly typed arguments.
  dtype = np.dtype(a.dtype).type
  n, one = dtype(10), dtype(1)
  k = np.arange(n, dtype=a.dtype)
  head = jnp.sum((a[..., None] + k) ** (-s[..., None]), axis=-1)
  an = a + n
  tail = an ** (one - s) / (s - one) + dtype(0.5) * an ** (-s)
  rising = s * an ** (-s - one)  # s (s+1) ... (s+2j-2) (a+N)^(-s-2j+1)
  for j, coeff in enumerate(_EM, start=1):
    tail = tail + dtype(coeff) * rising
    rising = rising * (s + dtype(2 * j - 1)) * (s + dtype(2 * j)) / (an * an)
  return head + tail


@custom_jvp
def _zeta(x, q):
  return lax_zeta(x, q)


@_zeta.defjvp
def _zeta_jvp(primals, tangents):
  """Both outputs from the expansion (under differentiation the value is the expansion's,
  strongly typed, as JAX's)."""
  return jvp(_zeta_expansion, primals, tangents)


def zeta(x, q=None):
  """The Hurwitz zeta function sum_{n>=0} (n + q)^-x (``q`` is required, as JAX)."""
  if q is None:
    raise NotImplementedError("Riemann zeta function not implemented; pass q != None to "
                              "compute the Hurwitz Zeta function.")
  x, q = inexact_arrays("zeta", x, q)
  return _zeta(x, q)


def _li2_series(u, terms=60):
  """sum_{k>=1} u^k / k^2 for |u| <= 1/2."""
  total, power = jnp.zeros_like(u), jnp.ones_like(u)
  for k in range(1, terms + 1):
    power = power * u
    total = total + power / (k * k)
  return total


def _li2_nonpositive(w):
  """Li2(w) for -1 <= w <= 0 via Landen: -Li2(w / (w - 1)) - log(1 - w)^2 / 2."""
  return -_li2_series(w / (w - 1)) - 0.5 * jnp.square(jnp.log1p(-w))


def spence(x):
  """Spence's function integral_1^x log(t) / (1 - t) dt = Li2(1 - x); NaN for x < 0."""
  x = float_array(x)  # float32/float64 only (complex too is JAX's TypeError)
  pi2_6 = np.pi ** 2 / 6
  y = 1 - x
  # y in [-1, 0] (1 <= x <= 2); y < -1 (x > 2); y in [0, 1/2] (1/2 <= x <= 1); y in (1/2, 1]
  r1 = (x >= 1) & (x <= 2)
  r2 = x > 2
  r3 = (x >= 0.5) & (x < 1)
  out1 = _li2_nonpositive(jnp.where(r1, y, 0.0))
  y2 = jnp.where(r2, y, -2.0)
  out2 = -pi2_6 - 0.5 * jnp.square(jnp.log(-y2)) - _li2_nonpositive(1 / y2)
  out3 = _li2_series(jnp.where(r3, y, 0.0))
  x4 = jnp.where(r1 | r2 | r3 | (x <= 0), 0.25, x)
  out4 = pi2_6 - jnp.log1p(-x4) * jnp.log(x4) - _li2_series(x4)
  out = jnp.where(r1, out1, jnp.where(r2, out2, jnp.where(r3, out3, out4)))
  out = jnp.where(x == 0, pi2_6, jnp.where(x == np.inf, -np.inf, out))
  return jnp.where((x < 0) | jnp.isnan(x), np.nan, out).astype(x.dtype)
