"""``jax.extend.backend``: the runtime's clients."""
from xjax._src.backend import runtime as _runtime


def get_backend(platform=None):
  """The PJRT client for ``platform`` (default: the highest-priority one available)."""
  return _runtime.backend(platform)


def backends() -> dict:
  """The initialized clients by platform name."""
  get_backend()
  return dict(_runtime._backends)


def get_default_device():
  return _runtime.default_device()


def clear_backends(_crash: bool = False) -> None:
  """Forgets every client and what was compiled for it; clients are made again on next use.
  Arrays made before keep working on their old clients' buffers."""
  del _crash  # JAX's testing hook that crashes the process; not offered
  from xjax._src import placement
  placement.clear_backends()


def register_backend_cache(cache, for_what: str) -> None:
  """Has ``clear_backends`` clear ``cache`` (an object with ``cache_clear()``, such as an
  ``lru_cache``, or ``clear()``); ``for_what`` names it (unused)."""
  del for_what
  _runtime.register_backend_cache(cache)


def clear_in_memory_compilation_cache() -> None:
  """Drops every compiled program held in memory (the persistent cache on disk stays)."""
  from xjax._src import placement
  placement.clear_caches()


def backend_xla_version(platform=None):
  """The XLA version a PJRT C-API plugin reports, or None (as JAX for the built-in CPU
  client)."""
  return getattr(get_backend(platform), "xla_version", None)
