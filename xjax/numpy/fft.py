"""NumPy's discrete Fourier transforms on xjax arrays (``jax.numpy.fft``)."""
from xjax._src.libraries.numpy.fft import (fft, fft2, fftfreq, fftn, fftshift, hfft,  # noqa: F401
                                           ifft, ifft2, ifftn, ifftshift, ihfft, irfft, irfft2,
                                           irfftn, rfft, rfft2, rfftfreq, rfftn)
