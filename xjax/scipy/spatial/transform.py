"""Rotations and their interpolation (``jax.scipy.spatial.transform``)."""
from xjax._src.libraries.scipy.rotations import Rotation, Slerp  # noqa: F401
