"""Turning possibly-traced values into concrete Python values, with JAX's errors."""
from __future__ import annotations

import numpy as np

from xjax._src import errors
from xjax._src.core.trace import Tracer, _describe_tracer


def concrete_or_error(x, what: str):
  """``x`` as a concrete value; ConcretizationTypeError naming ``what`` if it is traced."""
  if isinstance(x, Tracer):
    value = x.to_concrete_value()
    if value is None:
      raise errors.ConcretizationTypeError(
          x, f"The problem arose with the {what} argument, which must be static.\n"
          + _describe_tracer(x))
    return value.item() if np.ndim(value) == 0 else value
  if hasattr(x, "_value") and np.ndim(x) == 0:
    return np.asarray(x).item()
  return x
