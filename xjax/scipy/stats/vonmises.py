"""The von Mises distribution on the circle (``jax.scipy.stats.vonmises``)."""
from xjax._src.libraries.scipy.stats.vonmises import logpdf, pdf  # noqa: F401
