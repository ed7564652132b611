"""``jax.extend.mlir.dialects.chlo``: jaxlib's bindings of the ``chlo`` dialect."""
from xjax.extend.mlir import _public_names

globals().update(_public_names("dialects.chlo"))
