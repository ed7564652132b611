"""The PJRT clients, one per platform, made on first use (joined to the distributed runtime
when one is connected, started with the registered XLA passes), and their devices and
processes; the caches of runtime objects that ``clear_backends`` empties."""
from __future__ import annotations

import logging
import os
import threading
from functools import lru_cache
from typing import Callable

from xjax._src.foundations.config import config
from xjax._src.backend.jaxlib_api import jaxlib_ext as _jax, xc as _xc
from xjax._src.backend.jaxlib_api import Device, jaxlib_module

logger = logging.getLogger("xjax")

# Guards making clients; also taken to parse MLIR modules, register LAPACK kernels and
# record sharding inspections.
lock = threading.Lock()
_backends: dict[str, object] = {}
_default_platform: list[str] = []

_PLATFORM_ALIASES = {"gpu": "cuda", "cuda": "cuda", "rocm": "rocm", "cpu": "cpu", "tpu": "tpu"}


def _num_cpu_devices() -> int:
  n = config._read("jax_num_cpu_devices")
  if n is not None and n > 0:
    return n
  flags = os.environ.get("XLA_FLAGS", "")
  for flag in flags.split():
    if flag.startswith("--xla_force_host_platform_device_count="):
      return int(flag.split("=", 1)[1])
  return 1


def _make_cpu():
  client = _distributed.get("client")
  if client is None:
    return _xc.make_cpu_client(asynchronous=True, num_devices=_num_cpu_devices())
  return _xc.make_cpu_client(
      asynchronous=True, num_devices=_num_cpu_devices(), distributed_client=client,
      node_id=_distributed["process_id"], num_nodes=_distributed["num_processes"],
      collectives=_jax.make_gloo_tcp_collectives(distributed_client=client))


# ---------------------------------------------------------------------------------------
# The distributed runtime: process 0 runs the coordination service; every process connects
# a client to it, and the CPU client made afterwards sees every process's devices and runs
# collectives between processes with gloo over TCP.

_distributed: dict = {}


def backends_initialized() -> bool:
  return bool(_default_platform)


def _peer_error(*status) -> None:
  """Replaces the runtime's default reaction to a dead peer (terminating the process)."""
  logger.error("xjax.distributed: the coordination service reported an error: %s", status)


def connect_distributed(address: str, bind_address: str, num_processes: int, process_id: int,
                        timeout: int, heartbeat_timeout: int, shutdown_timeout: int,
                        preemption_service: bool = False) -> None:
  """Joins the run coordinated at ``address`` (starting its service in process 0); raises
  TimeoutError when the processes have not all joined within ``timeout`` seconds.  With
  ``preemption_service`` a preemption notice (SIGTERM) to any process starts the protocol
  that agrees on a step at which all can save (``reached_preemption_sync_point``)."""
  service = None
  if process_id == 0:
    service = _jax.get_distributed_runtime_service(
        bind_address, num_processes, heartbeat_timeout=heartbeat_timeout,
        shutdown_timeout=shutdown_timeout)
  client = _jax.get_distributed_runtime_client(
      address, process_id, init_timeout=timeout, heartbeat_timeout=heartbeat_timeout,
      shutdown_timeout=shutdown_timeout, missed_heartbeat_callback=_peer_error,
      shutdown_on_destruction=False)
  try:
    client.connect()
  except Exception as e:
    if service is not None:
      service.shutdown()
    raise TimeoutError(
        f"xjax.distributed.initialize: process {process_id} of {num_processes} could not join "
        f"the run coordinated at {address} within initialization_timeout={timeout}s ({e}). "
        f"Check that process 0 runs and listens on {address}, and that all {num_processes} "
        f"processes start.") from None
  preemption = None
  if preemption_service:
    preemption = _jax.create_preemption_sync_manager()
    preemption.initialize(client)
  _distributed.update(service=service, client=client, process_id=process_id,
                      num_processes=num_processes, address=address, preemption=preemption)


def disconnect_distributed() -> None:
  """Leaves the distributed run (waiting for the other processes to leave too)."""
  client, service = _distributed.pop("client", None), _distributed.pop("service", None)
  preemption = _distributed.pop("preemption", None)
  _distributed.clear()
  if preemption is not None:  # it uses the client: it goes first
    preemption.shutdown()
  if client is not None:
    client.shutdown()
  if service is not None:
    service.shutdown()


def distributed_connected() -> bool:
  return "client" in _distributed


def live_processes(process_ids) -> dict:
  """The listed processes that the coordination service sees alive, each with its
  incarnation (which changes when a process restarts)."""
  return _distributed["client"].get_live_nodes(list(process_ids))


def reached_preemption_sync_point(step_id: int) -> bool:
  """Whether every process has reached the step agreed on after a preemption notice
  (False alone, or before any notice)."""
  if "client" not in _distributed:
    return False
  if _distributed["preemption"] is None:
    raise RuntimeError("Preemption sync manager has not been initialized. Make sure the "
                       "'jax_enable_preemption_service' config is enabled.")
  return _distributed["preemption"].reached_sync_point(step_id)


def _make_gpu():
  """A CUDA client through the jax_cuda*_plugin PJRT plugin, when one is installed."""
  import importlib
  for mod_name in ("jax_cuda13_plugin", "jax_cuda12_plugin"):
    try:
      plugin = importlib.import_module(mod_name)
    except ImportError:
      continue
    path = os.path.join(os.path.dirname(plugin.__file__), "xla_cuda_plugin.so")
    if not os.path.exists(path):
      path = getattr(plugin, "_get_library_path", lambda: path)()
    if not _xc.pjrt_plugin_loaded("cuda"):
      _xc.load_pjrt_plugin_dynamically("cuda", path)
    if not _xc.pjrt_plugin_initialized("cuda"):
      _xc.initialize_pjrt_plugin("cuda")
    options = {}
    if hasattr(_xc, "generate_pjrt_gpu_plugin_options"):
      options = _xc.generate_pjrt_gpu_plugin_options()
    return _xc.make_c_api_client("cuda", options, None)
  raise RuntimeError("no CUDA PJRT plugin (jax-cuda12-plugin or jax-cuda13-plugin) is installed")


_FACTORIES = {"cpu": _make_cpu, "cuda": _make_gpu}
# The default backend is the initialized one of highest priority (the first registered
# among equals); backends of factories registered with fail_quietly=False must start.
_PRIORITIES = {"cpu": 0, "cuda": 500}
_MUST_START: set = set()


def register_backend_factory(name: str, factory: Callable, *, priority: int = 0,
                             fail_quietly: bool = True) -> None:
  """Makes ``factory()`` (returning a PJRT client) the backend called ``name``: started
  with the others, or on first use once they are (``devices(name)``)."""
  with lock:
    if name in _backends:
      raise RuntimeError(f"Backend {name} already initialized")
    _FACTORIES[name] = factory
    _PRIORITIES[name] = priority
    _PLATFORM_ALIASES.setdefault(name, name)
    (_MUST_START.discard if fail_quietly else _MUST_START.add)(name)


def _requested_platforms() -> list[str]:
  requested = config._read("jax_platforms") or config._read("jax_platform_name")
  if not requested:
    return []
  out = []
  for name in str(requested).split(","):
    name = name.strip().lower()
    if not name:
      continue
    if name not in _PLATFORM_ALIASES:
      raise RuntimeError(f"Unknown backend '{name}' in jax_platforms; "
                         f"known platforms are cpu, cuda (gpu), rocm, tpu.")
    out.append(_PLATFORM_ALIASES[name])
  return out


def _initialize() -> None:
  if _default_platform:
    return
  requested = _requested_platforms()
  errors = []
  order = requested or sorted(_FACTORIES, key=lambda n: -_PRIORITIES.get(n, 0))
  for name in order:
    factory = _FACTORIES.get(name)
    if factory is None:
      errors.append(f"{name}: not supported by xjax")
      continue
    try:
      _backends[name] = _started(name, factory())
    except Exception as e:  # an absent plugin is normal; report only if nothing works
      errors.append(f"{name}: {e}")
      if requested or name in _MUST_START:
        raise RuntimeError(f"Unable to initialize backend '{name}': {e}") from e
  if not _backends:
    raise RuntimeError("Unable to initialize any XLA backend: " + "; ".join(errors))
  _default_platform.append(next(p for p in order if p in _backends))
  _count_devices()


# Caches holding runtime objects (buffers, executables, shardings) made by the current
# clients: clear_backends empties them before forgetting the clients.
_backend_caches: list = []


def register_backend_cache(cache) -> None:
  """Has ``clear_backends`` empty ``cache``: an object with ``cache_clear()`` (such as an
  ``lru_cache``) or ``clear()`` (a dict, a WeakLRU), or a function that empties one."""
  _backend_caches.append(cache)


def clear_backends() -> None:
  """Empties every registered backend cache and forgets the clients; the next use makes
  them again (Arrays made before keep their buffers on the old clients)."""
  global several_devices
  with lock:
    for cache in _backend_caches:
      for method in ("cache_clear", "clear", "__call__"):
        if hasattr(cache, method):
          getattr(cache, method)()
          break
    _backends.clear()
    _default_platform.clear()
    several_devices = False


# True once the initialized backends hold more than one device.  Dispatch reads it to skip
# every placement check in the common single-device case.
several_devices = False


def _count_devices() -> None:
  global several_devices
  several_devices = sum(len(c.devices()) for c in _backends.values()) > 1


def backend(platform: str | None = None):
  """The PJRT client for ``platform`` (default: the highest-priority one available)."""
  if not _default_platform:
    with lock:
      _initialize()
  if platform is None:
    return _backends[_default_platform[0]]
  name = _PLATFORM_ALIASES.get(platform.lower(), platform.lower())
  if name in _backends:
    return _backends[name]
  error = None
  if name in _FACTORIES and not _requested_platforms():
    try:
      with lock:
        _backends[name] = _started(name, _FACTORIES[name]())
        _count_devices()
      return _backends[name]
    except Exception as e:
      error = e
  if platform.lower() == "gpu":   # an alias: none of the platforms it stands for is here
    raise RuntimeError(
        f"Unknown backend: '{platform}' requested, but no platforms that are instances of "
        f"{platform} are present. Platforms present are: " + ",".join(_backends)) from error
  if error is not None:
    raise RuntimeError(f"Backend '{platform}' failed to initialize: {error}") from error
  raise RuntimeError(f"Unknown backend {platform}. Available backends are {list(_backends)}")


_backend_of = backend   # for functions whose `backend` parameter (JAX's name) hides it


def default_backend() -> str:
  platform = backend().platform
  return "gpu" if platform in ("cuda", "rocm") else platform


def devices(backend: str | None = None) -> list:
  return list(_backend_of(backend).devices())


def local_devices(process_index: int | None = None, backend: str | None = None,
                  host_id: int | None = None) -> list:
  """The devices of process ``process_index`` (default: this one) on ``backend``."""
  index = process_index if process_index is not None else host_id
  client = _backend_of(backend)
  if index is None:
    return list(client.local_devices())
  count = process_count(backend)
  if not 0 <= index < count:
    raise ValueError(f"local_devices: process_index {index} is out of range: there are "
                     f"{count} process(es)")
  return [d for d in client.devices() if d.process_index == index]


def process_index(backend: str | None = None) -> int:
  """This process's index among the processes of a distributed run (0 alone)."""
  return _backend_of(backend).process_index()


def process_indices(backend: str | None = None) -> list:
  """The indices of every process whose devices ``backend`` sees."""
  return sorted({d.process_index for d in _backend_of(backend).devices()})


def process_count(backend: str | None = None) -> int:
  return len(process_indices(backend))


@lru_cache(maxsize=None)
def default_device():
  """Where uncommitted data goes: ``jax_default_device`` (a device or a platform name) if
  set, else this process's first device of the default backend."""
  chosen = config._read("jax_default_device")
  if chosen is None:
    return backend().local_devices()[0]
  if isinstance(chosen, str):
    return backend(chosen).local_devices()[0]
  return chosen


def owns_device(device) -> bool:
  """Whether ``device`` belongs to one of the current clients."""
  return any(device in client.devices() for client in _backends.values())


def _check_default_device(value) -> None:
  """None, a Device, or one of the platform names JAX accepts here ('cpu', 'gpu', 'tpu')."""
  if value is not None and not isinstance(value, Device) and value not in ("cpu", "gpu", "tpu"):
    raise ValueError("jax.default_device must be passed either a Device object (e.g. "
                     "`jax.devices('cpu')[0]`) or a platform name string like 'cpu' or 'gpu', "
                     f"got: {value!r}")


config.add_validator("jax_default_device", _check_default_device)
config.on_change("jax_default_device", lambda _: default_device.cache_clear())
register_backend_cache(default_device)


def live_buffers(platform: str | None = None) -> list:
  """The runtime's live device buffers on ``platform``'s backend."""
  return backend(platform).live_arrays()




# HLO module transformations (``jax.extend.xla``): passes run inside XLA's pipeline.
# (name, stage) -> (callback, platforms) of the registered passes: while there are any,
# programs are compiled (the persistent cache holds programs compiled without them).
xla_transforms: dict = {}


def _started(platform: str, client):
  """A newly made client, with the passes registered for plugin platforms."""
  if platform != "cpu":
    for (name, stage), (callback, platforms) in xla_transforms.items():
      if platform in platforms:
        _register_on_client(platform, client, name, stage, callback)
  return client


def _register_on_client(platform: str, client, name: str, stage: int, callback) -> None:
  try:
    jaxlib_module("_xla").register_xla_transform_c_api(client, name, stage, callback)
  except RuntimeError:
    logger.debug("no XLA transform through the PJRT C API on %s", platform)


def _known_platforms() -> list:
  return ["cpu", *(p for p in _FACTORIES if p != "cpu")]


def register_xla_transform(name: str, stage: int, callback: Callable, platforms) -> None:
  """Has XLA run ``callback(serialized HloModuleProto) -> bytes | None`` at pipeline stage
  ``stage`` when it compiles for ``platforms`` (in-process CPU, or plugin clients; None:
  every known platform)."""
  platforms = _known_platforms() if platforms is None else platforms
  xla_transforms[(name, stage)] = (callback, list(platforms))
  if "cpu" in platforms:
    jaxlib_module("_xla").register_xla_transform(name, stage, callback)
  for platform, client in list(_backends.items()):
    if platform != "cpu" and platform in platforms:
      _register_on_client(platform, client, name, stage, callback)


def clear_xla_transform(name: str, stage: int, platforms) -> bool:
  platforms = _known_platforms() if platforms is None else platforms
  xla = jaxlib_module("_xla")
  cleared = bool(xla.clear_xla_transform(name, stage)) if "cpu" in platforms else False
  for platform, client in list(_backends.items()):
    if platform != "cpu" and platform in platforms:
      try:
        cleared |= bool(xla.clear_xla_transform_c_api(client, name, stage))
      except (RuntimeError, ValueError):
        pass
  xla_transforms.pop((name, stage), None)
  return cleared
