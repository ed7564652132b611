"""The Cauchy distribution (``jax.scipy.stats.cauchy``)."""
from xjax._src.scipy.stats.cauchy import cdf, isf, logcdf, logpdf, logsf, pdf, ppf, sf  # noqa: F401
