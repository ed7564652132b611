"""Calls third-party JAX libraries make that once stopped them under xjax; each test stands for
the library call quoted in its docstring."""
import functools

import numpy as np

import xjax
import xjax.numpy as jnp
from xjax.custom_derivatives import SymbolicZero


def test_at_least_vspace_in_a_symbolic_zeros_jvp():
  """distrax ``multiply_no_nan``'s JVP (reached from ``Categorical.log_prob`` under grad):
  ``result_aval = jax.typeof(primal_out).at_least_vspace()``; ``SymbolicZero(result_aval)``."""

  @xjax.custom_jvp
  def multiply_no_nan(x, y):
    return jnp.where(y == 0, jnp.zeros_like(x), x * y)

  @functools.partial(multiply_no_nan.defjvp, symbolic_zeros=True)
  def _(primals, tangents):
    x, y = primals
    x_dot, y_dot = tangents
    out = multiply_no_nan(x, y)
    aval = xjax.typeof(out).at_least_vspace()
    scale = lambda t, s: SymbolicZero(aval) if isinstance(t, SymbolicZero) else t * s
    t1, t2 = scale(x_dot, y), scale(y_dot, x)
    if isinstance(t1, SymbolicZero):
      return out, t2
    return out, t1 if isinstance(t2, SymbolicZero) else t1 + t2

  x = jnp.array([1.0, 2.0, 3.0])
  y = jnp.array([0.0, 2.0, 4.0])
  np.testing.assert_allclose(xjax.grad(lambda x: multiply_no_nan(x, y).sum())(x), [0, 2, 4])
  int_aval = xjax.typeof(jnp.arange(3)).at_least_vspace()
  assert int_aval.shape == (3,) and int_aval.dtype == xjax.dtypes.float0
  assert xjax.typeof(x).at_least_vspace() == xjax.typeof(x)
