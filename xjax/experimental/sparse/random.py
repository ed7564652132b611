"""``jax.experimental.sparse.random``: random sparse arrays."""
from xjax._src.libraries.sparse.random import random_bcoo  # noqa: F401
