"""The geometric distribution (trials until the first success, k >= 1) (``jax.scipy.stats.geom``)."""
from xjax._src.libraries.scipy.stats.geom import logpmf, pmf  # noqa: F401
