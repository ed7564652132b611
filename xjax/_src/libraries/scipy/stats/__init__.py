"""``jax.scipy.stats`` implementations: one module per distribution, plus summaries."""
