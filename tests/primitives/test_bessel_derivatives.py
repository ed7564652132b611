"""Derivatives of the exponentially scaled Bessel functions i0e and i1e."""
import numpy as np

import xjax
from xjax import lax
from xjax.test_util import check_grads

X = np.array([0.0, 1e-9, 0.1, -0.3, 2.0], np.float32)


def test_bessel_i1e_derivative_values_as_jax():
  # jax 0.10.2: jvp(lax.bessel_i1e, (X,), (ones,))[1]; the limit 0.5 at (and near) 0
  want = [0.5, 0.5, 0.40881792, 0.27061114, -0.01439562]
  _, t = xjax.jvp(lax.bessel_i1e, (X,), (np.ones_like(X),))
  np.testing.assert_allclose(t, want, rtol=1e-6)
  np.testing.assert_allclose(xjax.vmap(xjax.grad(lax.bessel_i1e))(X), want, rtol=1e-6)


def test_bessel_derivatives_match_finite_differences():
  x = np.array([-1.5, -0.4, 0.3, 1.2, 3.0], np.float64)
  with xjax.enable_x64(True):
    check_grads(lax.bessel_i1e, (x,), order=2, modes=("fwd", "rev"))
    check_grads(lax.bessel_i0e, (x,), order=2, modes=("fwd", "rev"))
