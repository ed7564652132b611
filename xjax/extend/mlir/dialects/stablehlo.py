"""``jax.extend.mlir.dialects.stablehlo``: jaxlib's bindings of the ``stablehlo`` dialect."""
from xjax.extend.mlir import _public_names

globals().update(_public_names("dialects.stablehlo"))
