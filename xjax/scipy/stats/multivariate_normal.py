"""The multivariate normal distribution (covariance factored by Cholesky; a covariance
that is not positive definite gives NaN, as JAX) (``jax.scipy.stats.multivariate_normal``)."""
from xjax._src.libraries.scipy.stats.multivariate_normal import logpdf, pdf  # noqa: F401
