"""Student's t distribution."""
import numpy as np

from xjax._src.primitives.lax.elementwise import lgamma
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays


def logpdf(x, df, loc=0, scale=1):
  x, df, loc, scale = inexact_arrays("t.logpdf", x, df, loc, scale)
  z = (x - loc) / scale
  half = df / 2
  norm = lgamma(half) + jnp.log(scale * scale * np.pi * df) / 2 - lgamma(half + 0.5)
  return -(norm + (half + 0.5) * jnp.log1p(z * z / df))


def pdf(x, df, loc=0, scale=1):
  return jnp.exp(logpdf(x, df, loc, scale))
