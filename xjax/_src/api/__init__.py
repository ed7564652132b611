"""Transformations: jit, grad/vjp/jvp, vmap, placement, checkify, pmap, export and the extension
API's call machinery."""
