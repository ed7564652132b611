"""The exponential distribution."""
import numpy as np

from xjax._src.primitives.lax.elementwise import (add, div, exp, expm1, log, log1p, lt, mul, neg,
                                                  sub)
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays

# lax's comparisons: a complex x is a TypeError, as JAX.


def logpdf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("expon.logpdf", x, loc, scale)
  out = neg(add(div(sub(x, loc), scale), log(scale)))
  return jnp.where(lt(x, loc), -np.inf, out)


def pdf(x, loc=0, scale=1):
  return exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("expon.cdf", x, loc, scale)
  z = div(sub(loc, x), scale)
  return jnp.where(lt(x, loc), jnp.zeros_like(z), neg(expm1(z)))


def logsf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("expon.sf", x, loc, scale)
  z = div(sub(loc, x), scale)
  return jnp.where(lt(x, loc), jnp.zeros_like(z), z)


def sf(x, loc=0, scale=1):
  return exp(logsf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
  return log1p(neg(sf(x, loc, scale)))


def ppf(q, loc=0, scale=1):
  q, loc, scale = inexact_arrays("expon.ppf", q, loc, scale)
  return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), np.nan, sub(loc, mul(scale, log1p(neg(q)))))
