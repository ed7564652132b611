"""The negative binomial distribution."""
import numpy as np

from xjax._src.primitives.lax.elementwise import lgamma
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays
from xjax._src.libraries.scipy.special.information import xlogy


def logpmf(k, n, p, loc=0):
  k, n, p, loc = inexact_arrays("nbinom.logpmf", k, n, p, loc)
  y = k - loc
  comb = lgamma(y + n) - lgamma(n) - lgamma(y + 1)
  out = comb + xlogy(n, p) + xlogy(y, 1 - p)
  return jnp.where(k < loc, -np.inf, out)


def pmf(k, n, p, loc=0):
  return jnp.exp(logpmf(k, n, p, loc))
