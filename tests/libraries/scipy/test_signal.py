"""xjax.scipy.signal's convolutions, correlations and detrend against scipy.signal, with its
errors."""
import numpy as np
import pytest
import scipy.signal

from xjax.scipy import signal

RNG = np.random.RandomState(0)


def test_convolve_correlate_and_detrend():
  a, b = RNG.randn(10).astype(np.float32), RNG.randn(4).astype(np.float32)
  m2, k2 = RNG.randn(6, 7).astype(np.float32), RNG.randn(3, 2).astype(np.float32)
  for mode in ("full", "same", "valid"):
    for f in ("convolve", "correlate"):
      np.testing.assert_allclose(getattr(signal, f)(a, b, mode),
                                 getattr(scipy.signal, f)(a, b, mode), atol=1e-5)
      np.testing.assert_allclose(getattr(signal, f)(b, a, mode),
                                 getattr(scipy.signal, f)(b, a, mode), atol=1e-5)
    for f in ("convolve2d", "correlate2d"):
      np.testing.assert_allclose(getattr(signal, f)(m2, k2, mode),
                                 getattr(scipy.signal, f)(m2, k2, mode), atol=1e-5)
  d = RNG.randn(3, 20).astype(np.float32)
  np.testing.assert_allclose(signal.detrend(d), scipy.signal.detrend(d), atol=1e-5)
  np.testing.assert_allclose(signal.detrend(d, bp=[5, 12]), scipy.signal.detrend(d, bp=[5, 12]),
                             atol=1e-5)
  np.testing.assert_allclose(signal.detrend(d, axis=0, type="constant"),
                             scipy.signal.detrend(d, axis=0, type="constant"), atol=1e-6)
  with pytest.raises(ValueError, match="mode"):
    signal.convolve(a, b, mode="wide")
  with pytest.raises(ValueError, match="Trend type"):
    signal.detrend(d, type="cubic")
  with pytest.raises(NotImplementedError, match="boundary"):
    signal.convolve2d(m2, k2, boundary="wrap")
