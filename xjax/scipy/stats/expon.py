"""The exponential distribution (``jax.scipy.stats.expon``)."""
from xjax._src.libraries.scipy.stats.expon import (cdf, logcdf, logpdf, logsf, pdf,  # noqa: F401
                                                   ppf, sf)
