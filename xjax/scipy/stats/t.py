"""Student's t distribution (``jax.scipy.stats.t``)."""
from xjax._src.libraries.scipy.stats.t import logpdf, pdf  # noqa: F401
