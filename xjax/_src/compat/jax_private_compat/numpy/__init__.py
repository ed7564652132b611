"""`jax._src.numpy`: JAX's numpy implementation package; its `ufuncs` and `util` modules are here."""
