"""``jax.extend.mlir.ir``: jaxlib's MLIR IR bindings (``from jaxlib.mlir.ir import *``)."""
from xjax.extend.mlir import _public_names

globals().update(_public_names("ir"))
