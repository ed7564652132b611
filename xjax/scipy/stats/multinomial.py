"""The multinomial distribution (``jax.scipy.stats.multinomial``)."""
from xjax._src.scipy.stats.multinomial import logpmf, pmf  # noqa: F401
