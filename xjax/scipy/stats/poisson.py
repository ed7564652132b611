"""The Poisson distribution (``jax.scipy.stats.poisson``)."""
from xjax._src.libraries.scipy.stats.poisson import cdf, entropy, logpmf, pmf  # noqa: F401
