"""The wrapped Cauchy distribution on [0, 2 pi] (``jax.scipy.stats.wrapcauchy``)."""
from xjax._src.libraries.scipy.stats.wrapcauchy import logpdf, pdf  # noqa: F401
