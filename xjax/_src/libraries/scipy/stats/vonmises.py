"""The von Mises distribution on the circle."""
import numpy as np

from xjax._src.primitives.lax.elementwise import bessel_i0e
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays


def logpdf(x, kappa):
  x, kappa = inexact_arrays("vonmises.logpdf", x, kappa)
  out = kappa * (jnp.cos(x) - 1) - jnp.log(2 * np.pi * bessel_i0e(kappa))
  return jnp.where(kappa > 0, out, np.nan)


def pdf(x, kappa):
  return jnp.exp(logpdf(x, kappa))
