"""Transformations: jit, grad/vjp/jvp, vmap, placement, checkify, pmap and export."""
