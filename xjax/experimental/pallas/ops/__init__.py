"""JAX's Pallas kernels (``jax.experimental.pallas.ops``): xjax provides splash attention
(``tpu.splash_attention``), computed densely; see docs/differences.md for the others."""
