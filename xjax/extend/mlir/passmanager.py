"""``jax.extend.mlir.passmanager``: jaxlib's MLIR pass manager bindings."""
from xjax.extend.mlir import _public_names

globals().update(_public_names("passmanager"))
