"""`jax._src.scipy`: JAX's scipy implementation package; only its `special` module is here."""
