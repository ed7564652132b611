"""The von Mises distribution on the circle."""
import numpy as np

from xjax._src.primitives.lax.elementwise import _const, exp, gt
from xjax._src.primitives.lax.special import bessel_i0e
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays


def logpdf(x, kappa):
  x, kappa = inexact_arrays("vonmises.logpdf", x, kappa)
  ok = gt(kappa, _const(kappa, 0))  # checked first: a complex kappa fails here, as JAX
  out = kappa * (jnp.cos(x) - 1) - jnp.log(2 * np.pi * bessel_i0e(kappa))
  return jnp.where(ok, out, np.nan)


def pdf(x, kappa):
  return exp(logpdf(x, kappa))
