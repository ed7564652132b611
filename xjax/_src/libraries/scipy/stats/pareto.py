"""The Pareto distribution."""
import numpy as np

from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays


def logpdf(x, b, loc=0, scale=1):
  x, b, loc, scale = inexact_arrays("pareto.logpdf", x, b, loc, scale)
  out = -(jnp.log(scale / b) + (b + 1) * jnp.log((x - loc) / scale))
  return jnp.where(x < loc + scale, -np.inf, out)


def pdf(x, b, loc=0, scale=1):
  return jnp.exp(logpdf(x, b, loc, scale))


def cdf(x, b, loc=0, scale=1):
  x, b, loc, scale = inexact_arrays("pareto.cdf", x, b, loc, scale)
  out = 1 - ((x - loc) / scale) ** (-b)
  return jnp.where(x < loc + scale, 0.0, out)


def logcdf(x, b, loc=0, scale=1):
  x, b, loc, scale = inexact_arrays("pareto.logcdf", x, b, loc, scale)
  out = jnp.log1p(-(((x - loc) / scale) ** (-b)))
  return jnp.where(x < loc + scale, -np.inf, out)


def logsf(x, b, loc=0, scale=1):
  x, b, loc, scale = inexact_arrays("pareto.logsf", x, b, loc, scale)
  out = -b * jnp.log((x - loc) / scale)
  return jnp.where(x < loc + scale, 0.0, out)


def sf(x, b, loc=0, scale=1):
  return jnp.exp(logsf(x, b, loc, scale))


def ppf(q, b, loc=0, scale=1):
  q, b, loc, scale = inexact_arrays("pareto.ppf", q, b, loc, scale)
  out = loc + scale * (1 - q) ** (-1 / b)
  return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), np.nan, out)
