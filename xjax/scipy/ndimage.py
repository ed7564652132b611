"""N-d image sampling (``jax.scipy.ndimage``)."""
from xjax._src.scipy.ndimage import map_coordinates  # noqa: F401
