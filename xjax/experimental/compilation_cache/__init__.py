"""``jax.experimental.compilation_cache``: the older entry point of the persistent
compilation cache (``compilation_cache.set_cache_dir``)."""
from xjax.experimental.compilation_cache import compilation_cache  # noqa: F401
