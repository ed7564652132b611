"""Activation functions (``jax.nn``): smooth and piecewise maps applied elementwise, and
the softmax family.  Written with xjax.numpy; kinks follow JAX's derivative conventions."""
from __future__ import annotations

import numpy as np

from xjax._src import dtypes
from xjax._src.custom_derivatives import custom_jvp
from xjax._src.lax import lax
from xjax._src.numpy import lax_numpy as jnp


@custom_jvp
def relu(x):
  """max(x, 0); its derivative at 0 is 0 (as JAX)."""
  return jnp.maximum(x, 0)


relu.defjvps(lambda g, ans, x: lax.select_n(x > 0, jnp.zeros_like(g), g))


@custom_jvp
def relu6(x):
  """min(max(x, 0), 6); derivative 0 at both kinks."""
  return jnp.minimum(jnp.maximum(x, 0), 6.0)


relu6.defjvps(lambda g, ans, x: lax.select_n((x > 0) & (x < 6), jnp.zeros_like(g), g))


def sigmoid(x):
  """1 / (1 + exp(-x)), computed stably (``lax.logistic``; integers are rejected, as JAX)."""
  return lax.logistic(jnp.asarray(x))


def log_sigmoid(x):
  (x,) = _inexact(x)
  return -softplus(-x)


def softplus(x):
  """log(1 + exp(x)), stably: logaddexp(x, 0)."""
  (x,) = _inexact(x)
  return jnp.logaddexp(x, 0)


def sparse_plus(x):
  (x,) = _inexact(x)
  return jnp.where(x <= -1.0, 0.0, jnp.where(x >= 1.0, x, (x + 1.0) ** 2 / 4))


def soft_sign(x):
  """x / (|x| + 1)."""
  (x,) = _inexact(x)
  return x / (jnp.abs(x) + 1)


def squareplus(x, b=4):
  """(x + sqrt(x^2 + b)) / 2: a smooth relu."""
  (x,) = _inexact(x)
  return (x + jnp.sqrt(jnp.square(x) + b)) / 2


def silu(x):
  """x * sigmoid(x)."""
  x = jnp.asarray(x)
  return x * sigmoid(x)


swish = silu


def hard_sigmoid(x):
  return relu6(x + 3.0) / 6.0


def hard_silu(x):
  (x,) = _inexact(x)
  return x * hard_sigmoid(x)


hard_swish = hard_silu


def hard_tanh(x):
  x = jnp.asarray(x)
  return jnp.where(x > 1, 1, jnp.where(x < -1, -1, x))


def mish(x):
  (x,) = _inexact(x)
  return x * jnp.tanh(softplus(x))


def elu(x, alpha=1.0):
  (x,) = _inexact(x)
  safe_x = jnp.where(x > 0, 0.0, x)
  return jnp.where(x > 0, x, alpha * jnp.expm1(safe_x))


def celu(x, alpha=1.0):
  (x,) = _inexact(x)
  return jnp.maximum(x, 0.0) + alpha * jnp.expm1(jnp.minimum(x, 0.0) / alpha)


def selu(x):
  alpha = 1.6732632423543772848170429916717
  scale = 1.0507009873554804934193349852946
  return scale * elu(x, alpha)


def leaky_relu(x, negative_slope=1e-2):
  (x,) = _inexact(x)
  return jnp.where(x >= 0, x, negative_slope * x)


def gelu(x, approximate: bool = True):
  """Gaussian error linear unit (tanh approximation by default, as JAX)."""
  (x,) = _inexact(x)
  if approximate:
    cdf = 0.5 * (1.0 + jnp.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * (x ** 3))))
    return x * cdf
  return x * (lax.erfc(-x * np.asarray(1 / np.sqrt(2), x.dtype)) / 2)


def glu(x, axis: int = -1):
  size = x.shape[axis]
  if size % 2:
    raise ValueError(f"axis size must be divisible by 2, got {size}")
  a, b = jnp.split(x, 2, axis)
  return a * sigmoid(b)


def _reduce_max_stopped(x, axis, where, initial):
  m = jnp.max(x, axis, where=where, initial=initial, keepdims=True)
  return lax.stop_gradient(jnp.where(jnp.isfinite(m), m, 0.0))


def log_softmax(x, axis=-1, where=None):
  """x - logsumexp(x) along ``axis``."""
  (x,) = _inexact(x)
  shifted = x - lax.stop_gradient(jnp.max(x, axis, where=where, initial=-np.inf, keepdims=True))
  exp = jnp.exp(shifted) if where is None else jnp.where(where, jnp.exp(shifted), 0)
  out = shifted - jnp.log(jnp.sum(exp, axis, keepdims=True))
  return out if where is None else jnp.where(where, out, -np.inf)


def softmax(x, axis=-1, where=None):
  """exp(x) / sum(exp(x)) along ``axis`` (a smooth argmax)."""
  (x,) = _inexact(x)
  # as JAX: a non-finite max is not zeroed here, so an inf input gives NaNs
  unnormalized = jnp.exp(x - lax.stop_gradient(jnp.max(x, axis, where=where, initial=-np.inf,
                                                        keepdims=True)))
  if where is None:
    return unnormalized / jnp.sum(unnormalized, axis, keepdims=True)
  unnormalized = jnp.where(where, unnormalized, 0.0)
  return jnp.where(where, unnormalized / jnp.sum(unnormalized, axis, keepdims=True), 0.0)


def logsumexp(a, axis=None, b=None, keepdims: bool = False, return_sign: bool = False,
              where=None):
  """log(sum(b * exp(a))) along ``axis``, computed stably."""
  (a,) = _inexact(a)
  dims = tuple(range(a.ndim)) if axis is None else (
      tuple(axis) if isinstance(axis, (tuple, list)) else (axis,))
  m = _reduce_max_stopped(a, dims, where, -np.inf)
  e = jnp.exp(a - m)
  if b is not None:
    e = e * b
  if where is not None:
    e = jnp.where(where, e, 0)
  s = jnp.sum(e, dims, keepdims=True)
  sign = jnp.sign(s)
  out = jnp.log(jnp.abs(s) if return_sign else s) + m
  if not keepdims:
    out = jnp.squeeze(out, dims)
    sign = jnp.squeeze(sign, dims)
  return (out, sign) if return_sign else out


def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5, where=None):
  """(x - mean) / sqrt(variance + epsilon) along ``axis``."""
  (x,) = _inexact(x)
  if mean is None:
    mean = jnp.mean(x, axis, keepdims=True, where=where)
  if variance is None:
    variance = jnp.mean(jnp.square(x), axis, keepdims=True, where=where) - jnp.square(mean)
  return (x - mean) * lax.rsqrt(variance + epsilon)


def one_hot(x, num_classes: int, *, dtype=None, axis=-1):
  """``x[..., None] == arange(num_classes)`` as ``dtype`` (default float)."""
  import operator
  num_classes = operator.index(num_classes)
  dtype = dtypes.default_float_dtype() if dtype is None else dtype
  x = jnp.asarray(x)
  out_ndim = x.ndim + 1
  axis = axis % out_ndim
  classes = lax.broadcasted_iota(jnp.int32, (1,) * axis + (num_classes,) +
                                 (1,) * (out_ndim - axis - 1), axis)
  return (jnp.expand_dims(x, axis) == classes).astype(dtype)


def _inexact(*args):
  from xjax._src.numpy.util import promote_args_inexact
  return promote_args_inexact("nn", *args)
