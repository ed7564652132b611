"""xjax.numpy's reductions against NumPy: the nan-ignoring reductions, and axis= as any
sequence of axes."""
import numpy as np
import pytest

import xjax.numpy as jnp

from tests.checking import check
from tests.libraries.numpy.operands import A


@pytest.mark.parametrize("name", ["nansum", "nanmean", "nanmax", "nanmin", "nanprod",
                                  "nanstd", "nanvar", "nanargmax", "nanargmin"])
def test_nan_reductions(name):
  x = np.array([[1., np.nan, 3.], [np.nan, 2., -1.]], np.float32)
  ref = getattr(np, name)(x)
  check(getattr(jnp, name)(x), ref.astype(np.int32) if "arg" in name else ref)
  ref = getattr(np, name)(x, axis=-1)
  check(getattr(jnp, name)(x, axis=-1), ref.astype(np.int32) if "arg" in name else ref)


def test_axis_arguments_take_any_sequence_of_axes():
  # JAX reads axis= as one index or any iterable of them (distrax passes a range)
  x = jnp.ones((2, 1, 3))
  assert jnp.sum(x, axis=range(2)).shape == (3,)
  assert jnp.mean(x, axis=range(2)).shape == (3,)
  assert jnp.expand_dims(x, range(2)).shape == (1, 1, 2, 1, 3)
  assert jnp.expand_dims(x, np.array([0, 1])).shape == (1, 1, 2, 1, 3)
  assert jnp.squeeze(x, axis=range(1, 2)).shape == (2, 3)
  assert jnp.flip(x, axis=range(2)).shape == (2, 1, 3)
  assert jnp.sum(x, axis=np.int64(1)).shape == (2, 3)
  with pytest.raises(ValueError, match="duplicate value in 'axis'"):
    jnp.sum(x, axis=(0, 0))
  with pytest.raises(IndexError):
    jnp.mean(A, axis=2)
