"""NumPy's discrete Fourier transforms on xjax arrays (``jax.numpy.fft``)."""
from xjax._src.numpy.fft import (fft, fft2, fftfreq, fftn, fftshift, hfft, ifft,  # noqa: F401
                                 ifft2, ifftn, ifftshift, ihfft, irfft, irfft2, irfftn, rfft,
                                 rfft2, rfftfreq, rfftn)
