"""`jax._src.nn`: JAX's neural-network package; its `functions` module is here."""
