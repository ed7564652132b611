"""Signal processing (``jax.scipy.signal``): convolution, correlation, detrend and
windowed-FFT spectra."""
from xjax._src.libraries.scipy.signal import (convolve, convolve2d, correlate,  # noqa: F401
                                              correlate2d, detrend, fftconvolve)
from xjax._src.libraries.scipy.spectral import csd, istft, stft, welch  # noqa: F401
