"""Vector quantization (``jax.scipy.cluster.vq``)."""
from xjax._src.libraries.scipy.cluster import vq  # noqa: F401
