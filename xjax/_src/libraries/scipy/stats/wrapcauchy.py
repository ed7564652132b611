"""The wrapped Cauchy distribution on [0, 2 pi]."""
import math

import numpy as np

from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays


def logpdf(x, c):
  x, c = inexact_arrays("wrapcauchy.logpdf", x, c)
  out = jnp.log(1 - c * c) - math.log(2 * math.pi) - jnp.log(1 + c * c - 2 * c * jnp.cos(x))
  out = jnp.where((x >= 0) & (x <= 2 * np.pi), out, -np.inf)
  return jnp.where((c > 0) & (c < 1), out, np.nan)


def pdf(x, c):
  return jnp.exp(logpdf(x, c))
