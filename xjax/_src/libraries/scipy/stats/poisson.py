"""The Poisson distribution."""
import numpy as np

from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax.elementwise import _const, lgamma, lt, ne, sub
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays
from xjax._src.libraries.scipy.special.gamma_functions import gammaincc
from xjax._src.libraries.scipy.special.information import entr, xlogy


def logpmf(k, mu, loc=0):
  k, mu, loc = inexact_arrays("poisson.logpmf", k, mu, loc)
  x = sub(k, loc)
  out = xlogy(x, mu) - lgamma(x + 1) - mu
  return jnp.where(jnp.logical_or(lt(x, _const(k, 0)), ne(jnp.round(k), k)), -np.inf, out)


def pmf(k, mu, loc=0):
  return jnp.exp(logpmf(k, mu, loc))


def cdf(k, mu, loc=0):
  k, mu, loc = inexact_arrays("poisson.logpmf", k, mu, loc)  # JAX's name
  zero = _const(k, 0)
  x = sub(k, loc)
  p = gammaincc(jnp.floor(1 + x), mu)
  return jnp.where(lt(x, zero), zero, p)


def _entropy_by_sum(mu, terms, width):
  """-sum_k p_k log p_k over k < ``terms`` (only k below mu + ``width`` counted)."""
  k = jnp.arange(terms, dtype=mu.dtype)[:, None]
  probs = pmf(k, mu[None, :])
  probs = jnp.where(k < jnp.ceil(width)[None, :], probs, 0.0)
  return jnp.sum(entr(probs), axis=0)


@compiled_when_eager(staged="entropy")
def entropy(mu, loc=0):
  """The entropy of Poisson(mu): a direct sum for mu < 100, the asymptotic form above."""
  mu, loc = inexact_arrays("poisson.entropy", mu, loc)
  shape = jnp.broadcast_shapes(mu.shape, loc.shape)
  flat = jnp.ravel(mu)
  small = _entropy_by_sum(flat, 35, flat + 20)
  medium = _entropy_by_sum(flat, 250, flat + 10 * jnp.sqrt(flat) + 20)
  safe = jnp.where(flat < 100, 100.0, flat)
  large = 0.5 * jnp.log(2 * np.pi * np.e * safe) - 1.0 / (12 * safe)
  out = jnp.where(flat == 0, 0.0, jnp.where(flat < 10, small, jnp.where(flat < 100, medium,
                                                                          large)))
  return jnp.broadcast_to(jnp.reshape(out.astype(mu.dtype), mu.shape), shape)
