"""Arrays checkpointed to TensorStore (``jax.experimental.array_serialization``): the
``serialization`` and ``tensorstore_impl`` submodules. They need the optional `tensorstore`
package (an ImportError names it on first use where it is missing)."""
