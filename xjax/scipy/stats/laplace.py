"""The Laplace (double exponential) distribution (``jax.scipy.stats.laplace``)."""
from xjax._src.libraries.scipy.stats.laplace import cdf, logpdf, pdf  # noqa: F401
