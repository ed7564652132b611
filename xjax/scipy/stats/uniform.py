"""The uniform distribution on [loc, loc + scale] (``jax.scipy.stats.uniform``)."""
from xjax._src.libraries.scipy.stats.uniform import cdf, logpdf, pdf, ppf  # noqa: F401
