"""jnp.apply_along_axis and apply_over_axes against NumPy."""
import numpy as np

import xjax.numpy as jnp

from tests.checking import check

RNG = np.random.default_rng(0)


def test_apply_along_and_over_axes():
  a = RNG.normal(size=(2, 3, 4)).astype(np.float32)
  f = lambda v: v * v.sum()
  for axis in (0, 1, 2, -1):
    check(jnp.apply_along_axis(f, axis, a), np.apply_along_axis(f, axis, a))
  check(jnp.apply_along_axis(lambda v: v.max(), 1, a), np.apply_along_axis(np.max, 1, a))
  check(jnp.apply_over_axes(jnp.sum, a, [0, 2]), np.apply_over_axes(np.sum, a, [0, 2]))
