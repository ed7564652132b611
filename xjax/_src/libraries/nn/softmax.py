"""The softmax family (``jax.nn``): softmax, log_softmax, logmeanexp, and standardize."""
from __future__ import annotations

import functools

import numpy as np

from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.foundations.config import config
from xjax._src.primitives.custom_derivatives import custom_jvp
from xjax._src.primitives.lax.elementwise import rsqrt
from xjax._src.primitives.lax.stop_gradient import stop_gradient
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.numpy.arguments import arraylike
from xjax._src.libraries.scipy.special.log_sum_exp import logsumexp


def softmax(x, axis=-1, where=None):
  """exp(x) / sum(exp(x)) along ``axis``; masked-out entries (``where``) are 0. With the
  ``jax_softmax_custom_jvp`` option it is differentiated by its own JVP rule, as JAX's."""
  x, = arraylike("softmax", x)
  if config._read("jax_softmax_custom_jvp"):
    return _softmax(x, axis, where)
  return _softmax_value(x, axis, where, -np.inf, stop_gradient)


def _softmax_value(x, axis, where, initial, max_gradient=lambda m: m):
  x_max = jnp.max(x, axis, where=where, initial=initial, keepdims=True)
  x_safe = x if where is None else jnp.where(where, x, initial)
  unnormalized = jnp.exp(x_safe - max_gradient(x_max))
  out = unnormalized / jnp.sum(unnormalized, axis, where=where, keepdims=True)
  return out if where is None else jnp.where(where, out, 0)


@functools.partial(custom_jvp, nondiff_argnums=(1,))
def _softmax(x, axis, where=None, initial=-np.inf):
  return _softmax_value(x, axis, where, initial)


@_softmax.defjvp
def _softmax_jvp(axis, primals, tangents):
  (x, where, initial), (x_dot, _, _) = primals, tangents
  y = _softmax(x, axis, where, initial)
  return y, y * (x_dot - (y * x_dot).sum(axis, where=where, keepdims=True))


@compiled_when_eager(staged="log_softmax", static_argnames=("axis",))
def log_softmax(x, axis=-1, where=None):
  """x - logsumexp(x) along ``axis``; masked-out entries (``where``) are -inf."""
  x, = arraylike("log_softmax", x)
  x = jnp.asarray(x)
  x_max = jnp.max(x, axis, where=where, initial=-np.inf, keepdims=True)
  x_safe = x if where is None else jnp.where(where, x, -np.inf)
  shifted = x_safe - stop_gradient(x_max)
  out = shifted - jnp.log(jnp.sum(jnp.exp(shifted), axis, where=where, keepdims=True))
  return out if where is None else jnp.where(where, out, -np.inf)


@compiled_when_eager(staged="logmeanexp", static_argnames=("axis", "keepdims"))
def logmeanexp(x, axis=None, where=None, keepdims: bool = False):
  """log(mean(exp(x))) along ``axis``, stably."""
  lse = logsumexp(x, axis=axis, where=where, keepdims=keepdims)
  ones = jnp.ones(jnp.shape(x), dtype=lse.dtype)
  count = jnp.sum(ones, axis=axis, where=where, keepdims=keepdims)
  return lse - jnp.log(count)


@compiled_when_eager(staged="standardize", static_argnames=("axis", "algorithm"))
def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5, where=None, *,
                algorithm: str = "fast"):
  """(x - mean) / sqrt(variance + epsilon) along ``axis``; ``algorithm`` is "fast"
  (mean(x^2) - mean(x)^2, clipped at 0) or "stable" (two passes)."""
  x, = arraylike("standardize", x)
  for name, v in (("mean", mean), ("variance", variance), ("where", where)):
    if v is not None:
      v, = arraylike("standardize", v)
  if mean is None:
    mean = jnp.mean(x, axis, keepdims=True, where=where)
  if variance is None:
    if algorithm == "stable":
      variance = jnp.mean(jnp.square(jnp.subtract(x, mean)), axis, keepdims=True, where=where)
    elif algorithm == "fast":
      variance = jnp.clip(jnp.mean(jnp.square(x), axis, keepdims=True, where=where)
                          - jnp.square(mean), 0)
    else:
      raise ValueError(f"Unknown algorithm '{algorithm}'. Expected 'fast' or 'stable'.")
  return jnp.subtract(x, mean) * rsqrt(variance + epsilon)
