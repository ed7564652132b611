"""The negative binomial distribution (``jax.scipy.stats.nbinom``)."""
from xjax._src.libraries.scipy.stats.nbinom import logpmf, pmf  # noqa: F401
