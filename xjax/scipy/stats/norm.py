"""The normal distribution (``jax.scipy.stats.norm``)."""
from xjax._src.libraries.scipy.stats.norm import (cdf, isf, logcdf, logpdf, logsf,  # noqa: F401
                                                  pdf, ppf, sf)
