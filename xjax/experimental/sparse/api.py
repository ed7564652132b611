"""``jax.experimental.sparse.api``: format-independent functions."""
from xjax._src.libraries.sparse.api import empty, eye, todense, todense_p  # noqa: F401
