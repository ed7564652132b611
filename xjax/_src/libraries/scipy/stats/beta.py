"""The beta distribution on [loc, loc + scale]."""
import numpy as np

from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays
from xjax._src.libraries.scipy.special.gamma_functions import _betaln, betainc
from xjax._src.libraries.scipy.special.information import xlog1py, xlogy


def logpdf(x, a, b, loc=0, scale=1):
  x, a, b, loc, scale = inexact_arrays("beta.logpdf", x, a, b, loc, scale)
  y = (x - loc) / scale
  out = -_betaln(a, b) + xlogy(a - 1, y) + xlog1py(b - 1, -y) - jnp.log(scale)
  out = jnp.where((x > loc + scale) | (x < loc), -np.inf, out)
  return jnp.where((a <= 0) | (b <= 0) | (scale <= 0), np.nan, out)


def pdf(x, a, b, loc=0, scale=1):
  return jnp.exp(logpdf(x, a, b, loc, scale))


def _unit(x, loc, scale):
  return jnp.clip((x - loc) / scale, 0, 1)


def cdf(x, a, b, loc=0, scale=1):
  x, a, b, loc, scale = inexact_arrays("beta.cdf", x, a, b, loc, scale)
  return betainc(a, b, _unit(x, loc, scale))


def logcdf(x, a, b, loc=0, scale=1):
  return jnp.log(cdf(x, a, b, loc, scale))


def sf(x, a, b, loc=0, scale=1):
  x, a, b, loc, scale = inexact_arrays("beta.sf", x, a, b, loc, scale)
  return betainc(b, a, 1 - _unit(x, loc, scale))


def logsf(x, a, b, loc=0, scale=1):
  return jnp.log(sf(x, a, b, loc, scale))
