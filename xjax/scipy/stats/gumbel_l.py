"""The left-skewed Gumbel distribution (minima) (``jax.scipy.stats.gumbel_l``)."""
from xjax._src.scipy.stats.gumbel_l import cdf, logcdf, logpdf, logsf, pdf, ppf, sf  # noqa: F401
