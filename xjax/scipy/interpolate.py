"""Interpolation (``jax.scipy.interpolate``)."""
from xjax._src.libraries.scipy.interpolate import RegularGridInterpolator  # noqa: F401
