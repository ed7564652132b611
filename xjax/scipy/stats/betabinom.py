"""The beta-binomial distribution (``jax.scipy.stats.betabinom``)."""
from xjax._src.scipy.stats.betabinom import logpmf, pmf  # noqa: F401
