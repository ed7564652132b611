"""Modified Bessel functions of orders 0 and 1, and Bessel functions of the first kind of
integer order (Miller's backward recurrence, as JAX runs it)."""
from __future__ import annotations

import functools
import operator

from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.api.transformations import vmap
from xjax._src.primitives.lax.control_flow.conditionals import cond
from xjax._src.primitives.lax.control_flow.loops import scan
from xjax._src.primitives.lax.elementwise import _const
from xjax._src.primitives.lax.special import bessel_i0e, bessel_i1e
from xjax._src.primitives.lax.shapes import iota
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


def _jn_step(z, carry, k):
  """One downward step of the recurrence: the value of order ``k`` from orders ``k + 1`` and
  ``k + 2``, added twice to the normalising sum where ``k`` is even."""
  above, here, total = carry
  below = 2.0 * (k + 1.0) * here / z - above
  total = cond(jnp.mod(k, 2) == 0, lambda t, b: t + 2.0 * b, lambda t, b: t, total, below)
  return (here, below, total), below


def _jn_scalar(z, *, v: int, n_iter: int):
  """J_0(z), ..., J_v(z) of a scalar ``z``: the recurrence run from order ``n_iter`` down to 0
  (no rescaling: float32 overflows to NaN for small |z|), normalised by
  J_0 + 2 (J_2 + J_4 + ...) = 1."""
  zero, start = _const(z, 0.0), _const(z, 1e-16)
  (_, _, total), values = scan(functools.partial(_jn_step, z), (zero, start, zero),
                               iota(z.dtype, n_iter + 1), reverse=True)
  j0 = values[0]
  return values[:v + 1] / (total - j0)


@compiled_when_eager(static_argnames=("v", "n_iter"), hashable_statics=True,
                     staged="bessel_jn")
def bessel_jn(z, *, v: int, n_iter: int = 50):
  """J_0(z), ..., J_v(z) stacked on a new leading axis (shape ``(v + 1, *z.shape)``; Python
  slicing of the ``n_iter + 1`` orders, so a negative ``v`` drops orders from the top).

  The recurrence starts at order ``n_iter``, which must exceed |z| by a margin.
  """
  (z,) = inexact_arrays("bessel_jn", jnp.asarray(z))
  v, n_iter = operator.index(v), int(n_iter)
  fun = functools.partial(_jn_scalar, v=v, n_iter=n_iter)
  for _ in range(z.ndim):
    fun = vmap(fun)
  return jnp.moveaxis(fun(z), -1, 0)
