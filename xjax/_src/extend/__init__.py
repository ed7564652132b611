"""JAX's extension API bridged onto xjax's layers: lowering rules written against
``jax.interpreters.mlir``, the rule registries of ``jax.interpreters``, ``jax.extend``'s
call primitive and ``linear_util``, ``jax.api_util`` and ``jax.ffi``."""
