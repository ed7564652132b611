"""The public ``xjax.Array`` type (``jnp.ndarray``): an abstract base for isinstance checks.

Concrete arrays (``xjax._src.execution.array.Array``) and tracers standing in for them are both
instances, as in JAX, so ``isinstance(x, jax.Array)`` is true inside jit-traced code too.
"""
from __future__ import annotations

import abc

from xjax._src.execution.array import Array as ArrayImpl
from xjax._src.core.trace import Tracer


class Array(abc.ABC):
  """The type of xjax arrays: an immutable n-dimensional array (or a tracer for one)."""
  __slots__ = ()


Array.register(ArrayImpl)
Array.register(Tracer)
