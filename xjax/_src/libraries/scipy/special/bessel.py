"""Modified Bessel functions of orders 0 and 1, and Bessel functions of the first kind of
integer order (Miller's backward recurrence)."""
from __future__ import annotations

import operator

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax.elementwise import bessel_i0e, bessel_i1e, convert_element_type
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays


def i0e(x):
  """exp(-|x|) I0(x)."""
  (x,) = inexact_arrays("i0e", x)
  return bessel_i0e(x)


def i0(x):
  """The modified Bessel function of order 0."""
  (x,) = inexact_arrays("i0", x)
  return jnp.exp(jnp.abs(x)) * bessel_i0e(x)


def i1e(x):
  """exp(-|x|) I1(x)."""
  (x,) = inexact_arrays("i1e", x)
  return bessel_i1e(x)


def i1(x):
  """The modified Bessel function of order 1."""
  (x,) = inexact_arrays("i1", x)
  return jnp.exp(jnp.abs(x)) * bessel_i1e(x)


def _concrete(fn, value, what):
  try:
    return fn(value)
  except TypeError as e:
    raise TypeError(f"{what} must be a concrete integer: {e}") from None


@compiled_when_eager(static_argnames=("v", "n_iter"), staged="bessel_jn")
def bessel_jn(z, *, v: int, n_iter: int = 50):
  """J_0(z), ..., J_v(z) stacked on a new leading axis (shape ``(v + 1, *z.shape)``).

  The recurrence starts at order ``n_iter``, which must exceed |z| by a margin.
  """
  (z,) = inexact_arrays("bessel_jn", z)
  if dtypes.issubdtype(z.dtype, np.complexfloating):
    raise ValueError("complex input not supported.")
  v = _concrete(operator.index, v, "Argument v of bessel_jn")
  n_iter = _concrete(int, n_iter, "Argument n_iter of bessel_jn")
  upper, lower = jnp.zeros_like(z), jnp.full_like(z, 1e-16)
  values, norm = [], jnp.zeros_like(z)
  big = 1e15
  # downward: J_{k-1} = (2k / z) J_k - J_{k+1}, started at k = n_iter, rescaled before the
  # values overflow (only orders <= v are kept)
  for k in range(n_iter, -1, -1):
    if k <= v:
      values.append(lower)
    if k % 2 == 0:
      norm = norm + (2 * lower if k else lower)
    if k:
      upper, lower = lower, (2 * k / z) * lower - upper
      scale = jnp.where(jnp.abs(lower) > big, 1 / big, 1.0)
      upper, lower, norm = upper * scale, lower * scale, norm * scale
      values = [w * scale for w in values]
  out = jnp.stack(values[::-1]) / norm
  at_zero = (jnp.arange(v + 1) == 0).reshape((v + 1,) + (1,) * z.ndim)  # J_0(0) = 1
  out = jnp.where(z == 0, at_zero.astype(out.dtype), out)
  return convert_element_type(out, out.dtype, False)  # strongly typed, as JAX
