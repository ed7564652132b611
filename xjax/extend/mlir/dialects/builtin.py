"""``jax.extend.mlir.dialects.builtin``: jaxlib's bindings of the ``builtin`` dialect."""
from xjax.extend.mlir import _public_names

globals().update(_public_names("dialects.builtin"))
