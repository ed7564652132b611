"""xjax.scipy.integrate.trapezoid."""
import numpy as np

from xjax.scipy import integrate


def test_trapezoid():
  np.testing.assert_allclose(integrate.trapezoid(np.arange(4.0), dx=0.5), 2.25)
