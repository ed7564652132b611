"""Activation functions (``jax.nn``): elementwise maps written with xjax.numpy, with JAX's
dtype behaviour and its derivative conventions at kinks (relu'(0) = 0, relu6' = 0 at both)."""
from __future__ import annotations

import numpy as np

from xjax._src.primitives.custom_derivatives import custom_jvp
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax.elementwise import erfc, logistic, select
from xjax._src.primitives.lax.shapes import full_like
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.numpy.arguments import arraylike
from xjax._src.libraries.numpy.promotion import promote_args_inexact


def _arr(name, x):
  x, = arraylike(name, x)
  return jnp.asarray(x)


@compiled_when_eager(staged="identity")
def identity(x):
  """x, unchanged (as an array)."""
  return _arr("identity", x)


@custom_jvp
@compiled_when_eager(staged="relu")   # (JAX jits it)
def relu(x):
  """max(x, 0); its derivative at 0 is 0."""
  return jnp.maximum(x, 0)


relu.defjvps(lambda g, ans, x: select(x > 0, g, full_like(g, 0)))


@custom_jvp
@compiled_when_eager(staged="relu6")   # (JAX jits it)
def relu6(x):
  """min(max(x, 0), 6); derivative 0 at both kinks."""
  return jnp.minimum(jnp.maximum(x, 0), 6.0)


relu6.defjvps(lambda g, ans, x: select((x > 0) & (x < 6), g, full_like(g, 0)))


@compiled_when_eager
def sigmoid(x):
  """1 / (1 + exp(-x)) (``lax.logistic``: integers are rejected, as JAX)."""
  return logistic(x)


@compiled_when_eager(staged="sparse_sigmoid")
def sparse_sigmoid(x):
  """clip((x + 1) / 2, 0, 1): the derivative of sparse_plus."""
  return 0.5 * jnp.clip(_arr("sparse_sigmoid", x) + 1.0, 0.0, 2.0)


@compiled_when_eager(staged="softplus")
def softplus(x):
  """log(1 + exp(x)), stably."""
  return jnp.logaddexp(x, 0)


@compiled_when_eager(staged="log_sigmoid")
def log_sigmoid(x):
  """log(sigmoid(x)) = -softplus(-x)."""
  return -softplus(-_arr("log_sigmoid", x))


@compiled_when_eager(staged="sparse_plus")
def sparse_plus(x):
  """0 below -1, x above 1, (x + 1)^2 / 4 between."""
  x = _arr("sparse_plus", x)
  return jnp.where(x <= -1.0, 0.0, jnp.where(x >= 1.0, x, (x + 1.0) ** 2 / 4))


@compiled_when_eager(staged="soft_sign")
def soft_sign(x):
  """x / (|x| + 1)."""
  x = _arr("soft_sign", x)
  return x / (jnp.abs(x) + 1)


@compiled_when_eager(staged="squareplus")
def squareplus(x, b=4):
  """(x + sqrt(x^2 + b)) / 2: a smooth relu."""
  x, b = arraylike("squareplus", x, b)
  return (x + jnp.sqrt(jnp.square(x) + b)) / 2


@compiled_when_eager(staged="silu")
def silu(x):
  """x * sigmoid(x)."""
  x = _arr("silu", x)
  return x * sigmoid(x)


swish = silu


@compiled_when_eager(staged="hard_sigmoid")
def hard_sigmoid(x):
  """relu6(x + 3) / 6."""
  return relu6(_arr("hard_sigmoid", x) + 3.0) / 6.0


@compiled_when_eager(staged="hard_silu")
def hard_silu(x):
  """x * hard_sigmoid(x)."""
  x = _arr("hard_silu", x)
  return x * hard_sigmoid(x)


hard_swish = hard_silu


@compiled_when_eager(staged="hard_tanh")
def hard_tanh(x):
  """x clipped to [-1, 1]."""
  x = _arr("hard_tanh", x)
  return jnp.where(x > 1, 1, jnp.where(x < -1, -1, x))


@compiled_when_eager(staged="mish")
def mish(x):
  """x * tanh(softplus(x))."""
  x = _arr("mish", x)
  return x * jnp.tanh(softplus(x))


@compiled_when_eager(staged="elu")
def elu(x, alpha=1.0):
  """x for x > 0, alpha * (exp(x) - 1) otherwise."""
  x = _arr("elu", x)
  return jnp.where(x > 0, x, alpha * jnp.expm1(jnp.where(x > 0, 0.0, x)))


@compiled_when_eager(staged="celu")
def celu(x, alpha=1.0):
  """max(x, 0) + alpha * expm1(min(x, 0) / alpha)."""
  return jnp.maximum(x, 0.0) + alpha * jnp.expm1(jnp.minimum(x, 0.0) / alpha)


@compiled_when_eager(staged="selu")
def selu(x):
  """scale * elu(x, alpha) with the self-normalizing constants."""
  alpha = 1.6732632423543772848170429916717
  scale = 1.0507009873554804934193349852946
  return scale * elu(x, alpha)


@compiled_when_eager(staged="leaky_relu")
def leaky_relu(x, negative_slope=1e-2):
  """x for x >= 0, negative_slope * x otherwise."""
  x = _arr("leaky_relu", x)
  return jnp.where(x >= 0, x, negative_slope * x)


def gelu(x, approximate: bool = True):
  """Gaussian error linear unit (tanh approximation by default, as JAX).  Run op by op when
  eager, as JAX does (its fused form rounds differently)."""
  x, = arraylike("gelu", x)
  x = jnp.asarray(promote_args_inexact("gelu", x)[0])
  if approximate:
    c = np.sqrt(2 / np.pi).astype(x.dtype)
    return x * (0.5 * (1.0 + jnp.tanh(c * (x + 0.044715 * (x ** 3)))))
  half = np.sqrt(0.5).astype(x.dtype)
  return jnp.array(0.5 * x * erfc(-x * half), dtype=x.dtype)  # (a copy, as JAX's)


@compiled_when_eager(static_argnames=("axis",), staged="glu")
def glu(x, axis: int = -1):
  """a * sigmoid(b) for the two halves a, b of x along ``axis``."""
  x = _arr("glu", x)
  size = x.shape[axis]
  if size % 2:
    raise AssertionError("axis size must be divisible by 2")
  a, b = jnp.split(x, 2, axis)
  return a * sigmoid(b)


@custom_jvp
def _log1mexp(x):
  return jnp.where(x < np.log(2.0), jnp.log(-jnp.expm1(-x)), jnp.log1p(-jnp.exp(-x)))


_log1mexp.defjvps(lambda g, ans, x: g / jnp.expm1(x))


@compiled_when_eager(staged="log1mexp")
def log1mexp(x):
  """log(1 - exp(-x)), stably for small and large x."""
  return _log1mexp(_arr("log1mexp", x))
