"""Clustering (``jax.scipy.cluster``)."""
from xjax.scipy.cluster import vq  # noqa: F401
