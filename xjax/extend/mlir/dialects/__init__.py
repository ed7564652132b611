"""``jax.extend.mlir.dialects``: jaxlib's MLIR dialect bindings, one submodule each."""
