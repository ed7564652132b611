"""The exponential distribution (``jax.scipy.stats.expon``)."""
from xjax._src.scipy.stats.expon import cdf, logcdf, logpdf, logsf, pdf, ppf, sf  # noqa: F401
