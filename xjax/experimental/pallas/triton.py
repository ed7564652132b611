"""Triton-specific Pallas operations (``jax.experimental.pallas.triton``), as interpret
mode runs them."""
from xjax._src.libraries.pallas.triton import (  # noqa: F401
    CompilerParams, approx_tanh, atomic_add, atomic_and, atomic_cas, atomic_max, atomic_min,
    atomic_or, atomic_xchg, atomic_xor, debug_barrier, dot, elementwise_inline_asm, load,
    max_contiguous, store)
