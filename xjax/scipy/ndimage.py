"""N-d image sampling (``jax.scipy.ndimage``)."""
from xjax._src.libraries.scipy.ndimage import map_coordinates  # noqa: F401
