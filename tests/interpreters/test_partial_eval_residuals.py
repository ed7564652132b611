"""Partial evaluation keeps only the residuals live unknown equations read, as JAX: a
tangent stop_gradient kills leaves no residuals behind."""
import numpy as np

import xjax
import xjax.numpy as jnp


def test_grad_through_log_softmax_saves_three_residuals():
  x = jnp.arange(6.0).reshape(2, 3)
  f = lambda z: -jnp.mean(jnp.sum(xjax.nn.log_softmax(z) * xjax.nn.one_hot(
      jnp.array([0, 2]), 3), axis=-1))
  jaxpr = xjax.make_jaxpr(xjax.grad(f))(x)
  forward = next(e for e in jaxpr.eqns if e.primitive.name == "jit")
  assert len(forward.outvars) == 3  # log_softmax, exp(shifted), the sum (JAX 0.10.2's)
  want = np.eye(3)[[0, 2]] - np.exp(np.asarray(x)) / np.exp(np.asarray(x)).sum(1,
                                                                                  keepdims=True)
  np.testing.assert_allclose(xjax.grad(f)(x), -want / 2, rtol=1e-6)
