"""The left-skewed Gumbel distribution (minima) (``jax.scipy.stats.gumbel_l``)."""
from xjax._src.libraries.scipy.stats.gumbel_l import (cdf, logcdf, logpdf, logsf, pdf,  # noqa: F401
                                                      ppf, sf)
