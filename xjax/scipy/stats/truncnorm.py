"""The normal distribution truncated to [a, b] (in standard units) (``jax.scipy.stats.truncnorm``)."""
from xjax._src.scipy.stats.truncnorm import cdf, logcdf, logpdf, logsf, pdf, sf  # noqa: F401
