"""Discrete cosine transforms (``jax.scipy.fft``)."""
from xjax._src.libraries.scipy.fft import dct, dctn, idct, idctn  # noqa: F401
