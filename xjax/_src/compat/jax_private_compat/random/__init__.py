"""`jax._src.random`: JAX's random package: its public samplers (those of `jax.random`), its
annotation aliases (`Shape`, `RealArray`, `DTypeLikeFloat`, ... as JAX's, evermore annotates
with them) and its `threefry2x32` module."""
import importlib
from collections.abc import Sequence

from xjax import random as _random
from xjax.typing import ArrayLike, DTypeLike
from xjax._src.compat.jax_private_compat import missing

Shape = Sequence[int]
RealArray = IntegerArray = ArrayLike
DTypeLikeInt = DTypeLikeUInt = DTypeLikeFloat = DTypeLike


def __getattr__(name: str):
  if name == "threefry2x32":
    return importlib.import_module(f"{__name__}.{name}")
  if not name.startswith("_") and hasattr(_random, name):
    return getattr(_random, name)
  raise missing("jax._src.random", name)
