"""The left-skewed Gumbel distribution (minima)."""
import numpy as np

from xjax._src.primitives.lax.elementwise import (_const, add, bitwise_and, div, exp, expm1, gt,
                                                  log, lt, mul, neg, sub)
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays
from xjax._src.libraries.scipy.special.information import xlog1py, xlogy


def _valid(scale, value):
  return jnp.where(gt(scale, _const(scale, 0)), value, np.nan)


def logpdf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("gumbel_l.logpdf", x, loc, scale)
  z = div(sub(x, loc), scale)
  return _valid(scale, add(xlogy(-1, scale), sub(z, exp(z))))


def pdf(x, loc=0, scale=1):
  return exp(logpdf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("gumbel_l.logcdf", x, loc, scale)
  z = div(sub(x, loc), scale)
  return _valid(scale, log(-expm1(neg(exp(z)))))


def cdf(x, loc=0, scale=1):
  return exp(logcdf(x, loc, scale))


def logsf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("gumbel_l.logsf", x, loc, scale)
  return _valid(scale, neg(exp(div(sub(x, loc), scale))))


def sf(x, loc=0, scale=1):
  return jnp.exp(logsf(x, loc, scale))


def ppf(p, loc=0, scale=1):
  p, loc, scale = inexact_arrays("gumbel_l.ppf", p, loc, scale)
  ok = bitwise_and(gt(p, _const(p, 0)), lt(p, _const(p, 1)))
  q = add(loc, mul(scale, log(xlog1py(-1, neg(p)))))
  return jnp.where(ok, q, np.nan)
