"""The negative binomial distribution."""
import numpy as np

from xjax._src.primitives.lax.elementwise import _const, add, exp, lgamma, lt, sub
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays
from xjax._src.libraries.scipy.special.information import xlogy


def logpmf(k, n, p, loc=0):
  k, n, p, loc = inexact_arrays("nbinom.logpmf", k, n, p, loc)
  one = _const(k, 1)
  y = sub(k, loc)
  comb = sub(sub(lgamma(add(y, n)), lgamma(n)), lgamma(add(y, one)))
  out = add(comb, add(xlogy(n, p), xlogy(y, sub(one, p))))
  return jnp.where(lt(k, loc), -np.inf, out)


def pmf(k, n, p, loc=0):
  return exp(logpmf(k, n, p, loc))
