"""The Pareto distribution (``jax.scipy.stats.pareto``)."""
from xjax._src.libraries.scipy.stats.pareto import (cdf, logcdf, logpdf, logsf, pdf,  # noqa: F401
                                                    ppf, sf)
