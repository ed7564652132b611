"""The binomial distribution (``jax.scipy.stats.binom``)."""
from xjax._src.scipy.stats.binom import logpmf, pmf  # noqa: F401
