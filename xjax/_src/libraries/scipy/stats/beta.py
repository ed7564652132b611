"""The beta distribution on [loc, loc + scale]."""
import numpy as np

from xjax._src.primitives.lax.elementwise import (_const, add, clamp, div, exp, gt, le, log, lt,
                                                  neg, sub)
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays
from xjax._src.libraries.scipy.special.gamma_functions import _betaln, betainc
from xjax._src.libraries.scipy.special.information import xlog1py, xlogy


def logpdf(x, a, b, loc=0, scale=1):
  x, a, b, loc, scale = inexact_arrays("beta.logpdf", x, a, b, loc, scale)
  one, zero = _const(x, 1), _const(a, 0)
  y = div(sub(x, loc), scale)
  log_linear = add(xlogy(sub(a, one), y), xlog1py(sub(b, one), neg(y)))
  out = sub(add(neg(_betaln(a, b)), log_linear), log(scale))
  out = jnp.where(jnp.logical_or(gt(x, add(loc, scale)), lt(x, loc)), -np.inf, out)
  bad = jnp.logical_or(jnp.logical_or(le(a, zero), le(b, zero)), le(scale, zero))
  return jnp.where(bad, np.nan, out)


def pdf(x, a, b, loc=0, scale=1):
  return exp(logpdf(x, a, b, loc, scale))


def _unit(x, loc, scale):
  return clamp(_const(x, 0), div(sub(x, loc), scale), _const(x, 1))


def cdf(x, a, b, loc=0, scale=1):
  x, a, b, loc, scale = inexact_arrays("beta.cdf", x, a, b, loc, scale)
  return betainc(a, b, _unit(x, loc, scale))


def logcdf(x, a, b, loc=0, scale=1):
  return log(cdf(x, a, b, loc, scale))


def sf(x, a, b, loc=0, scale=1):
  x, a, b, loc, scale = inexact_arrays("beta.sf", x, a, b, loc, scale)
  return betainc(b, a, 1 - _unit(x, loc, scale))


def logsf(x, a, b, loc=0, scale=1):
  return log(sf(x, a, b, loc, scale))
