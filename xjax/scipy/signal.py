"""Signal processing (``jax.scipy.signal``): direct convolution, correlation, detrend."""
from xjax._src.scipy.signal import (convolve, convolve2d, correlate, correlate2d,  # noqa: F401
                                    detrend)
