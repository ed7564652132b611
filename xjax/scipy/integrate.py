"""Integration (``jax.scipy.integrate``)."""
from xjax._src.numpy.lax_numpy import trapezoid  # noqa: F401
