"""`jax._src.named_sharding`: `NamedSharding`, and `DuplicateSpecError`, the class of the
error a spec naming one mesh axis twice raises (libraries catch it by name)."""
from xjax._src.foundations.sharding import DuplicateSpecError, NamedSharding  # noqa: F401
from xjax._src.compat.jax_private_compat import missing


def __getattr__(name: str):
  raise missing("jax._src.named_sharding", name)
