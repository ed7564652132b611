"""The uniform distribution on [loc, loc + scale]."""
import numpy as np

from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays


def _outside(x, loc, scale):
  return (x > loc + scale) | (x < loc)


def logpdf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("uniform.logpdf", x, loc, scale)
  return jnp.where(_outside(x, loc, scale), -np.inf, -jnp.log(scale))


def pdf(x, loc=0, scale=1):
  return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("uniform.cdf", x, loc, scale)
  inside = (x >= loc) & (x <= loc + scale)
  out = jnp.where(x < loc, 0.0, jnp.where(x > loc + scale, 1.0,
                                          jnp.where(inside, (x - loc) / scale, 0.0)))
  return out.astype(x.dtype)


def ppf(q, loc=0, scale=1):
  q, loc, scale = inexact_arrays("uniform.ppf", q, loc, scale)
  return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), np.nan, loc + scale * q)
