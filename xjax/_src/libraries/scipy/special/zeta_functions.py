"""The Hurwitz zeta function (with derivatives from its Euler-Maclaurin expansion), the
Bernoulli numbers, and Spence's function (the dilogarithm)."""
from __future__ import annotations

import operator

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.concrete import concrete_or_error
from xjax._src.api.jacobians import jvp
from xjax._src.primitives.lax import elementwise as ew
from xjax._src.primitives.custom_derivatives import custom_jvp
from xjax._src.primitives.lax.special import zeta as lax_zeta
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import float_array, inexact_arrays


def bernoulli(n: int):
  """The Bernoulli numbers B_0 .. B_n (B_1 = -1/2), in float32 as JAX computes them: the
  even ones from B_4 by the Chowla-Hartung series B_m = (1/pi^2) prod_{j<=m} -(j-1)j/(4pi^2)
  * (1 + sum_{k=2}^{49} k^-m)."""
  n = operator.index(concrete_or_error(n, "Argument n of bernoulli"))
  if n < 0:
    raise ValueError("n must be a non-negative integer.")
  first = jnp.array([1, -1 / 2, 1 / 6])
  if n < 3:
    return first[:n + 1]
  out = jnp.zeros(n + 1).at[:3].set(first)
  m = jnp.arange(4, n + 1, 2, dtype=out.dtype)
  q1 = (1. / np.pi ** 2) * jnp.cumprod(-(m - 1) * m / 4 / np.pi ** 2)
  k = jnp.arange(2, 50, dtype=out.dtype)  # 2 ** -50 < 1e-15
  q2 = jnp.sum(k[:, None] ** -m[None, :], axis=0)
  return out.at[4::2].set(q1 * (1 + q2))


# (2j)! / B_2j for j = 1..16: the Euler-Maclaurin coefficients' reciprocals
_EM_RECIPROCALS = (
    12, -720, 30240, -1209600, 47900160, -1307674368000 / 691, 74724249600,
    -10670622842880000 / 3617, 5109094217170944000 / 43867,
    -802857662698291200000 / 174611, 14101100039391805440000 / 77683,
    -1693824136731743669452800000 / 236364091, 186134520519971831808000000 / 657931,
    -37893265687455865519472640000000 / 3392780147,
    759790291646040068357842010112000000 / 1723168255201,
    -134196726836183700385281186201600000000 / 7709321041217)


def _zeta_expansion(s, a):
  """Euler-Maclaurin with N = M = 8 terms (16 in float64), as JAX's (Johansson 2015, eq.
  5): sum_{k<N} (a+k)^-s + (a+N)^(1-s)/(s-1) + (a+N)^-s (1/2 + sum_j T_j)."""
  # The constants are strongly typed (as JAX's), which decides the weak types of the
  # derivatives of weakly typed arguments.
  dtype = np.dtype(a.dtype).type
  n = dtype(8) if a.dtype == np.float32 else dtype(16)
  s_, a_ = jnp.expand_dims(s, -1), jnp.expand_dims(a, -1)
  k = jnp.expand_dims(np.arange(n, dtype=n.dtype), tuple(range(a.ndim)))
  head = jnp.sum((a_ + k) ** -s_, -1)
  integral = ew.div((a + n) ** (dtype(1) - s), s - dtype(1))
  t0 = (a + n) ** -s
  m = jnp.expand_dims(np.arange(2 * n, dtype=n.dtype), tuple(range(s.ndim)))
  t1 = jnp.cumprod((s_ + m) / (a_ + n), -1)[..., ::2]
  t1 = jnp.clip(t1, max=dtypes.finfo(dtype).max)
  t1 = t1 / np.expand_dims(np.array(_EM_RECIPROCALS[:t1.shape[-1]], dtype=dtype),
                           tuple(range(a.ndim)))
  return head + integral + t0 * (dtype(0.5) + t1.sum(-1))


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


# Cephes's rational approximation of Spence's function on [1/2, 3/2] in w = x - 1
_SPENCE_NUM = (4.65128586073990045278E-5, 7.31589045238094711071E-3, 1.33847639578309018650E-1,
               8.79691311754530315341E-1, 2.71149851196553469920E0, 4.25697156008121755724E0,
               3.29771340985225106936E0, 1.00000000000000000126E0)
_SPENCE_DEN = (6.90990488912553276999E-4, 2.54043763932544379113E-2, 2.82974860602568089943E-1,
               1.41172597751831069617E0, 3.63800533345137075418E0, 5.03278880143316990390E0,
               3.54771340985225096217E0, 9.99999999999999998740E-1)


def _spence_positive(x):
  """Cephes's spence for x > 0, x != 1: the rational approximation at 1/x past 2 and 3/2
  (by the inversion formula) and at 1 - x below 1/2 (by the reflection formula)."""
  inverted = x > 2.0
  x = jnp.piecewise(x, [inverted], [lambda x: 1.0 / x, lambda x: x])
  above, below = x > 1.5, x < 0.5
  inverted = inverted | above
  w = jnp.piecewise(x, [above, below], [lambda x: 1.0 / x - 1.0, lambda x: -x,
                                        lambda x: x - 1.0])
  num, den = (jnp.array(c, dtype=w.dtype) for c in (_SPENCE_NUM, _SPENCE_DEN))
  y = -w * jnp.polyval(num, w) / jnp.polyval(den, w)
  y = jnp.where(below, np.pi ** 2 / 6.0 - jnp.log(x) * jnp.log(1.0 - x) - y, y)
  return jnp.where(inverted, -0.5 * jnp.log(x) ** 2 - y, y)


def spence(x):
  """Spence's function integral_1^x log(t) / (1 - t) dt = Li2(1 - x); NaN for x < 0
  (Cephes's algorithm, as JAX)."""
  x = float_array(x)  # float32/float64 only (complex too is JAX's TypeError)
  return jnp.piecewise(x, [x < 0.0, x == 1.0, x == 0.0],
                       [np.nan, 0, np.pi ** 2 / 6, _spence_positive])
