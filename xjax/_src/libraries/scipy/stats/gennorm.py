"""The generalized normal distribution (exponential power family)."""
from xjax._src.primitives.lax.elementwise import lgamma
from xjax._src.primitives.lax.special import igamma
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays


def logpdf(x, beta):
  x, beta = inexact_arrays("gennorm.logpdf", x, beta)
  return jnp.log(0.5 * beta) - lgamma(1 / beta) - jnp.abs(x) ** beta


def pdf(x, beta):
  return jnp.exp(logpdf(x, beta))


def cdf(x, beta):
  x, beta = inexact_arrays("gennorm.cdf", x, beta)
  return 0.5 * (1 + jnp.sign(x) * igamma(1 / beta, jnp.abs(x) ** beta))
