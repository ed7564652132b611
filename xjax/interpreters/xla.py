"""``jax.interpreters.xla``: eager evaluation of one primitive, and the table of how host
values of each type take their canonical dtype (``canonicalize_dtype_handlers``)."""
from xjax._src.dispatch import apply_primitive, canonicalize_dtype_handlers  # noqa: F401
