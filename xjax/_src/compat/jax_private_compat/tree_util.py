"""`jax._src.tree_util`: the live table of pytree node types (flax nnx asks whether a type is a
registered node with ``type(x) in _registry``)."""
from xjax._src.compat.jax_private_compat import missing
from xjax._src.foundations.tree_util import _registry  # noqa: F401


def __getattr__(name: str):
  raise missing("jax._src.tree_util", name)
