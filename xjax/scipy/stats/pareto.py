"""The Pareto distribution (``jax.scipy.stats.pareto``)."""
from xjax._src.scipy.stats.pareto import cdf, logcdf, logpdf, logsf, pdf, ppf, sf  # noqa: F401
