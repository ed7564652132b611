"""The gamma distribution."""
import numpy as np

from xjax._src.primitives.lax.elementwise import (_const, add, clamp, div, exp, ge, lgamma, log, lt,
                                                  sub)
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays
from xjax._src.libraries.scipy.special.gamma_functions import gammainc, gammaincc
from xjax._src.libraries.scipy.special.information import xlogy


def logpdf(x, a, loc=0, scale=1):
  x, a, loc, scale = inexact_arrays("gamma.logpdf", x, a, loc, scale)
  ok = ge(x, loc)
  one = _const(x, 1)
  y = jnp.where(ok, div(sub(x, loc), scale), one)
  out = sub(sub(xlogy(sub(a, one), y), y), add(lgamma(a), log(scale)))
  return jnp.where(ok, out, -np.inf)


def pdf(x, a, loc=0, scale=1):
  return exp(logpdf(x, a, loc, scale))


def cdf(x, a, loc=0, scale=1):
  x, a, loc, scale = inexact_arrays("gamma.cdf", x, a, loc, scale)
  y = clamp(_const(x, 0), div(sub(x, loc), scale), _const(x, np.inf))
  return gammainc(a, y)


def logcdf(x, a, loc=0, scale=1):
  return log(cdf(x, a, loc, scale))


def sf(x, a, loc=0, scale=1):
  x, a, loc, scale = inexact_arrays("gamma.sf", x, a, loc, scale)
  y = div(sub(x, loc), scale)
  return jnp.where(lt(y, _const(y, 0)), 1, gammaincc(a, y))


def logsf(x, a, loc=0, scale=1):
  return log(sf(x, a, loc, scale))
