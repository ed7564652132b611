"""``jax.extend.mlir.dialects.sdy``: jaxlib's bindings of the ``sdy`` dialect."""
from xjax.extend.mlir import _public_names

globals().update(_public_names("dialects.sdy"))
