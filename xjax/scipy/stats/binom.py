"""The binomial distribution (``jax.scipy.stats.binom``)."""
from xjax._src.libraries.scipy.stats.binom import logpmf, pmf  # noqa: F401
