"""The normal distribution."""
import numpy as np

from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays
from xjax._src.libraries.scipy.special.normal import log_ndtr, ndtr, ndtri


def logpdf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("norm.logpdf", x, loc, scale)
  var = jnp.square(scale)
  return -(jnp.log(2 * np.pi * var) + jnp.square(x - loc) / var) / 2


def pdf(x, loc=0, scale=1):
  return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("norm.cdf", x, loc, scale)
  return ndtr((x - loc) / scale)


def logcdf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("norm.logcdf", x, loc, scale)
  return log_ndtr((x - loc) / scale)


def sf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("norm.sf", x, loc, scale)
  return cdf(-x, -loc, scale)


def logsf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("norm.logsf", x, loc, scale)
  return logcdf(-x, -loc, scale)


def ppf(q, loc=0, scale=1):
  return jnp.asarray(ndtri(q) * scale + loc, float)


def isf(q, loc=0, scale=1):
  return ppf(1 - jnp.asarray(q), loc, scale)  # ndtri rejects integer q, as JAX
