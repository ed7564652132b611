"""The exponential distribution."""
import numpy as np

from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays


def logpdf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("expon.logpdf", x, loc, scale)
  return jnp.where(x < loc, -np.inf, -((x - loc) / scale + jnp.log(scale)))


def pdf(x, loc=0, scale=1):
  return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("expon.cdf", x, loc, scale)
  z = (loc - x) / scale
  return jnp.where(x < loc, jnp.zeros_like(z), -jnp.expm1(z))


def logsf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("expon.sf", x, loc, scale)
  z = (loc - x) / scale
  return jnp.where(x < loc, jnp.zeros_like(z), z)


def sf(x, loc=0, scale=1):
  return jnp.exp(logsf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
  return jnp.log1p(-sf(x, loc, scale))


def ppf(q, loc=0, scale=1):
  q, loc, scale = inexact_arrays("expon.ppf", q, loc, scale)
  return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), np.nan, loc - scale * jnp.log1p(-q))
