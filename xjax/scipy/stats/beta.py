"""The beta distribution on [loc, loc + scale] (``jax.scipy.stats.beta``)."""
from xjax._src.libraries.scipy.stats.beta import cdf, logcdf, logpdf, logsf, pdf, sf  # noqa: F401
