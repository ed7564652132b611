"""``jax.scipy.sparse`` implementations."""
