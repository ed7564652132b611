"""Vector quantization (``jax.scipy.cluster.vq``)."""
from xjax._src.scipy.cluster import vq  # noqa: F401
