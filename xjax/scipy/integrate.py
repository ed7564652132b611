"""Integration (``jax.scipy.integrate``)."""
from xjax._src.libraries.numpy.namespace import trapezoid  # noqa: F401
