"""The Bernoulli distribution."""
import numpy as np

from xjax._src.primitives.lax.elementwise import _const, ge, gt, le, lt, sub
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays
from xjax._src.libraries.scipy.special.information import xlog1py, xlogy

# Constants typed like k (or q), and lax's comparisons (a complex k is a TypeError), as JAX.


def logpmf(k, p, loc=0):
  k, p, loc = inexact_arrays("bernoulli.logpmf", k, p, loc)
  zero, one = _const(k, 0), _const(k, 1)
  x = sub(k, loc)
  out = xlogy(x, p) + xlog1py(sub(one, x), -p)
  return jnp.where(jnp.logical_or(lt(x, zero), gt(x, one)), -np.inf, out)


def pmf(k, p, loc=0):
  return jnp.exp(logpmf(k, p, loc))


def _bad_p(p, zero, one):
  return jnp.isnan(p) | (p < zero) | (p > one)


def cdf(k, p):
  k, p = inexact_arrays("bernoulli.cdf", k, p)
  zero, one = _const(k, 0), _const(k, 1)
  conds = [jnp.isnan(k) | _bad_p(p, zero, one), lt(k, zero),
           jnp.logical_and(ge(k, zero), lt(k, one)), ge(k, one)]
  return jnp.select(conds, [np.nan, zero, one - p, one])


def ppf(q, p):
  q, p = inexact_arrays("bernoulli.ppf", q, p)
  zero, one = _const(q, 0), _const(q, 1)
  bad = jnp.isnan(q) | _bad_p(p, zero, one) | (q < zero) | (q > one)
  return jnp.where(bad, np.nan, jnp.where(le(q, one - p), zero, one))
