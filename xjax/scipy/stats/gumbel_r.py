"""The right-skewed Gumbel distribution (maxima) (``jax.scipy.stats.gumbel_r``)."""
from xjax._src.scipy.stats.gumbel_r import cdf, logcdf, logpdf, logsf, pdf, ppf, sf  # noqa: F401
