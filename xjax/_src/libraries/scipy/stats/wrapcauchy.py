"""The wrapped Cauchy distribution on [0, 2 pi]."""
import numpy as np

from xjax._src.primitives.lax.elementwise import _const, exp, ge, gt, le, lt
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays


def logpdf(x, c):
  x, c = inexact_arrays("wrapcauchy.logpdf", x, c)
  ok = gt(c, _const(c, 0)) & lt(c, _const(c, 1))  # checked first, as JAX
  inside = ge(x, _const(x, 0)) & le(x, _const(x, np.pi * 2))
  out = jnp.log(1 - c * c) - jnp.log(2 * np.pi) - jnp.log(1 + c * c - 2 * c * jnp.cos(x))
  return jnp.where(ok, jnp.where(inside, out, -np.inf), np.nan)


def pdf(x, c):
  return exp(logpdf(x, c))
