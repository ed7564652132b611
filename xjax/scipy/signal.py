"""Signal processing (``jax.scipy.signal``): convolution, correlation, detrend and
windowed-FFT spectra."""
from xjax._src.scipy.signal import (convolve, convolve2d, correlate, correlate2d,  # noqa: F401
                                    detrend, fftconvolve)
from xjax._src.scipy.spectral import csd, istft, stft, welch  # noqa: F401
