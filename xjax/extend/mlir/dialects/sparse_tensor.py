"""``jax.extend.mlir.dialects.sparse_tensor``: jaxlib's bindings of the ``sparse_tensor`` dialect."""
from xjax.extend.mlir import _public_names

globals().update(_public_names("dialects.sparse_tensor"))
