"""JAX's TPU Pallas kernels: xjax provides ``splash_attention`` (computed densely)."""
