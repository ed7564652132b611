"""The beta-binomial distribution (``jax.scipy.stats.betabinom``)."""
from xjax._src.libraries.scipy.stats.betabinom import logpmf, pmf  # noqa: F401
