"""The chi-squared distribution."""
import math

import numpy as np

from xjax._src.primitives.lax.elementwise import lgamma
from xjax._src.primitives.lax.special import igamma, igammac
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays

_LOG2 = math.log(2)  # a Python float: weak, as JAX's constants


def logpdf(x, df, loc=0, scale=1):
  x, df, loc, scale = inexact_arrays("chi2.logpdf", x, df, loc, scale)
  y = (x - loc) / scale
  half = df / 2
  out = (half - 1) * jnp.log(y) - y / 2 - (lgamma(half) + _LOG2 * df / 2) - jnp.log(scale)
  return jnp.where(x < loc, -np.inf, out)


def pdf(x, df, loc=0, scale=1):
  return jnp.exp(logpdf(x, df, loc, scale))


def _half_y(x, loc, scale):
  return jnp.clip((x - loc) / (scale * 2), 0, np.inf)


def cdf(x, df, loc=0, scale=1):
  x, df, loc, scale = inexact_arrays("chi2.cdf", x, df, loc, scale)
  return igamma(df / 2, _half_y(x, loc, scale))


def logcdf(x, df, loc=0, scale=1):
  return jnp.log(cdf(x, df, loc, scale))


def sf(x, df, loc=0, scale=1):
  x, df, loc, scale = inexact_arrays("chi2.sf", x, df, loc, scale)
  return igammac(df / 2, _half_y(x, loc, scale))


def logsf(x, df, loc=0, scale=1):
  return jnp.log(sf(x, df, loc, scale))
