"""``jax.scipy.optimize`` implementations: quasi-Newton minimizers and their line search."""
