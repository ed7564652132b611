"""The normal distribution."""
import numpy as np

from xjax._src.primitives.lax.elementwise import _const, add, div, exp, log, mul, square, sub
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays
from xjax._src.libraries.scipy.special.normal import log_ndtr, ndtr, ndtri

# Constants are typed like x (strong unless x is a weak scalar), as JAX's: a bool or integer
# array promoted with Python scalars gives a strong result.


def logpdf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("norm.logpdf", x, loc, scale)
  var = square(scale)
  log_norm = log(mul(_const(x, 2 * np.pi), var))
  return div(add(log_norm, div(square(sub(x, loc)), var)), _const(x, -2))


def pdf(x, loc=0, scale=1):
  return exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("norm.cdf", x, loc, scale)
  return ndtr(div(sub(x, loc), scale))


def logcdf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("norm.logcdf", x, loc, scale)
  return log_ndtr(div(sub(x, loc), scale))


def sf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("norm.sf", x, loc, scale)
  return cdf(-x, -loc, scale)


def logsf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("norm.logsf", x, loc, scale)
  return logcdf(-x, -loc, scale)


def ppf(q, loc=0, scale=1):
  return jnp.asarray(ndtri(q) * scale + loc, float)


def isf(q, loc=0, scale=1):
  return ppf(sub(_const(q, 1), q), loc, scale)  # lax's sub: a boolean q is a TypeError, as JAX
