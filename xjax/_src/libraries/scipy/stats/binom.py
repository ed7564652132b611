"""The binomial distribution."""
import numpy as np

from xjax._src.primitives.lax.elementwise import lgamma
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays
from xjax._src.libraries.scipy.special.information import xlog1py, xlogy


def logpmf(k, n, p, loc=0):
  k, n, p, loc = inexact_arrays("binom.logpmf", k, n, p, loc)
  y = k - loc
  comb = lgamma(n + 1) - (lgamma(y + 1) + lgamma(n - y + 1))
  linear = xlogy(y, p) + xlog1py(n - y, -p)
  out = comb + linear
  out = jnp.where(((y == 0) & (n == 0)) | (linear == 0), 0.0, out)
  return jnp.where((k >= loc) & (k < loc + n + 1), out, -np.inf)


def pmf(k, n, p, loc=0):
  return jnp.exp(logpmf(k, n, p, loc))
