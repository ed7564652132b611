"""`jax._src.lax`: JAX's lax implementation package; only its `lax` module is here."""
