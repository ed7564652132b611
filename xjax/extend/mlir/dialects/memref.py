"""``jax.extend.mlir.dialects.memref``: jaxlib's bindings of the ``memref`` dialect."""
from xjax.extend.mlir import _public_names

globals().update(_public_names("dialects.memref"))
