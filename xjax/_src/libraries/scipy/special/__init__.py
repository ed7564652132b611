"""``jax.scipy.special`` implementations, split by family of functions."""
