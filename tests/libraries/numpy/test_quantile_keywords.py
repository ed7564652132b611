"""quantile and its kin take JAX 0.10.2's keywords only: NumPy's old `interpolation=` is
refused with JAX's TypeError; `method=` selects the rule (NumPy as oracle)."""
import numpy as np
import pytest

import xjax.numpy as jnp


@pytest.mark.parametrize("name", ["quantile", "nanquantile", "percentile", "nanpercentile"])
def test_interpolation_keyword_is_refused(name):
  with pytest.raises(TypeError, match="interpolation"):
    getattr(jnp, name)(jnp.arange(5.0), 0.5, interpolation="lower")


@pytest.mark.parametrize("method", ["lower", "higher", "midpoint", "nearest", "linear"])
def test_method_keyword(method):
  x = np.array([3.0, 1.0, 4.0, 1.5, 9.0, 2.0], np.float32)
  np.testing.assert_allclose(jnp.percentile(x, 35.0, method=method),
                             np.percentile(x, 35.0, method=method), rtol=1e-6)
