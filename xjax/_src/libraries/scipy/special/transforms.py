"""The logistic pair (expit, logit) and the Box-Cox power transforms."""
from __future__ import annotations

from xjax._src.primitives.custom_derivatives import custom_jvp
from xjax._src.primitives.lax.elementwise import _const, div, log, logistic, mul, sub
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays


@custom_jvp
def _logit(x):
  return log(div(x, sub(_const(x, 1), x)))  # 1 typed like x, as JAX's


_logit.defjvps(lambda g, ans, x: div(g, mul(x, sub(_const(x, 1), x))))


def logit(x):
  """log(x / (1 - x)), the inverse of expit."""
  (x,) = inexact_arrays("logit", x)
  return _logit(x)


def expit(x):
  """The logistic sigmoid 1 / (1 + exp(-x))."""
  (x,) = inexact_arrays("expit", x)
  return logistic(x)


def _boxcox_of_log(log_x, lmbda):
  zero = lmbda == 0
  safe = jnp.where(zero, jnp.ones_like(lmbda), lmbda)
  return jnp.where(zero, log_x, jnp.expm1(safe * log_x) / safe)


def boxcox(x, lmbda):
  """(x ** lmbda - 1) / lmbda, or log(x) where lmbda == 0."""
  x, lmbda = inexact_arrays("boxcox", x, lmbda)
  return _boxcox_of_log(jnp.log(x), lmbda)


def boxcox1p(x, lmbda):
  """boxcox(1 + x, lmbda), accurate for small x."""
  x, lmbda = inexact_arrays("boxcox1p", x, lmbda)
  return _boxcox_of_log(jnp.log1p(x), lmbda)
