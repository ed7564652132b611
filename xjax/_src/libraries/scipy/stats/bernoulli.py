"""The Bernoulli distribution."""
import numpy as np

from xjax._src.primitives.lax.elementwise import convert_element_type
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays
from xjax._src.libraries.scipy.special.information import xlog1py, xlogy


def logpmf(k, p, loc=0):
  k, p, loc = inexact_arrays("bernoulli.logpmf", k, p, loc)
  x = k - loc
  out = xlogy(x, p) + xlog1py(1 - x, -p)
  return jnp.where((x < 0) | (x > 1), -np.inf, out)


def pmf(k, p, loc=0):
  return jnp.exp(logpmf(k, p, loc))


def _bad_p(p):
  return jnp.isnan(p) | (p < 0) | (p > 1)


def cdf(k, p):
  k, p = inexact_arrays("bernoulli.cdf", k, p)
  out = jnp.where(k < 0, 0.0, jnp.where(k < 1, 1 - p, 1.0))
  return jnp.where(_bad_p(p) | jnp.isnan(k), np.nan, out)


def ppf(q, p):
  q, p = inexact_arrays("bernoulli.ppf", q, p)
  out = jnp.where(q <= 1 - p, 0.0, 1.0)
  out = jnp.where(_bad_p(p) | jnp.isnan(q) | (q < 0) | (q > 1), np.nan, out)
  return convert_element_type(out, q.dtype, q.weak_type)  # typed like q, as JAX
