"""The logistic distribution."""
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays
from xjax._src.libraries.scipy.special.transforms import expit, logit


def logpdf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("logistic.logpdf", x, loc, scale)
  half = (x - loc) / scale / 2
  return -2 * jnp.logaddexp(half, -half) - jnp.log(scale)


def pdf(x, loc=0, scale=1):
  return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("logistic.cdf", x, loc, scale)
  return expit((x - loc) / scale)


def sf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("logistic.sf", x, loc, scale)
  return expit(-(x - loc) / scale)


def ppf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("logistic.ppf", x, loc, scale)
  return logit(x) * scale + loc


def isf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("logistic.isf", x, loc, scale)
  return -logit(x) * scale + loc
