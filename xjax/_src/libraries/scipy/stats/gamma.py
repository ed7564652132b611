"""The gamma distribution."""
import numpy as np

from xjax._src.primitives.lax.elementwise import lgamma
from xjax._src.primitives.lax.special import igamma, igammac
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays
from xjax._src.libraries.scipy.special.information import xlogy


def logpdf(x, a, loc=0, scale=1):
  x, a, loc, scale = inexact_arrays("gamma.logpdf", x, a, loc, scale)
  ok = x >= loc
  y = jnp.where(ok, (x - loc) / scale, 1)
  out = xlogy(a - 1, y) - y - (lgamma(a) + jnp.log(scale))
  return jnp.where(ok, out, -np.inf)


def pdf(x, a, loc=0, scale=1):
  return jnp.exp(logpdf(x, a, loc, scale))


def cdf(x, a, loc=0, scale=1):
  x, a, loc, scale = inexact_arrays("gamma.cdf", x, a, loc, scale)
  return igamma(a, jnp.clip((x - loc) / scale, 0, np.inf))


def logcdf(x, a, loc=0, scale=1):
  return jnp.log(cdf(x, a, loc, scale))


def sf(x, a, loc=0, scale=1):
  x, a, loc, scale = inexact_arrays("gamma.sf", x, a, loc, scale)
  y = (x - loc) / scale
  return jnp.where(y < 0, 1, igammac(a, y))


def logsf(x, a, loc=0, scale=1):
  return jnp.log(sf(x, a, loc, scale))
