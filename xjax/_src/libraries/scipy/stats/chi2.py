"""The chi-squared distribution."""
import numpy as np

from xjax._src.primitives.lax.elementwise import (_const, add, clamp, div, exp, lgamma, log, lt,
                                                  mul, neg, sub)
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays
from xjax._src.libraries.scipy.special.gamma_functions import gammainc, gammaincc


def logpdf(x, df, loc=0, scale=1):
  x, df, loc, scale = inexact_arrays("chi2.logpdf", x, df, loc, scale)
  one, two = _const(x, 1), _const(x, 2)
  y = div(sub(x, loc), scale)
  half = div(df, two)
  kernel = sub(mul(sub(half, one), log(y)), div(y, two))
  norm = neg(add(lgamma(half), div(mul(log(two), df), two)))
  return jnp.where(lt(x, loc), -np.inf, add(sub(norm, log(scale)), kernel))


def pdf(x, df, loc=0, scale=1):
  return exp(logpdf(x, df, loc, scale))


def _half_df_and_y(x, df, loc, scale):
  two = _const(scale, 2)
  y = clamp(_const(x, 0), div(sub(x, loc), mul(scale, two)), _const(x, np.inf))
  return div(df, two), y


def cdf(x, df, loc=0, scale=1):
  x, df, loc, scale = inexact_arrays("chi2.cdf", x, df, loc, scale)
  return gammainc(*_half_df_and_y(x, df, loc, scale))


def logcdf(x, df, loc=0, scale=1):
  return log(cdf(x, df, loc, scale))


def sf(x, df, loc=0, scale=1):
  x, df, loc, scale = inexact_arrays("chi2.sf", x, df, loc, scale)
  return gammaincc(*_half_df_and_y(x, df, loc, scale))


def logsf(x, df, loc=0, scale=1):
  return log(sf(x, df, loc, scale))
