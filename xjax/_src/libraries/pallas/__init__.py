"""Pallas (``jax.experimental.pallas``) in interpret mode: kernels written on refs, run over
a grid by evaluating them with xjax's own primitives (``pallas_call.py``), the block and
grid descriptions they are called with (``specs.py``), the grid queries and control inside
kernels (``grid.py``) and Triton's masked loads, stores and atomics (``triton.py``)."""
