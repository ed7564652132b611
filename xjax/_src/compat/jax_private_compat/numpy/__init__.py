"""`jax._src.numpy`: JAX's numpy implementation package; only its `ufuncs` module is here."""
