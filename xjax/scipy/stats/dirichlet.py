"""The Dirichlet distribution (x indexed by component on axis 0) (``jax.scipy.stats.dirichlet``)."""
from xjax._src.libraries.scipy.stats.dirichlet import logpdf, pdf  # noqa: F401
