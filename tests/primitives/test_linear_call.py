"""xjax.custom_derivatives.linear_call: a linear function whose transpose is the user's,
checked against JAX 0.10.2's docstring examples and NumPy."""
import functools

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax.custom_derivatives import linear_call


def _transpose(f, x_example):
  return lambda y: xjax.linear_transpose(f, x_example)(y)[0]


def _div_add(x, denom):
  return x + linear_call(lambda r, x: x / r, lambda r, t: t / r, denom, x)


def _custom_id(x):   # identity whose transpose multiplies by 7 (deliberately not the true one)
  return linear_call(lambda _, x: x, lambda _, t: 7.0 * t, (), x)


def test_values_and_transposes_as_jax():
  assert float(_div_add(9.0, 3.0)) == 12.0
  assert float(_transpose(functools.partial(_div_add, denom=3.0), 1.0)(18.0)) == 24.0
  assert float(_custom_id(1.0)) == 1.0
  assert float(_transpose(_custom_id, 1.0)(1.0)) == 7.0
  assert float(_transpose(_transpose(_custom_id, 1.0), 1.0)(1.0)) == 1.0   # fun again
  assert float(_transpose(_transpose(_transpose(_custom_id, 1.0), 1.0), 1.0)(1.0)) == 7.0
  jaxpr = xjax.make_jaxpr(_div_add)(9.0, 3.0)
  assert [e.primitive.name for e in jaxpr.jaxpr.eqns] == ["linear_call", "add"]


def test_differentiation_uses_the_transpose():
  np.testing.assert_allclose(xjax.grad(_div_add)(9.0, 3.0), 4 / 3, rtol=1e-6)
  assert float(xjax.grad(_custom_id)(1.0)) == 7.0
  assert float(xjax.jit(xjax.grad(_custom_id))(1.0)) == 7.0
  p, t = xjax.jvp(_custom_id, (1.0,), (2.0,))
  assert (float(p), float(t)) == (1.0, 2.0)
  x = jnp.arange(3.0)
  mat = lambda r, v: r @ v
  A = jnp.array([[1.0, 2.0, 0.0], [0.0, 1.0, 3.0]])
  f = lambda v: linear_call(mat, lambda r, c: r.T @ c, A, v)
  np.testing.assert_allclose(f(x), np.asarray(A) @ np.arange(3.0))
  ct, = xjax.vjp(f, x)[1](jnp.ones(2))
  np.testing.assert_allclose(ct, np.asarray(A).T @ np.ones(2))


def test_bad_input():
  two = lambda x: linear_call(lambda r, x: (x, x), lambda r, ct: ct, (), x)
  with pytest.raises(TypeError, match="transpose output pytree structure must match"):
    xjax.linear_transpose(two, 1.0)((1.0, 2.0))
  with pytest.raises(AssertionError, match="residual"):
    xjax.grad(_div_add, argnums=1)(9.0, 3.0)
  with pytest.raises(NotImplementedError, match="Batching rule for 'linear_call'"):
    xjax.vmap(_custom_id)(jnp.ones(3))   # as JAX: linear_call has no batching rule
