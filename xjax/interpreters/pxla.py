"""``jax.interpreters.pxla``: nothing of it is public in xjax yet (see docs/differences.md)."""
