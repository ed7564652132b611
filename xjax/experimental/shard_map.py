"""``jax.experimental.shard_map``: the older home of ``shard_map``."""
from xjax._src.primitives.lax.shard_map import shard_map  # noqa: F401
