"""Sizes used as values: a dimension (a constant or a symbolic one) as a scalar array."""
from __future__ import annotations

import numpy as np

from xjax._src.core.dim_expr import is_symbolic_dim
from xjax._src.primitives.lax.elementwise import convert_element_type


def dimension_constant(n, dtype):
  """A size as a scalar of ``dtype``: a constant, or a symbolic dimension's value (its
  ``dim_as_value`` converted)."""
  if is_symbolic_dim(n):
    return convert_element_type(n.dimension_as_value(), dtype, False)
  return np.asarray(n, dtype)[()]
