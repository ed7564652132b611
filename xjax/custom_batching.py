"""Custom vectorization rules (``jax.custom_batching``)."""
from xjax._src.primitives.custom_batching import custom_vmap, sequential_vmap  # noqa: F401
