"""xjax.scipy.interpolate.RegularGridInterpolator against scipy.interpolate's, eagerly and
as a pytree through jit."""
import numpy as np
import scipy.interpolate

import xjax as jax
from xjax.scipy import interpolate


def test_regular_grid_interpolator():
  x, y = np.linspace(0, 1, 5), np.linspace(-1, 2, 7)
  values = np.sin(x[:, None] * 3 + y[None, :]).astype(np.float32)
  pts = np.array([[0.1, 0.2], [0.9, 1.9], [0.5, -0.5], [1.2, 0.0], [0.33, 1.1]], np.float32)
  for method in ("linear", "nearest"):
    interp = interpolate.RegularGridInterpolator((x, y), values, method=method)
    ref = scipy.interpolate.RegularGridInterpolator((x, y), values, method=method,
                                                    bounds_error=False)
    np.testing.assert_allclose(interp(pts), ref(pts), rtol=1e-5)
    np.testing.assert_allclose(jax.jit(lambda f, p: f(p))(interp, pts), ref(pts), rtol=1e-5)
