"""Interpolation (``jax.scipy.interpolate``)."""
from xjax._src.scipy.interpolate import RegularGridInterpolator  # noqa: F401
