"""``jax.extend.mlir.dialects.math``: jaxlib's bindings of the ``math`` dialect."""
from xjax.extend.mlir import _public_names

globals().update(_public_names("dialects.math"))
