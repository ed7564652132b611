"""Spatial algorithms (``jax.scipy.spatial``)."""
from xjax.scipy.spatial import transform  # noqa: F401
