"""The logistic distribution (``jax.scipy.stats.logistic``)."""
from xjax._src.libraries.scipy.stats.logistic import cdf, isf, logpdf, pdf, ppf, sf  # noqa: F401
