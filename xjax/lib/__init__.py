"""``jax.lib``: empty, as in JAX 0.10.2 (``jax.lib.xla_bridge`` and ``xla_client`` are gone;
use ``jax.devices()``, ``jax.default_backend()`` and ``jax.extend.backend``)."""
