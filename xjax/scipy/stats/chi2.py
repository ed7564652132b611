"""The chi-squared distribution (``jax.scipy.stats.chi2``)."""
from xjax._src.libraries.scipy.stats.chi2 import cdf, logcdf, logpdf, logsf, pdf, sf  # noqa: F401
