"""The multinomial distribution (``jax.scipy.stats.multinomial``)."""
from xjax._src.libraries.scipy.stats.multinomial import logpmf, pmf  # noqa: F401
