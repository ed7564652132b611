"""The Bernoulli distribution (``jax.scipy.stats.bernoulli``)."""
from xjax._src.scipy.stats.bernoulli import cdf, logpmf, pmf, ppf  # noqa: F401
