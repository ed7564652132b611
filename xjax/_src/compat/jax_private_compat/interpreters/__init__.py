"""`jax._src.interpreters`: JAX's interpreter package; its `batching`, `partial_eval` and
`pxla` modules are here."""
