"""`jax._src.interpreters`: JAX's interpreter package; its `pxla` module is here."""
