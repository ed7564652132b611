"""The right-skewed Gumbel distribution (maxima)."""
import numpy as np

from xjax._src.primitives.lax.elementwise import (_const, add, bitwise_and, div, exp, gt, log, lt,
                                                  mul, neg, sub)
from xjax._src.libraries.nn.activations import log1mexp
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays
from xjax._src.libraries.scipy.special.information import xlogy


def _valid(scale, value):
  return jnp.where(gt(scale, _const(scale, 0)), value, np.nan)


def logpdf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("gumbel_r.logpdf", x, loc, scale)
  z = div(sub(x, loc), scale)
  return _valid(scale, add(xlogy(-1, scale), neg(add(z, exp(neg(z))))))


def pdf(x, loc=0, scale=1):
  return exp(logpdf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("gumbel_r.logcdf", x, loc, scale)
  return _valid(scale, neg(exp(neg(div(sub(x, loc), scale)))))


def cdf(x, loc=0, scale=1):
  return exp(logcdf(x, loc, scale))


def sf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("gumbel_r.sf", x, loc, scale)
  neg_z = div(sub(loc, x), scale)
  return _valid(scale, sub(_const(x, 1), exp(neg(exp(neg_z)))))


def logsf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("gumbel_r.logsf", x, loc, scale)
  return _valid(scale, log1mexp(exp(div(sub(loc, x), scale))))


def ppf(p, loc=0, scale=1):
  p, loc, scale = inexact_arrays("gumbel_r.ppf", p, loc, scale)
  ok = bitwise_and(gt(p, _const(p, 0)), lt(p, _const(p, 1)))
  q = sub(loc, mul(scale, log(xlogy(-1, p))))
  return jnp.where(ok, q, np.nan)
