"""xjax.nn activations: values and gradients (JAX's conventions at kinks), the FAQ example."""
import numpy as np
import pytest
import scipy.special

import xjax as jax
import xjax.numpy as jnp

X = np.array([-10.0, -1.0, 0.0, 1.0, 10.0], np.float32)


def test_faq_sigmoid_example():
  g = jax.vmap(jax.grad(jax.nn.sigmoid))(jnp.asarray(X))
  np.testing.assert_allclose(jax.nn.sigmoid(X), scipy.special.expit(X), rtol=1e-6)
  np.testing.assert_allclose(g, [0.0, 0.2, 0.25, 0.2, 0.0], atol=5e-3)


@pytest.mark.parametrize("name,value,grad", [
    ("relu", np.maximum(X, 0), [0, 0, 0, 1, 1]),
    ("relu6", np.clip(X, 0, 6), [0, 0, 0, 1, 0]),
    ("softplus", np.logaddexp(X, 0), scipy.special.expit(X)),
    ("soft_sign", X / (np.abs(X) + 1), 1 / (np.abs(X) + 1) ** 2),
    ("squareplus", (X + np.sqrt(X ** 2 + 4)) / 2, (1 + X / np.sqrt(X ** 2 + 4)) / 2),
    ("silu", X * scipy.special.expit(X), None),
    ("leaky_relu", np.where(X >= 0, X, 0.01 * X), [0.01, 0.01, 1, 1, 1]),
    ("elu", np.where(X > 0, X, np.expm1(X)), [np.exp(-10), np.exp(-1), 1, 1, 1]),
    ("hard_tanh", np.clip(X, -1, 1), [0, 1, 1, 1, 0]),
])
def test_activation_values_and_gradients(name, value, grad):
  f = getattr(jax.nn, name)
  np.testing.assert_allclose(f(X), value, rtol=1e-5, atol=1e-6)
  if grad is not None:
    np.testing.assert_allclose(jax.vmap(jax.grad(f))(jnp.asarray(X)), grad, rtol=1e-4,
                               atol=1e-6)


def test_softmax_family():
  m = np.arange(6.0, dtype=np.float32).reshape(2, 3)
  e = np.exp(m - m.max(-1, keepdims=True))
  np.testing.assert_allclose(jax.nn.softmax(m), e / e.sum(-1, keepdims=True), rtol=1e-6)
  np.testing.assert_allclose(jax.nn.log_softmax(m, axis=0),
                             m - scipy.special.logsumexp(m, axis=0, keepdims=True), rtol=1e-6)
  np.testing.assert_allclose(jax.nn.logsumexp(m), scipy.special.logsumexp(m), rtol=1e-6)
  g = jax.grad(lambda v: jax.nn.softmax(v)[0])(jnp.arange(3.0))
  np.testing.assert_allclose(g, [0.0819, -0.0220, -0.0599], atol=1e-4)


def test_softplus_gradient_at_zero_is_half():
  assert float(jax.grad(jax.nn.softplus)(0.0)) == 0.5
  assert float(jax.grad(lambda x: jnp.logaddexp(x, x))(1.0)) == 1.0


def test_one_hot_and_integer_inputs():
  np.testing.assert_array_equal(jax.nn.one_hot(jnp.array([0, 2, 1]), 3), np.eye(3)[[0, 2, 1]])
  assert jax.nn.one_hot(jnp.array([0]), 2).dtype == np.float32
  with pytest.raises(TypeError):
    jax.nn.sigmoid(2)  # as JAX: logistic rejects integers
  assert jax.nn.hard_tanh(2).dtype == np.int32
