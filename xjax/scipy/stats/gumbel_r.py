"""The right-skewed Gumbel distribution (maxima) (``jax.scipy.stats.gumbel_r``)."""
from xjax._src.libraries.scipy.stats.gumbel_r import (cdf, logcdf, logpdf, logsf, pdf,  # noqa: F401
                                                      ppf, sf)
