"""The beta-binomial distribution."""
import numpy as np

from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays
from xjax._src.libraries.scipy.special.gamma_functions import _betaln


def logpmf(k, n, a, b, loc=0):
  k, n, a, b, loc = inexact_arrays("betabinom.logpmf", k, n, a, b, loc)
  y = jnp.floor(k) - loc
  comb = -(jnp.log1p(n) + _betaln(n - y + 1, y + 1))
  out = comb + _betaln(y + a, n - y + b) - _betaln(a, b)
  out = jnp.where((y == 0) & (n == 0), 0.0, out)
  out = jnp.where((y < -loc) | (y > n) | (y + a <= 0), -np.inf, out)
  return jnp.where((n < 0) | (a <= 0) | (b <= 0), np.nan, out)


def pmf(k, n, a, b, loc=0):
  return jnp.exp(logpmf(k, n, a, b, loc))
