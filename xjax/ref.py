"""Mutable array references (``jax.ref``): ``new_ref(x)`` makes one, ``ref[idx]`` reads it,
``ref[idx] = v`` writes it, eagerly and inside jit, grad, vmap and control flow."""
from xjax._src.primitives.state.primitives import (empty_ref, free_ref, freeze,  # noqa: F401
                                                   new_ref, ref_addupdate as addupdate,
                                                   ref_get as get, ref_set as set, ref_swap as swap)
from xjax._src.primitives.state.types import AbstractRef, Ref  # noqa: F401
