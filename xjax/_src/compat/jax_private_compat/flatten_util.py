"""`jax._src.flatten_util`: flattening a pytree of arrays into one vector (blackjax)."""
from xjax._src.libraries.flatten_util import ravel_pytree  # noqa: F401
from xjax._src.compat.jax_private_compat import missing


def __getattr__(name: str):
  raise missing("jax._src.flatten_util", name)
