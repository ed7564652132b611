"""Integration (``jax.scipy.integrate``)."""
from xjax._src.libraries.numpy.lax_numpy import trapezoid  # noqa: F401
