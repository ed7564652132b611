"""``jax.extend.mlir.dialects.arith``: jaxlib's bindings of the ``arith`` dialect."""
from xjax.extend.mlir import _public_names

globals().update(_public_names("dialects.arith"))
