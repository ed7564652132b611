"""The generalized normal distribution (exponential power family) (``jax.scipy.stats.gennorm``)."""
from xjax._src.libraries.scipy.stats.gennorm import cdf, logpdf, pdf  # noqa: F401
