"""The few arrays the interpreters build for themselves: zeros and sums of tangents (AD),
axis moves and broadcasts of batched values (batching).

They are made by lax primitives, and lax sits above the interpreters in the layer order,
so lax installs its functions here when it is imported (the end of ``lax/shapes.py`` and
``lax/elementwise.py``); no interpreter imports lax.
"""
from __future__ import annotations

from typing import Callable

full: Callable                  # full(shape, fill_value, dtype)
convert_element_type: Callable  # convert_element_type(x, dtype, weak_type)
retype_tangent: Callable        # retype_tangent(t, weak_type): a jit's retyping of a tangent
add_any: Callable               # add_any(a, b): the sum of two tangents
transpose: Callable             # transpose(x, permutation)
broadcast_in_dim: Callable      # broadcast_in_dim(x, shape, broadcast_dimensions, out_sharding)
reduce_sum: Callable            # reduce_sum(x, axes): a batched cotangent summed
pvary: Callable                 # pvary(x, axes): x cast to vary over manual mesh axes
