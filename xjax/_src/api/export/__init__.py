"""``jax.export``: jitted functions as self-contained, serializable StableHLO programs."""
