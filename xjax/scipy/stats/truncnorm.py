"""The normal distribution truncated to [a, b] (in standard units) (``jax.scipy.stats.truncnorm``)."""
from xjax._src.libraries.scipy.stats.truncnorm import (cdf, logcdf, logpdf, logsf,  # noqa: F401
                                                       pdf, sf)
