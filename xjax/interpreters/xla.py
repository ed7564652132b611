"""``jax.interpreters.xla``: eager evaluation of one primitive."""
from xjax._src.dispatch import apply_primitive  # noqa: F401
