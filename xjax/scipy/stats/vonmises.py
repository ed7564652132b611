"""The von Mises distribution on the circle (``jax.scipy.stats.vonmises``)."""
from xjax._src.scipy.stats.vonmises import logpdf, pdf  # noqa: F401
