"""``jax.extend.backend``: the runtime's clients."""
from typing import Callable as _Callable

from xjax._src.backend import clients as _clients, executables as _executables
from xjax._src.backend import jaxlib_api as _jaxlib_api


def get_backend(platform=None):
  """The PJRT client for ``platform`` (default: the highest-priority one available)."""
  return _clients.backend(platform)


def backends() -> dict:
  """The initialized clients by platform name."""
  get_backend()
  return dict(_clients._backends)


def get_default_device():
  return _clients.default_device()


def clear_backends(_crash: bool = False) -> None:
  """Forgets every client and what was compiled for it; clients are made again on next use.
  Arrays made before keep working on their old clients' buffers."""
  del _crash  # JAX's testing hook that crashes the process; not offered
  from xjax._src.api import placement
  placement.clear_backends()


def register_backend_cache(cache, for_what: str) -> None:
  """Has ``clear_backends`` clear ``cache`` (an object with ``cache_clear()``, such as an
  ``lru_cache``, or ``clear()``); ``for_what`` names it (unused)."""
  del for_what
  _clients.register_backend_cache(cache)


def clear_in_memory_compilation_cache() -> None:
  """Drops every compiled program held in memory (the persistent cache on disk stays)."""
  from xjax._src.api import placement
  placement.clear_caches()


def backend_xla_version(platform=None):
  """The XLA version a PJRT C-API plugin reports, or None (as JAX for the built-in CPU
  client)."""
  return getattr(get_backend(platform), "xla_version", None)


def register_backend_factory(name: str, factory: _Callable, *, priority: int = 0,
                             fail_quietly: bool = True, experimental: bool = False,
                             make_topology: _Callable | None = None, c_api=None) -> None:
  """Adds the backend ``name``, whose client ``factory()`` makes: it starts with the
  others (the default backend is the one of highest ``priority``), or on first use when
  they have started (``xjax.devices(name)``).  RuntimeError if ``name`` has started."""
  del experimental, make_topology, c_api   # (topologies and C-API plugin handles)
  _clients.register_backend_factory(name, factory, priority=priority,
                                    fail_quietly=fail_quietly)


def get_compile_options(num_replicas: int, num_partitions: int, device_assignment=None,
                        env_options_overrides: dict | None = None,
                        fdo_profile: bytes | None = None, detailed_logging: bool = True,
                        backend=None):
  """XLA's ``CompileOptions`` for ``num_replicas`` x ``num_partitions`` (with SPMD
  partitioning); ``device_assignment`` (an array of devices or ids) must have that shape
  (a vector when ``num_partitions`` is 1)."""
  del detailed_logging, backend
  return _executables.compile_options(num_replicas, num_partitions, device_assignment,
                                  env_options_overrides, fdo_profile)


def __getattr__(name):
  if name == "ifrt_proxy":   # jaxlib's IFRT proxy client module, loaded when asked for
    return _jaxlib_api.jaxlib_module("_ifrt_proxy")
  raise AttributeError(f"module 'xjax.extend.backend' has no attribute '{name}'")


def __dir__():
  return sorted([*globals(), "ifrt_proxy"])
