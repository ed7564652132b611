"""``jax.experimental.compilation_cache.compilation_cache``: choose where the persistent
compilation cache (``xjax/_src/backend/compilation_cache.py``) keeps executables."""
from xjax._src.backend import compilation_cache as _cache
from xjax._src.foundations.config import config as _config

__all__ = ["reset_cache", "set_cache_dir"]


def set_cache_dir(path) -> None:
  """Keeps compiled executables in ``path`` (sets ``jax_compilation_cache_dir``), so later
  processes load them instead of compiling.  The cache is trusted: do not share the
  directory with users you do not trust."""
  _config.update("jax_compilation_cache_dir", path)


def reset_cache() -> None:
  """Returns the cache's in-memory state to that of a fresh process."""
  _cache.reset()
