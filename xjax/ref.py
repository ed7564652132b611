"""Mutable array references (``jax.ref``): ``new_ref(x)`` makes one, ``ref[idx]`` reads it,
``ref[idx] = v`` writes it, eagerly and inside jit, grad, vmap and control flow."""
from xjax._src.state.primitives import (empty_ref, free_ref, freeze, new_ref,  # noqa: F401
                                        ref_addupdate as addupdate, ref_get as get,
                                        ref_set as set, ref_swap as swap)
from xjax._src.state.types import AbstractRef, Ref  # noqa: F401
