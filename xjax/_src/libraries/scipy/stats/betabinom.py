"""The beta-binomial distribution."""
import numpy as np

from xjax._src.primitives.lax.elementwise import (_const, add, eq, exp, floor, gt, le, log1p, lt,
                                                  neg, sub)
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays
from xjax._src.libraries.scipy.special.gamma_functions import _betaln


def logpmf(k, n, a, b, loc=0):
  k, n, a, b, loc = inexact_arrays("betabinom.logpmf", k, n, a, b, loc)
  y = sub(floor(k), loc)
  one, zero = _const(y, 1), _const(y, 0)  # typed like y, as JAX's
  comb = neg(add(log1p(n), _betaln(add(sub(n, y), one), add(y, one))))
  out = add(comb, sub(_betaln(add(y, a), add(sub(n, y), b)), _betaln(a, b)))
  out = jnp.where(jnp.logical_and(eq(y, zero), eq(n, zero)), 0.0, out)
  outside = jnp.logical_or(jnp.logical_or(lt(y, neg(loc)), gt(y, n)), le(add(y, a), zero))
  out = jnp.where(outside, -np.inf, out)
  bad = jnp.logical_or(jnp.logical_or(lt(n, zero), le(a, zero)), le(b, zero))
  return jnp.where(bad, np.nan, out)


def pmf(k, n, a, b, loc=0):
  return exp(logpmf(k, n, a, b, loc))
