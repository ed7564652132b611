"""The Laplace (double exponential) distribution."""
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays


def logpdf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("laplace.logpdf", x, loc, scale)
  return -(jnp.abs(x - loc) / scale + jnp.log(2 * scale))


def pdf(x, loc=0, scale=1):
  return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
  x, loc, scale = inexact_arrays("laplace.cdf", x, loc, scale)
  z = (x - loc) / scale
  return jnp.where(z <= 0, 0.5 * jnp.exp(z), 1 - 0.5 * jnp.exp(-z))
