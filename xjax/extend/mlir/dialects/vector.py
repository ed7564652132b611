"""``jax.extend.mlir.dialects.vector``: jaxlib's bindings of the ``vector`` dialect."""
from xjax.extend.mlir import _public_names

globals().update(_public_names("dialects.vector"))
