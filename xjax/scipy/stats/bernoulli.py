"""The Bernoulli distribution (``jax.scipy.stats.bernoulli``)."""
from xjax._src.libraries.scipy.stats.bernoulli import cdf, logpmf, pmf, ppf  # noqa: F401
