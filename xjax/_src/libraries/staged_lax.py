"""The ``lax`` conveniences JAX implements as jitted functions (``dynamic_index_in_dim``,
``dynamic_update_index_in_dim``): traced, they are a nested ``jit`` call of that name, as
JAX's jaxprs show them; eagerly, one compiled program per signature."""
from __future__ import annotations

from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax import shapes

dynamic_index_in_dim = compiled_when_eager(
    shapes.dynamic_index_in_dim, static_argnames=("axis", "keepdims", "allow_negative_indices"),
    staged="dynamic_index_in_dim")
dynamic_update_index_in_dim = compiled_when_eager(
    shapes.dynamic_update_index_in_dim, static_argnames=("axis", "allow_negative_indices"),
    staged="dynamic_update_index_in_dim")
