"""The Laplace (double exponential) distribution."""
from xjax._src.primitives.lax.elementwise import (_const, abs, add, div, exp, le, log, mul, neg,
                                                  select, sub)
from xjax._src.libraries.scipy.arguments import inexact_arrays


def logpdf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("laplace.logpdf", x, loc, scale)
  return neg(add(div(abs(sub(x, loc)), scale), log(mul(_const(x, 2), scale))))


def pdf(x, loc=0, scale=1):
  return exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("laplace.cdf", x, loc, scale)
  half = _const(x, 0.5)
  z = div(sub(x, loc), scale)
  return select(le(z, _const(x, 0)), mul(half, exp(z)),
                sub(_const(x, 1), mul(half, exp(neg(z)))))
