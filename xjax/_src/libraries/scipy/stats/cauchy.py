"""The Cauchy distribution."""
import numpy as np

from xjax._src.primitives.lax.elementwise import (_const, add, div, exp, log, log1p, mul, neg,
                                                  sub, tan)
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays


def logpdf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("cauchy.logpdf", x, loc, scale)
  z = div(sub(x, loc), scale)
  return neg(add(log(mul(_const(x, np.pi), scale)), log1p(mul(z, z))))


def pdf(x, loc=0, scale=1):
  return exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("cauchy.cdf", x, loc, scale)
  inv_pi = div(_const(x, 1.0), _const(x, np.pi))
  return add(_const(x, 0.5), mul(inv_pi, jnp.arctan(div(sub(x, loc), scale))))


def logcdf(x, loc=0, scale=1):
  return log(cdf(x, loc, scale))


def sf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("cauchy.sf", x, loc, scale)
  return cdf(-x, -loc, scale)


def logsf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("cauchy.logsf", x, loc, scale)
  return logcdf(-x, -loc, scale)


def ppf(q, loc=0, scale=1):
  q, loc, scale = inexact_arrays("cauchy.ppf", q, loc, scale)
  return add(mul(tan(sub(mul(_const(q, np.pi), q), _const(q, np.pi / 2))), scale), loc)


def isf(q, loc=0, scale=1):
  q, loc, scale = inexact_arrays("cauchy.isf", q, loc, scale)
  return add(mul(tan(sub(_const(q, np.pi / 2), mul(_const(q, np.pi), q))), scale), loc)
