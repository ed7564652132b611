"""The geometric distribution (trials until the first success, k >= 1)."""
import numpy as np

from xjax._src.primitives.lax.elementwise import _const, le, log, sub
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays
from xjax._src.libraries.scipy.special.information import xlog1py


def logpmf(k, p, loc=0):
  k, p, loc = inexact_arrays("geom.logpmf", k, p, loc)
  x = sub(k, loc)
  out = xlog1py(sub(x, _const(k, 1)), -p) + log(p)
  return jnp.where(le(x, _const(k, 0)), -np.inf, out)


def pmf(k, p, loc=0):
  return jnp.exp(logpmf(k, p, loc))
