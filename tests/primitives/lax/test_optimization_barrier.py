"""lax.optimization_barrier: the identity on values (pytrees), its own jaxpr equation, and
its derivative and batching."""
import numpy as np

import xjax
import xjax.numpy as jnp
from xjax import lax


def test_optimization_barrier():
  x = jnp.arange(3.)
  out = lax.optimization_barrier((x, 2.))
  np.testing.assert_array_equal(out[0], x)
  assert "optimization_barrier" in str(xjax.make_jaxpr(lax.optimization_barrier)(x))
  np.testing.assert_allclose(xjax.jit(xjax.grad(
      lambda y: lax.optimization_barrier(y * y)))(3.), 6.)
  np.testing.assert_array_equal(xjax.vmap(lax.optimization_barrier)(x), x)
