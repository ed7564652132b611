"""Student's t distribution."""
import numpy as np

from xjax._src.primitives.lax.elementwise import (_const, add, div, exp, lgamma, log, log1p, mul,
                                                  neg, sub)
from xjax._src.libraries.scipy.arguments import inexact_arrays


def logpdf(x, df, loc=0, scale=1):
  x, df, loc, scale = inexact_arrays("t.logpdf", x, df, loc, scale)
  two = _const(x, 2)
  z = div(sub(x, loc), scale)
  half = div(df, two)
  half_plus = add(half, _const(x, 0.5))
  log_norm = div(log(mul(mul(mul(scale, scale), _const(x, np.pi)), df)), two)
  norm = sub(add(lgamma(half), log_norm), lgamma(half_plus))
  return neg(add(norm, mul(half_plus, log1p(div(mul(z, z), df)))))


def pdf(x, df, loc=0, scale=1):
  return exp(logpdf(x, df, loc, scale))
