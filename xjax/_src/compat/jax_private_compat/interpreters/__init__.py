"""`jax._src.interpreters`: JAX's interpreter package; its `batching` and `pxla` modules are here."""
