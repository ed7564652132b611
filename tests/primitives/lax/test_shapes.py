"""lax's shape primitives and helpers: broadcast_shapes/to_rank/like, tile, split, collapse,
index_take, stack/unstack, empty, dtype, shape_as_value, and squeeze as its own primitive."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax
from xjax.test_util import check_grads


def test_shape_helpers():
  assert lax.broadcast_shapes((1, 3), (2, 1), (3,)) == (2, 3)
  with pytest.raises(ValueError):
    lax.broadcast_shapes((2, 3), (4, 3))
  assert lax.broadcast_to_rank(jnp.ones(3), 3).shape == (1, 1, 3)
  assert lax.broadcast_like(jnp.float32(2), jnp.ones((2, 3))).shape == (2, 3)
  x = np.arange(6.).reshape(2, 3)
  np.testing.assert_array_equal(lax.tile(jnp.asarray(x), (2, 2)), np.tile(x, (2, 2)))
  with pytest.raises(TypeError):
    lax.tile(jnp.ones(3), (2, 2))
  parts = lax.split(jnp.arange(6), [1, 2, 3])
  assert [p.tolist() for p in parts] == [[0], [1, 2], [3, 4, 5]]
  with pytest.raises(ValueError):
    lax.split(jnp.arange(6), [1, 2])
  y = jnp.arange(24.).reshape(2, 3, 4)
  assert lax.collapse(y, 1).shape == (2, 12) and lax.collapse(y, 0, 2).shape == (6, 4)
  taken = lax.index_take(y, (jnp.array([1, 0]), jnp.array([2, 1])), (0, 2))
  np.testing.assert_array_equal(taken, np.array(y)[[1, 0], :, [2, 1]])
  np.testing.assert_array_equal(lax.stack([jnp.ones(2), jnp.zeros(2)], 1), [[1, 0], [1, 0]])
  assert [u.shape for u in lax.unstack(jnp.ones((2, 3)), 1)] == [(2,)] * 3
  assert lax.empty((2,), np.int32).dtype == np.int32
  assert lax.dtype(1.0) == np.float32 and lax.dtype(3) == np.int32
  np.testing.assert_array_equal(lax.shape_as_value((2, 3)), [2, 3])


def test_squeeze_is_its_own_primitive():
  x = np.arange(3, dtype=np.float32).reshape(1, 3, 1)
  assert "squeeze[dimensions=(0, 2)]" in str(xjax.make_jaxpr(jnp.squeeze)(x))
  np.testing.assert_array_equal(lax.squeeze(x, (-1, 0)), x.reshape(3))
  assert lax.squeeze(x, ()) is x
  with pytest.raises(ValueError, match="size not equal to one"):
    lax.squeeze(np.ones((2, 3)), (0,))
  xs = np.random.RandomState(0).randn(3, 4, 1).astype(np.float32)
  np.testing.assert_allclose(xjax.vmap(lambda v: lax.squeeze(v, (1,)), in_axes=1)(xs),
                             np.stack([xs[:, i, 0] for i in range(4)]))
  check_grads(lambda v: lax.squeeze(v, (0, 2)) ** 2, (x + 1,), order=2, atol=2e-2, rtol=2e-2)
