"""The gamma distribution (``jax.scipy.stats.gamma``)."""
from xjax._src.libraries.scipy.stats.gamma import cdf, logcdf, logpdf, logsf, pdf, sf  # noqa: F401
