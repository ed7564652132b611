"""``jax.extend.mlir.dialects.func``: jaxlib's bindings of the ``func`` dialect."""
from xjax.extend.mlir import _public_names

globals().update(_public_names("dialects.func"))
