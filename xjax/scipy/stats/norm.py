"""The normal distribution (``jax.scipy.stats.norm``)."""
from xjax._src.scipy.stats.norm import cdf, isf, logcdf, logpdf, logsf, pdf, ppf, sf  # noqa: F401
