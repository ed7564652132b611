"""`jax._src.lax`: JAX's lax implementation package; its `lax` and `control_flow` modules are
here."""
