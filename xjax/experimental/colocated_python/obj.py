"""``jax.experimental.colocated_python.obj``: colocated Python classes."""
from xjax._src.libraries.colocated_python import wrap_class  # noqa: F401
