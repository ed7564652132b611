"""``jax.extend.mlir.dialects.mpmd``: jaxlib's bindings of the ``mpmd`` dialect."""
from xjax.extend.mlir import _public_names

globals().update(_public_names("dialects.mpmd"))
