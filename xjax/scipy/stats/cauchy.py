"""The Cauchy distribution (``jax.scipy.stats.cauchy``)."""
from xjax._src.libraries.scipy.stats.cauchy import (cdf, isf, logcdf, logpdf, logsf,  # noqa: F401
                                                    pdf, ppf, sf)
