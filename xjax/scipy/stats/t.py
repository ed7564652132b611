"""Student's t distribution (``jax.scipy.stats.t``)."""
from xjax._src.scipy.stats.t import logpdf, pdf  # noqa: F401
