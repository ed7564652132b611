"""The uniform distribution on [loc, loc + scale]."""
import numpy as np

from xjax._src.primitives.lax.elementwise import add, div, exp, ge, gt, le, log, lt, mul, neg, sub
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays

# lax's comparisons: a complex x is a TypeError, as JAX.


def logpdf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("uniform.logpdf", x, loc, scale)
  outside = jnp.logical_or(gt(x, add(loc, scale)), lt(x, loc))
  return jnp.where(outside, -np.inf, neg(log(scale)))


def pdf(x, loc=0, scale=1):
  return exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("uniform.cdf", x, loc, scale)
  top = add(loc, scale)
  conds = [lt(x, loc), gt(x, top), ge(x, loc) & le(x, top)]
  vals = [jnp.array(0, x.dtype), jnp.array(1, x.dtype), div(sub(x, loc), scale)]
  return jnp.select(conds, vals)


def ppf(q, loc=0, scale=1):
  q, loc, scale = inexact_arrays("uniform.ppf", q, loc, scale)
  return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), np.nan, add(loc, mul(scale, q)))
