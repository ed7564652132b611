"""The public ``xjax.Array`` type (``jnp.ndarray``): an abstract base for isinstance checks.

Concrete arrays (``xjax._src.execution.array.Array``) and tracers standing in for them are both
instances, as in JAX, so ``isinstance(x, jax.Array)`` is true inside jit-traced code too.
"""
from __future__ import annotations

import abc

from xjax._src.execution.array import Array as ArrayImpl
from xjax._src.core.trace import Tracer


class Array(abc.ABC):
  """The type of xjax arrays: an immutable n-dimensional array (or a tracer for one).
  Its methods and properties (``PUBLIC_ATTRIBUTES``, installed with the concrete ones by
  xjax.numpy) can be read from the class, as from JAX's (``getattr(jax.Array, "sum")``)."""
  __slots__ = ()


# JAX 0.10.2's ``dir(jax.Array)``, less the dunder names.
PUBLIC_ATTRIBUTES = (
    "T", "addressable_data", "addressable_shards", "all", "any", "argmax", "argmin",
    "argpartition", "argsort", "astype", "at", "byteswap", "choose", "clip", "committed",
    "compress", "conj", "conjugate", "copy", "copy_to_host_async", "cumprod", "cumsum",
    "device", "diagonal", "dot", "dtype", "flat", "flatten", "global_shards", "imag",
    "is_fully_addressable", "is_fully_replicated", "item", "itemsize", "mT", "max", "mean",
    "min", "nbytes", "ndim", "nonzero", "prod", "ptp", "ravel", "real", "repeat", "reshape",
    "round", "searchsorted", "shape", "sharding", "size", "sort", "squeeze", "std", "sum",
    "swapaxes", "take", "to_device", "trace", "transpose", "var", "view")


Array.register(ArrayImpl)
Array.register(Tracer)
