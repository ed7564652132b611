"""The logistic distribution."""
from xjax._src.primitives.lax.elementwise import _const, add, div, exp, log, mul, neg, sub
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays
from xjax._src.libraries.scipy.special.transforms import expit, logit


def logpdf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("logistic.logpdf", x, loc, scale)
  z = div(sub(x, loc), scale)
  two = _const(z, 2)
  half = div(z, two)
  return sub(mul(neg(two), jnp.logaddexp(half, neg(half))), log(scale))


def pdf(x, loc=0, scale=1):
  return exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("logistic.cdf", x, loc, scale)
  return expit(div(sub(x, loc), scale))


def sf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("logistic.sf", x, loc, scale)
  return expit(neg(div(sub(x, loc), scale)))


def ppf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("logistic.ppf", x, loc, scale)
  return add(mul(logit(x), scale), loc)


def isf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("logistic.isf", x, loc, scale)
  return add(mul(neg(logit(x)), scale), loc)
