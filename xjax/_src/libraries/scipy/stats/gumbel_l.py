"""The left-skewed Gumbel distribution (minima)."""
import numpy as np

from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays
from xjax._src.libraries.scipy.special.information import xlog1py, xlogy


def _valid(scale, value):
  return jnp.where(scale > 0, value, np.nan)


def logpdf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("gumbel_l.logpdf", x, loc, scale)
  z = (x - loc) / scale
  return _valid(scale, xlogy(-1, scale) + z - jnp.exp(z))


def pdf(x, loc=0, scale=1):
  return jnp.exp(logpdf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("gumbel_l.logcdf", x, loc, scale)
  return _valid(scale, jnp.log(-jnp.expm1(-jnp.exp((x - loc) / scale))))


def cdf(x, loc=0, scale=1):
  return jnp.exp(logcdf(x, loc, scale))


def logsf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("gumbel_l.logsf", x, loc, scale)
  return _valid(scale, -jnp.exp((x - loc) / scale))


def sf(x, loc=0, scale=1):
  return jnp.exp(logsf(x, loc, scale))


def ppf(p, loc=0, scale=1):
  p, loc, scale = inexact_arrays("gumbel_l.ppf", p, loc, scale)
  q = loc + scale * jnp.log(xlog1py(-1, -p))
  return jnp.where((p > 0) & (p < 1), q, np.nan)
