"""lax's scatter conveniences: scatter_sub (values and derivatives) and scatter_apply."""
import numpy as np

import xjax.numpy as jnp
from xjax import lax
from xjax.test_util import check_grads


def test_scatter_sub_and_apply():
  dn = lax.ScatterDimensionNumbers((), (0,), (0,))
  idx = jnp.array([[1], [3], [1]])
  upd = jnp.array([1., 2., 3.])
  np.testing.assert_array_equal(lax.scatter_sub(jnp.ones(4), idx, upd, dn), [1., -3., 1., -1.])
  check_grads(lambda o, u: lax.scatter_sub(o, idx, u, dn), (jnp.ones(4), upd), 1)
  out = lax.scatter_apply(jnp.arange(4.), idx, lambda v: v * 10, dn, update_shape=(3,))
  np.testing.assert_array_equal(out, [0., 100., 2., 30.])  # once per hit, as in JAX
