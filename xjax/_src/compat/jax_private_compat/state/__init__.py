"""`jax._src.state`: the type of mutable array references (flax nnx checks values against
it)."""
from xjax._src.compat.jax_private_compat import missing
from xjax._src.primitives.state.types import AbstractRef  # noqa: F401


def __getattr__(name: str):
  raise missing("jax._src.state", name)
