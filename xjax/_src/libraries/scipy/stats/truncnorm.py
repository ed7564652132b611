"""The normal distribution truncated to [a, b] (in standard units)."""
import numpy as np

from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax.elementwise import div, sub
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays
from xjax._src.libraries.scipy.special.log_sum_exp import logsumexp
from xjax._src.libraries.scipy.special.normal import log_ndtr, ndtr
from xjax._src.libraries.scipy.stats import norm


def _log_diff(x, y):
  """log(exp(x) - exp(y))."""
  return logsumexp(jnp.stack([x, y]), b=jnp.stack([jnp.ones_like(x), -jnp.ones_like(y)]),
                   axis=0)


def _log_mass(a, b):
  """log(Phi(b) - Phi(a)), from whichever tail keeps precision."""
  a, b = jnp.broadcast_arrays(a, b)
  right = a > 0
  central = ~((b <= 0) | right)
  lo = jnp.where(right, -b, a)
  hi = jnp.where(right, -a, b)
  tail = _log_diff(log_ndtr(hi), log_ndtr(lo))
  return jnp.where(central, jnp.log1p(-ndtr(a) - ndtr(-b)), tail)


@compiled_when_eager(staged="logpdf")
def logpdf(x, a, b, loc=0, scale=1):
  x, a, b, loc, scale = inexact_arrays("truncnorm.logpdf", x, a, b, loc, scale)
  # lax's arithmetic, as JAX's: weak operands meet strong ones unconverted
  out = sub(norm.logpdf(x, loc, scale), _log_mass(a, b))
  z = div(sub(x, loc), scale)
  out = jnp.where((z < a) | (z > b), -np.inf, out)
  return jnp.where(a >= b, np.nan, out)


def pdf(x, a, b, loc=0, scale=1):
  return jnp.exp(logpdf(x, a, b, loc, scale))


@compiled_when_eager(staged="logcdf")
def logcdf(x, a, b, loc=0, scale=1):
  x, a, b, loc, scale = inexact_arrays("truncnorm.logcdf", x, a, b, loc, scale)
  x, a, b = jnp.broadcast_arrays(x, a, b)
  z = div(sub(x, loc), scale)
  total = _log_mass(a, b)
  below = _log_mass(a, z) - total
  above = _log_mass(z, b) - total
  out = jnp.select([z >= b, z <= a, below > -0.1, z > a],
                   [0, -np.inf, jnp.log1p(-jnp.exp(above)), below])
  return jnp.where(a >= b, np.nan, out)


@compiled_when_eager(staged="cdf")
def cdf(x, a, b, loc=0, scale=1):
  return jnp.exp(logcdf(x, a, b, loc, scale))


@compiled_when_eager(staged="logsf")
def logsf(x, a, b, loc=0, scale=1):
  x, a, b, loc, scale = inexact_arrays("truncnorm.logsf", x, a, b, loc, scale)
  return logcdf(-x, -b, -a, -loc, scale)


@compiled_when_eager(staged="sf")
def sf(x, a, b, loc=0, scale=1):
  return jnp.exp(logsf(x, a, b, loc, scale))
