"""The geometric distribution (trials until the first success, k >= 1)."""
import numpy as np

from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays
from xjax._src.libraries.scipy.special.information import xlog1py


def logpmf(k, p, loc=0):
  k, p, loc = inexact_arrays("geom.logpmf", k, p, loc)
  x = k - loc
  return jnp.where(x <= 0, -np.inf, xlog1py(x - 1, -p) + jnp.log(p))


def pmf(k, p, loc=0):
  return jnp.exp(logpmf(k, p, loc))
