"""xjax.numpy's cumulative functions against NumPy: cumsum/cumprod and their nan forms,
dtypes, empty axes, jit and vmap."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp

from tests.checking import check
from tests.libraries.numpy.operands import A, I, N


def test_cumulative():
  check(jnp.cumsum(I), np.cumsum(I).astype(np.int32))
  check(jnp.cumsum(I, axis=-1), np.cumsum(I, axis=-1, dtype=np.int32))
  check(jnp.cumprod(A, 0), np.cumprod(A, 0))
  check(jnp.nancumsum(N[:3]), np.nancumsum(N[:3]))
  check(jnp.nancumprod(N[:3]), np.nancumprod(N[:3]))
  check(jnp.cumsum(np.array([True, False, True])), np.array([1, 1, 2], np.int32))
  check(jnp.cumsum(np.zeros((0, 2), np.float32), axis=0), np.zeros((0, 2), np.float32))
  check(jnp.asarray(I).cumsum(axis=0), np.cumsum(I, axis=0, dtype=np.int32))
  with pytest.raises(ValueError, match="out of bounds"):
    jnp.cumsum(A, axis=2)
  # a 0-d array is flattened only when axis is None; it has no axis 0 (JAX's ValueError)
  check(jnp.cumsum(np.float32(2)), np.array([2.], np.float32))
  for f in (jnp.cumsum, jnp.nancumprod, jnp.add.accumulate):
    with pytest.raises(ValueError, match="axis 0 is out of bounds for array of dimension 0"):
      f(np.float32(2), axis=0)
  with pytest.raises(NotImplementedError, match="immutable"):
    jnp.cumsum(A, out=A)


def test_cumulative_empty_axis():
  assert jnp.cumsum(jnp.zeros((0, 3)), axis=0).shape == (0, 3)
  assert xjax.jit(lambda x: xjax.lax.cummax(x, 1, reverse=True))(jnp.zeros((2, 0))).shape == (2, 0)
  assert xjax.vmap(jnp.cumprod)(jnp.zeros((3, 0))).shape == (3, 0)
  check(jnp.cumulative_sum(jnp.zeros((0,), jnp.int32), include_initial=True), [0], np.int32)
