"""`jax._src.state.types`: the type of mutable array references and their effect."""
from xjax._src.compat.jax_private_compat import missing
from xjax._src.primitives.state.types import AbstractRef, RefEffect  # noqa: F401


def __getattr__(name: str):
  raise missing("jax._src.state.types", name)
