"""The XLA runtime: the only module that imports jaxlib.

It owns the PJRT clients and exposes what the rest of xjax needs: devices, host<->device
transfer, compiling StableHLO text, and executing.  Everything else (tracing, caching,
dispatch) is xjax's own.  Written to tolerate jaxlib 0.10.x (CPU) and 0.11.x (GPU plugin).
"""
from __future__ import annotations

import contextlib
import enum
import importlib
import logging
import os
import re
import threading
import time
from functools import lru_cache
from typing import Callable, Sequence

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np
import jaxlib
from jaxlib import _jax, xla_client as _xc  # _jax: jaxlib's extension module
from jaxlib import _profile_data as profile_data, _profiler as profiler  # noqa: F401

from xjax._src.backend import compilation_cache
from xjax._src.foundations import dtypes, monitoring
from xjax._src.foundations.config import config
from xjax._src.core.avals import physical_aval

logger = logging.getLogger("xjax")

# What xjax's every program needs of jaxlib's Python API, which is not public and changes
# between releases: checked at import, so that a jaxlib outside the supported range fails
# here, naming what it lacks, rather than later with an AttributeError. Parts used by one
# feature only (plugins, distributed, DLPack, FFI) are looked up where that feature is used.
_REQUIRED_API = (
    (_xc, "xla_client", ("make_cpu_client", "DeviceList", "ArrayImpl", "batched_device_put",
                         "CompileOptions", "HloSharding", "OpSharding", "SingleDeviceSharding",
                         "XlaRuntimeError", "array_result_handler", "_version")),
    (_xc.Client, "Client", ("compile_and_load", "devices", "serialize_executable",
                            "deserialize_executable")),
    (_jax.LoadedExecutable, "LoadedExecutable", ("execute_sharded",)),
    (_jax.ExecuteResults, "ExecuteResults", ("consume_with_handlers",)),
)


def _missing_api() -> list[str]:
  return [f"{where}.{name}" for obj, where, names in _REQUIRED_API for name in names
          if not hasattr(obj, name)]


if _missing_api():
  raise ImportError(
      f"xjax cannot run on jaxlib {jaxlib.__version__}: it lacks {', '.join(_missing_api())}. "
      "xjax supports jaxlib 0.10.2 up to (not including) 0.13; install one of those, e.g. "
      "`pip install 'jaxlib>=0.10.2,<0.13'`.")

# jaxlib records a Python traceback with every execution; xjax reports errors through its
# own frames, and with them each eager call kept ~72 bytes that were never returned.
getattr(_jax, "set_tracebacks_enabled", lambda enabled: None)(False)

Device = _xc.Device
DeviceList = _xc.DeviceList
DeviceBuffer = _xc.ArrayImpl
JAXLIB_VERSION = jaxlib.__version__  # the jaxlib that runs xjax
_JAXLIB_VERSION = f"{jaxlib.__version__}/{_xc._version}"
XlaRuntimeError = _xc.XlaRuntimeError
# jaxlib's class is public as xjax.errors.JaxRuntimeError: name it so in tracebacks (as JAX
# names it jax.errors.JaxRuntimeError).
XlaRuntimeError.__module__ = "xjax.errors"

_lock = threading.Lock()
_backends: dict[str, object] = {}
_default_platform: list[str] = []

_PLATFORM_ALIASES = {"gpu": "cuda", "cuda": "cuda", "rocm": "rocm", "cpu": "cpu", "tpu": "tpu"}


def _num_cpu_devices() -> int:
  n = config.read("jax_num_cpu_devices")
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
  with _lock:
    if name in _backends:
      raise RuntimeError(f"Backend {name} already initialized")
    _FACTORIES[name] = factory
    _PRIORITIES[name] = priority
    _PLATFORM_ALIASES.setdefault(name, name)
    (_MUST_START.discard if fail_quietly else _MUST_START.add)(name)


def _requested_platforms() -> list[str]:
  requested = config.read("jax_platforms") or config.read("jax_platform_name")
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
  with _lock:
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
    with _lock:
      _initialize()
  if platform is None:
    return _backends[_default_platform[0]]
  name = _PLATFORM_ALIASES.get(platform.lower(), platform.lower())
  if name in _backends:
    return _backends[name]
  error = None
  if name in _FACTORIES and not _requested_platforms():
    try:
      with _lock:
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
  chosen = config.read("jax_default_device")
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


# ---------------------------------------------------------------------------------------
# Buffers

class _Placement(_xc.SingleDeviceSharding):
  """The minimal single-device sharding jaxlib needs to create and wrap buffers."""

  def _to_xla_hlo_sharding(self, ndim):
    return _xc.HloSharding.replicate()

  @property
  def _device_assignment(self):
    return (self._device,)

  is_fully_replicated = True
  is_fully_addressable = True
  num_devices = 1

  @property
  def memory_kind(self):
    return None

  def shard_shape(self, shape):
    return shape

  @property
  def device_set(self):
    return {self._device}


_shardings: dict = {}
register_backend_cache(_shardings)


def _placement(device) -> _Placement:
  s = _shardings.get(device)
  if s is None:
    s = _shardings[device] = _Placement(device)
  return s


class _HostAval:
  __slots__ = ("shape", "dtype", "weak_type", "ndim")

  def __init__(self, shape, dtype) -> None:
    self.shape = shape
    self.dtype = dtype
    self.weak_type = False
    self.ndim = len(shape)


def put(value: np.ndarray, device, own: bool = False) -> DeviceBuffer:
  """Copies a host array to ``device`` (asynchronously); float0 values, which hold no
  data, are held as booleans. On a CPU the buffer may alias the array's memory; with
  ``own`` it never does (it can then be donated, and outlives changes to the array)."""
  value = np.asarray(value)
  if value.dtype == dtypes.float0:
    value = np.zeros(value.shape, np.bool_)
  if not value.flags.c_contiguous:
    value = np.ascontiguousarray(value)
  aval = _HostAval(value.shape, value.dtype)
  return _xc.batched_device_put(aval, _placement(device), [value], [device], True, own,
                                enable_x64=True)


def copy_to_device(buf: DeviceBuffer, device) -> DeviceBuffer:
  if buf_device(buf) == device:
    return buf
  return copy_to_devices([buf], [device])[0]


def copy_to_devices(bufs: Sequence[DeviceBuffer], devices: Sequence) -> list:
  """Copies each buffer to its device, device to device in one runtime call where the
  clients agree (through the host otherwise)."""
  out: list = [None] * len(bufs)
  same = [i for i, (b, d) in enumerate(zip(bufs, devices)) if b.platform == d.platform]
  if same:
    copies = _xc.batched_copy_array_to_devices_with_sharding(
        [bufs[i] for i in same], [_xc.DeviceList((devices[i],)) for i in same],
        [_placement(devices[i]) for i in same],
        [_xc.ArrayCopySemantics.ALWAYS_COPY] * len(same))
    for i, c in zip(same, copies):
      out[i] = c
  for i, o in enumerate(out):
    if o is None:
      out[i] = put(to_host(bufs[i]), devices[i])
  return out


def copy_buffer(buf: DeviceBuffer) -> DeviceBuffer:
  """A new buffer on the same device holding a copy of ``buf``."""
  device = buf_device(buf)
  return _xc.batched_copy_array_to_devices_with_sharding(
      [buf], [_xc.DeviceList((device,))], [_placement(device)],
      [_xc.ArrayCopySemantics.ALWAYS_COPY])[0]


def copy_to_host_async(buf: DeviceBuffer) -> None:
  if is_spread(buf):
    for shard in buf._arrays:
      shard._copy_single_device_array_to_host_async()
  else:
    buf._copy_single_device_array_to_host_async()


# ---------------------------------------------------------------------------------------
# Buffers over several devices: one jaxlib array holding a shard per device, laid out as
# xjax's sharding (``described``) says.  ``devices`` (sorted by id) is the device
# assignment of the programs that use it; HLO shardings name devices by place in it.

class _Spread(_xc.GSPMDSharding):
  """jaxlib's GSPMD sharding with what the runtime asks of it."""

  def _to_xla_hlo_sharding(self, ndim):
    return self._hlo_sharding

  @property
  def _device_assignment(self):
    return tuple(self._devices)

  is_fully_addressable = True  # set per instance by spread()

  @property
  def is_fully_replicated(self):
    return self._hlo_sharding.is_replicated()

  @property
  def memory_kind(self):
    return None

  def shard_shape(self, shape):
    return self.described.shard_shape(shape)

  @property
  def num_devices(self):
    return len(self._devices)

  @property
  def device_set(self):
    return set(self._devices)


_spreads: dict = {}
register_backend_cache(_spreads)


def spread(described, ndim: int) -> _Spread:
  """The runtime sharding of arrays laid out as ``described`` (an xjax Sharding)."""
  key = (described, ndim)
  s = _spreads.get(key)
  if s is None:
    devices = sorted(described.device_set, key=lambda d: d.id)
    logical = {d: i for i, d in enumerate(devices)}
    text = described.tiling(ndim).hlo_text(logical)
    s = _Spread(_xc.DeviceList(tuple(devices)), _xc.HloSharding.from_string(text))
    s.described = described
    s.is_fully_addressable = all(d.process_index == d.client.process_index() for d in devices)
    _spreads[key] = s
  return s


def is_spread(buf) -> bool:
  return type(buf._sharding) is _Spread


def buf_sharding(buf):
  """xjax's sharding of a buffer over several devices."""
  return buf._sharding.described


def shards(buf) -> list:
  """The one-device buffers of a buffer over several devices, in device-id order."""
  return list(buf._arrays)


def put_sharded(value: np.ndarray, described, weak_type: bool = False) -> DeviceBuffer:
  """Copies a host array to the devices of ``described``, each getting its shard."""
  value = np.asarray(value)
  placement = spread(described, value.ndim)
  index = described.devices_indices_map(value.shape)
  devices = [d for d in placement._devices if d.process_index == d.client.process_index()]
  pieces = [np.ascontiguousarray(value[index[d]]) for d in devices]
  aval = _HostAval(value.shape, value.dtype)
  aval.weak_type = weak_type
  return _xc.batched_device_put(aval, placement, pieces, devices, True, enable_x64=True)


def assemble(bufs: Sequence[DeviceBuffer], described, shape, dtype) -> DeviceBuffer:
  """One buffer over several devices from this process's one-device buffers ``bufs`` (in
  device-id order), laid out as ``described``; the buffers become its shards as they are."""
  aval = _HostAval(tuple(shape), np.dtype(dtype))
  return _xc.ArrayImpl(aval, spread(described, len(shape)), list(bufs), True, True)


def _assemble(buf) -> np.ndarray:
  if buf._sharding.is_fully_replicated:  # every shard is the whole array
    return to_host(buf._arrays[0])
  if not buf._sharding.is_fully_addressable:
    raise RuntimeError("Fetching value for `xjax.Array` that spans non-addressable (non "
                       "process local) devices is not possible. Use the `.addressable_shards` "
                       "of the Array to inspect this process's shards.")
  shape = tuple(buf.aval.shape)
  parts = [(s._sharding._device, to_host(s)) for s in buf._arrays]
  index = buf._sharding.described.devices_indices_map(shape)
  out = np.empty(shape, parts[0][1].dtype)
  for device, part in parts:
    out[index[device]] = part
  return out


# ---------------------------------------------------------------------------------------
# DLPack

class DLDeviceType(enum.IntEnum):
  kDLCPU = 1
  kDLCUDA = 2
  kDLCUDAHost = 3
  kDLROCM = 10


_DLPACK_TYPES = {"cpu": DLDeviceType.kDLCPU, "cuda": DLDeviceType.kDLCUDA,
                 "rocm": DLDeviceType.kDLROCM}
_DLPACK_PLATFORMS = {DLDeviceType.kDLCPU: "cpu", DLDeviceType.kDLCUDA: "cuda",
                     DLDeviceType.kDLCUDAHost: "cuda", DLDeviceType.kDLROCM: "rocm"}


def dlpack_device(device) -> tuple:
  """``__dlpack_device__``: (device type, index); CPU memory is one DLPack device."""
  kind = _DLPACK_TYPES[device.platform]
  return kind, 0 if kind == DLDeviceType.kDLCPU else device.local_hardware_id


def dlpack_platform(kind: int) -> str | None:
  """The platform a DLPack device type names (None: one xjax does not run on)."""
  return _DLPACK_PLATFORMS.get(kind)


def device_for_dlpack(platform: str, index: int):
  """The device of ``platform`` with local hardware id ``index`` (the runtime's error when
  there is none; CPU memory is id 0, the first CPU device)."""
  return backend(platform).device_from_local_hardware_id(index)


def to_dlpack(buf: DeviceBuffer, stream=None):
  """A DLPack capsule viewing ``buf`` (no copy)."""
  return _jax.buffer_to_dlpack_managed_tensor(buf, stream=stream)


def from_dlpack(capsule, device, copy: bool | None = None, stream=None) -> DeviceBuffer:
  """A buffer on ``device`` from a DLPack capsule: jaxlib views host data that is 64-byte
  aligned and compact (keeping a transposed producer's layout), else copies; with
  ``copy=False`` unaligned data raises ValueError."""
  try:
    return _jax.dlpack_managed_tensor_to_buffer(capsule, device, stream, copy)
  except XlaRuntimeError as err:
    text = str(err)
    if "is not aligned to" not in text:
      raise
    where = text[text.index("is not aligned to"):].strip().rstrip(".")
    raise ValueError(f"from_dlpack(copy=False): the data {where}, so it cannot be used "
                     "without a copy; pass copy=True or copy=None to copy it.") from None


def host_view(buf: DeviceBuffer) -> tuple[np.ndarray, bool]:
  """A one-device buffer's data as a row-major NumPy array, and whether making it needed a
  copy (a buffer in another layout, or not in host memory); no copy for a CPU buffer
  in the default layout."""
  return buf._single_device_array_to_np_array_did_copy()


def to_host(buf: DeviceBuffer) -> np.ndarray:
  if type(buf._sharding) is _Spread:
    return _assemble(buf)
  value = np.asarray(buf)
  if value.dtype == object:  # ml_dtypes element types (bfloat16, ...) need the direct path
    value = buf._single_device_array_to_np_array_did_copy()[0]
  return value


def buf_device(buf: DeviceBuffer):
  return buf._sharding._device


def buf_device_set(buf: DeviceBuffer) -> set:
  """The devices holding ``buf`` (one, or several for a spread buffer)."""
  return buf._sharding.device_set


def block_until_ready(bufs: Sequence[DeviceBuffer]) -> None:
  for b in bufs:
    b.block_until_ready()


# ---------------------------------------------------------------------------------------
# Compilation and execution

# jax_no_execution: while set, running a compiled program raises (jit's fast path, which
# inlines ``Executable.run``, is off meanwhile).
_no_execution = [config.read("jax_no_execution")]
config.on_change("jax_no_execution", lambda value: _no_execution.__setitem__(0, bool(value)))


def _refuse_execution(module_text: str) -> None:
  name = module_text[len("module @"):].split(None, 1)[0] if module_text.startswith(
      "module @") else "a compiled program"
  raise RuntimeError(f"JAX tried to execute function {name}, but the no_execution config "
                     "option is set")


class _Loaded:
  """What every compiled program shows of jaxlib's loaded executable ``_loaded``."""
  __slots__ = ()

  def hlo_text(self) -> str:
    return self._loaded.get_hlo_text()

  def cost_analysis(self):
    return self._loaded.cost_analysis()

  def memory_analysis(self):
    """XLA's sizes of the program's code, arguments, outputs, aliases and temporaries."""
    return self._loaded.get_compiled_memory_stats()

  def runtime_executable(self):
    """jaxlib's loaded executable (what JAX's ``Compiled.runtime_executable`` returns)."""
    return self._loaded


class Executable(_Loaded):
  """A compiled program on one device; ``run`` takes and returns device buffers."""
  __slots__ = ("_loaded", "device", "text", "_handlers")

  def __init__(self, loaded, device, text: str, out_avals) -> None:
    self._loaded = loaded
    self.device = device
    self.text = text
    # C++ result handlers wrap outputs without a round trip through Python (~4 us per
    # call instead of ~50 us for disassemble_into_single_device_arrays).
    placement = _placement(device)
    try:
      self._handlers = [_xc.array_result_handler(physical_aval(a), placement, True, True)
                        for a in out_avals]
    except (AttributeError, TypeError):
      self._handlers = None

  def run(self, bufs: Sequence[DeviceBuffer]) -> list[DeviceBuffer]:
    if _no_execution[0]:
      _refuse_execution(self.text)
    if self._handlers is not None:
      return self._loaded.execute_sharded(bufs).consume_with_handlers(self._handlers)
    return self._loaded.execute(bufs)

  def run_parts(self):
    """``(execute, handlers)`` such that ``execute(bufs).consume_with_handlers(handlers)``
    is ``run(bufs)``, for a hot path to inline; None where ``run`` has no handlers."""
    return None if self._handlers is None else (self._loaded.execute_sharded, self._handlers)


def compile(module_text: str, device, name: str, out_avals,
            host_callbacks: Sequence = (), env_options: Sequence = ()) -> Executable:
  """Compiles a StableHLO module (MLIR text) for one device.

  ``host_callbacks[i]`` is the Python callable that the module's custom calls to
  ``HOST_CALLBACK_TARGET`` with ``backend_config = {index = i : ui64}`` run (see
  ``_compile_with_callbacks``).  ``env_options``: (name, value) pairs of XLA options (jit's
  ``compiler_options``; see ``set_env_options``)."""
  client = device.client
  if config.read("jax_log_compiles"):
    logger.warning("Compiling %s for device %s", name or "module", device)
  options = _xc.CompileOptions()
  options.num_replicas = 1
  options.num_partitions = 1
  set_env_options(options, env_options)
  # Without an explicit assignment the executable runs on device 0 whatever DeviceList says.
  options.device_assignment = _xc.DeviceAssignment.create(np.array([[device.id]]))
  with monitoring.timed(monitoring.BACKEND_COMPILE_EVENT, f"jit({name})"), \
      _invalid_program_quoted(module_text):
    if host_callbacks:
      return _compile_with_callbacks(client, module_text, device, options, out_avals,
                                     host_callbacks)
    loaded = compile_hook[0](client, module_text, _xc.DeviceList((device,)), options, ())
  return Executable(loaded, device, module_text, out_avals)


@contextlib.contextmanager
def _invalid_program_quoted(module_text: str):
  """XLA's parse and verifier errors name a line of the module (``-:LINE:COL: error:``);
  the error raised quotes that line, so the operation at fault can be told."""
  try:
    yield
  except XlaRuntimeError as e:
    where = re.search(r"-:(\d+):\d+: error:", str(e))
    lines = module_text.splitlines()
    if where is None or not 0 < int(where[1]) <= len(lines):
      raise
    line = lines[int(where[1]) - 1].strip()
    raise type(e)(f"{e}\nThe invalid operation, line {where[1]} of the program xjax built "
                  f"(an xjax bug; please report it): {line[:400]}") from None


def compile_options(num_replicas: int, num_partitions: int, device_assignment=None,
                    env_options_overrides: dict | None = None, fdo_profile: bytes | None = None):
  """XLA's compile options (jaxlib's ``CompileOptions``) for a program of ``num_replicas``
  x ``num_partitions`` (SPMD partitioning, GSPMD as xjax partitions); ``device_assignment``
  (devices or ids) gives each replica's and partition's device."""
  options = _xc.CompileOptions()
  options.num_replicas = num_replicas
  options.num_partitions = num_partitions
  build = options.executable_build_options
  build.use_spmd_partitioning = True
  build.use_shardy_partitioner = False
  set_env_options(options, dict(env_options_overrides or {}, **(
      {} if fdo_profile is None else {"fdo_profile": fdo_profile})))
  if device_assignment is not None:
    assignment = np.array(device_assignment)
    if assignment.ndim == 1 and num_partitions == 1:
      assignment = assignment[:, None]
    if num_replicas != assignment.shape[0]:
      raise ValueError(f"device_assignment does not match num_replicas: {assignment} vs "
                       f"{num_replicas}.")
    if num_partitions != assignment.shape[1]:
      raise ValueError(f"device_assignment does not match num_partitions: {assignment} vs "
                       f"{num_partitions}.")
    if assignment.dtype == object:
      assignment = np.vectorize(lambda d: d.id, otypes=[int])(assignment)
    options.device_assignment = _xc.DeviceAssignment.create(assignment)
  return options


# Options given by name that XLA takes as build options, not as environment overrides.
_BUILD_OPTIONS = ("exec_time_optimization_effort", "memory_fitting_effort", "optimization_level",
                  "memory_fitting_level", "fdo_profile")


def set_env_options(options, overrides) -> None:
  """Sets the named XLA options ``overrides`` (a dict or (name, value) pairs; the later of
  a name wins) on ``options``: the efforts, levels and ``fdo_profile`` as build options,
  the rest as environment overrides, which XLA checks when compiling (an unknown name
  raises ``INVALID_ARGUMENT: No such compile option``)."""
  overrides = dict(overrides)
  build = options.executable_build_options
  for name in _BUILD_OPTIONS:
    if name in overrides:
      setattr(build, name, overrides.pop(name))
  if overrides:
    options.env_option_overrides = list(overrides.items())


def _tiling_of(hlo, devices: Sequence, ndim: int):
  """XLA's HLO sharding ``hlo`` of a rank-``ndim`` value as a ``sharding.Tiling`` over
  ``devices`` (the program's device assignment)."""
  from xjax._src.foundations.sharding import Tiling
  if hlo.is_replicated() or hlo.is_maximal() or not ndim:
    return Tiling((1,) * ndim, devices, len(devices))
  dims = list(hlo.tile_assignment_dimensions())
  chosen = tuple(devices[i] for i in hlo.tile_assignment_devices())
  return Tiling(dims[:ndim], chosen, int(np.prod(dims[ndim:], dtype=np.int64)))


def hlo_sharding(sharding=None):
  """XLA's HloSharding of an OpSharding proto object, of its serialized bytes, or itself;
  the replicated one when None."""
  if sharding is None:
    return _xc.HloSharding.replicate()
  if isinstance(sharding, bytes):
    sharding = op_sharding(sharding)
  if isinstance(sharding, _xc.OpSharding):
    return _xc.HloSharding.from_proto(sharding)
  return sharding


def op_sharding(serialized: bytes):
  """XLA's OpSharding proto object parsed from its serialized bytes."""
  proto = _xc.OpSharding()
  proto.ParseFromString(serialized)
  return proto


def hlo_tiling(hlo, devices: Sequence, ndim: int):
  """``sharding.Tiling`` of a rank-``ndim`` value laid out as ``hlo`` over ``devices``."""
  return _tiling_of(hlo_sharding(hlo), devices, ndim)


# backend_config of an ``InspectSharding`` custom call -> the callable XLA's partitioner
# calls with the operand's sharding; held until a module naming it is compiled.
_inspections: dict[str, Callable] = {}


def inspect_sharding_config(callback: Callable, devices: Sequence, ndim: int) -> str:
  """The ``backend_config`` (an MLIR string body) of an ``InspectSharding`` custom call
  in an SPMD program over ``devices``: XLA's partitioner then calls ``callback`` with the
  ``sharding.Tiling`` it chose for the rank-``ndim`` operand."""
  def on_sharding(hlo):
    callback(_tiling_of(hlo, list(devices), ndim))
  config = "".join(f"\\{b:02X}" for b in _xc.encode_inspect_sharding_callback(on_sharding))
  with _lock:
    _inspections[config] = on_sharding
  return config


def _compiled_inspections(module_text: str) -> None:
  """Lets go of the inspection callbacks of a module that has been compiled."""
  with _lock:
    for config in [c for c in _inspections if c in module_text]:
      del _inspections[config]


class SpmdExecutable(_Loaded):
  """A program partitioned by XLA over several devices (``devices``, in the order of the
  program's device assignment); ``run`` takes and returns buffers over those devices."""
  __slots__ = ("_loaded", "devices", "text", "_handlers", "in_tilings", "out_tilings")

  def __init__(self, loaded, devices, text: str, in_avals, out_avals) -> None:
    self._loaded, self.devices, self.text = loaded, tuple(devices), text
    self.in_tilings = [self._tiling(op, a.ndim)
                       for op, a in zip(loaded.get_parameter_shardings(), in_avals)]
    self.out_tilings = [self._tiling(op, a.ndim)
                        for op, a in zip(loaded.get_output_shardings(), out_avals)]
    self._handlers = None

  def _tiling(self, op_sharding, ndim: int):
    return _tiling_of(_xc.HloSharding.from_proto(op_sharding), self.devices, ndim)

  def set_outputs(self, out_avals, described) -> None:
    """How outputs are wrapped: each laid out as its xjax sharding in ``described``."""
    self._handlers = [_xc.array_result_handler(physical_aval(a), spread(s, a.ndim), True, True)
                      for a, s in zip(out_avals, described)]

  def run(self, bufs: Sequence[DeviceBuffer]) -> list[DeviceBuffer]:
    if _no_execution[0]:
      _refuse_execution(self.text)
    return self._loaded.execute_sharded(bufs).consume_with_handlers(self._handlers)


def compile_spmd(module_text: str, devices: Sequence, name: str, in_avals, out_avals,
                 choose_in: Sequence[bool], choose_out: Sequence[bool],
                 env_options: Sequence = ()) -> SpmdExecutable:
  """Compiles a StableHLO module with XLA's SPMD partitioner: one partition per device,
  ``devices`` giving the device of each partition id.  XLA picks the layouts of the
  parameters and results flagged in ``choose_in``/``choose_out`` (see ``in_tilings``,
  ``out_tilings``); ``env_options`` as ``compile``'s."""
  devices = list(devices)
  client = devices[0].client
  if config.read("jax_log_compiles"):
    logger.warning("Compiling %s for devices %s", name or "module", devices)
  options = _xc.CompileOptions()
  options.num_replicas = 1
  options.num_partitions = len(devices)
  build = options.executable_build_options
  build.use_spmd_partitioning = True
  build.allow_spmd_sharding_propagation_to_parameters = list(choose_in) or [False]
  build.allow_spmd_sharding_propagation_to_output = list(choose_out) or [False]
  options.device_assignment = _xc.DeviceAssignment.create(
      np.array([[d.id for d in devices]]))
  set_env_options(options, env_options)
  with monitoring.timed(monitoring.BACKEND_COMPILE_EVENT, f"jit({name})"), \
      _invalid_program_quoted(module_text):
    loaded = client.compile_and_load(module_text, _xc.DeviceList(tuple(devices)), options)
  if _inspections:
    _compiled_inspections(module_text)
  return SpmdExecutable(loaded, devices, module_text, in_avals, out_avals)


def compile_and_load(client, module, devices, options, host_callbacks=()):
  """XLA compilation of ``module`` for ``devices`` (a one-device list); without host
  callbacks through the persistent compilation cache."""
  if host_callbacks:
    return client.compile_and_load(module, devices, options, host_callbacks=host_callbacks)
  return _load_or_compile(client, module, devices[0], options)


# Every compilation goes through compile_hook[0]; the `jax._src.compiler` compatibility module
# replaces it with its `backend_compile_and_load`, which libraries wrap (chex).
compile_hook = [compile_and_load]


def _options_key(options) -> str:
  """What in ``options`` the persistent cache key must tell apart: the named options."""
  build = options.executable_build_options
  return repr((sorted(options.env_option_overrides),
               [getattr(build, name) for name in _BUILD_OPTIONS]))


def _load_or_compile(client, module_text: str, device, options):
  """The executable from the persistent compilation cache, else compiled (and stored)."""
  devices = _xc.DeviceList((device,))
  entry = compilation_cache.key(module_text, device.platform, device.device_kind,
                                str(device.id), _JAXLIB_VERSION,
                                os.environ.get("XLA_FLAGS", ""), _options_key(options)) if (
      compilation_cache.directory() is not None and not _xla_transforms) else None
  if entry is not None:
    payload = compilation_cache.get(entry)
    if payload is not None:
      try:
        return client.deserialize_executable(payload, devices, options)
      except XlaRuntimeError:
        compilation_cache.discard(entry)
  start = time.perf_counter()
  loaded = client.compile_and_load(module_text, devices, options)
  if entry is not None and (time.perf_counter() - start
                            >= config.read("jax_persistent_cache_min_compile_time_secs")):
    compilation_cache.put(entry, client.serialize_executable(loaded))
  return loaded


# ---------------------------------------------------------------------------------------
# Host callbacks: jaxlib's XLA FFI target runs Python callables from compiled code

# The custom-call target (compiled into jaxlib, registered statically).  It calls
# ``host_callbacks[index]`` with one NumPy array per operand (None for a token) and
# expects a tuple with one array (or None for a token) per result.
HOST_CALLBACK_TARGET = "xla_ffi_python_cpu_callback"
_GPU_CALLBACK_TARGET = "xla_ffi_python_gpu_callback"

_host_errors = threading.local()
_mlir_context: list = []


def _parse_module(text: str):
  """``compile_and_load`` takes host callbacks only with a parsed MLIR module."""
  from jaxlib.mlir import ir
  with _mlir_ctx():
    return ir.Module.parse(text)


def _mlir_ctx():
  """jaxlib's MLIR context with the StableHLO, CHLO and Shardy (``sdy``: the shardings of
  JAX's exported modules) dialects loaded (made once)."""
  from jaxlib.mlir import ir
  if not _mlir_context:
    from jaxlib.mlir._mlir_libs import _jax_mlir_ext
    from jaxlib.mlir.dialects import chlo, sdy, stablehlo
    registry = ir.DialectRegistry()
    _jax_mlir_ext.register_dialects(registry)
    ctx = ir.Context()
    ctx.append_dialect_registry(registry)
    ctx.load_all_available_dialects()
    stablehlo.register_dialect(ctx)
    chlo.register_dialect(ctx)
    sdy.register_dialect(ctx)
    _mlir_context.append(ctx)
  return _mlir_context[0]


def mlir_bindings(name: str):
  """A module of jaxlib's MLIR Python bindings (``"ir"``, ``"dialects.stablehlo"``, ...),
  for lowering rules written with them; its context is made first."""
  _mlir_ctx()
  return importlib.import_module(f"jaxlib.mlir.{name}")


def mlir_context():
  """jaxlib's MLIR context in which xjax parses and builds IR (made once)."""
  return _mlir_ctx()


def mlir_converters():
  """jaxlib's converters between MLIR modules and XLA's forms (``jax.extend.mlir``'s
  ``serialize_portable_artifact``, ``hlo_to_stablehlo``, ...)."""
  return _jax.mlir


def build_with_bindings(arg_types: Sequence[str], build: Callable) -> str:
  """Runs ``build(arguments) -> results`` (values, ops or lists of them) with jaxlib's MLIR
  Python bindings in a scratch function taking ``arg_types`` (type text), under that
  context and an unknown location; returns the function printed in MLIR's generic form."""
  from jaxlib.mlir import ir
  from jaxlib.mlir.dialects import func
  with _mlir_ctx(), ir.Location.unknown():
    module = ir.Module.create()
    types = [ir.Type.parse(t) for t in arg_types]
    with ir.InsertionPoint(module.body):
      fn = func.FuncOp("rule", (types, []))
      block = fn.add_entry_block()
    with ir.InsertionPoint(block):
      results = _ir_values(ir, build(list(block.arguments)))
      func.ReturnOp(results)
    fn.attributes["function_type"] = ir.TypeAttr.get(
        ir.FunctionType.get(types, [r.type for r in results]))
    return fn.operation.get_asm(print_generic_op_form=True)


def _ir_values(ir, out) -> list:
  """The values of a binding-built rule's results, flattened (ops give their results)."""
  if isinstance(out, ir.Value):
    return [out]
  if isinstance(out, (ir.Operation, ir.OpView)):
    return list(out.results)
  return [v for o in out for v in _ir_values(ir, o)]


def jaxlib_module(name: str):
  """A module of jaxlib exposed by JAX's extension API (``xla_client``, ``_ifrt_proxy``,
  ``_jax.ifrt_programs``)."""
  return importlib.import_module(f"jaxlib.{name}")


# HLO module transformations (``jax.extend.xla``): passes run inside XLA's pipeline.
# (name, stage) -> (callback, platforms) of the registered passes: while there are any,
# programs are compiled (the persistent cache holds programs compiled without them).
_xla_transforms: dict = {}


def _started(platform: str, client):
  """A newly made client, with the passes registered for plugin platforms."""
  if platform != "cpu":
    for (name, stage), (callback, platforms) in _xla_transforms.items():
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
  _xla_transforms[(name, stage)] = (callback, list(platforms))
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
  _xla_transforms.pop((name, stage), None)
  return cleared


def mlir_module(text: str):
  """The MLIR module (jaxlib's ``ir.Module``) of StableHLO text."""
  return _parse_module(text)


def hlo_computation(text: str):
  """XLA's HLO computation of a StableHLO module (it prints with ``as_hlo_text()``)."""
  return _jax.mlir.mlir_module_to_xla_computation(text, use_tuple_args=False,
                                                      return_tuple=False)


def hlo_cost_analysis(text: str, device) -> dict:
  """XLA's cost estimates of a StableHLO module before optimization (flops, bytes)."""
  return _jax.hlo_module_cost_analysis(device.client,
                                           hlo_computation(text).as_hlo_module())


def serialize_portable_artifact(text: str) -> bytes:
  """StableHLO text as a portable artifact: versioned bytecode that consumers built up to
  four weeks apart from this jaxlib can read (what ``jax.export`` stores)."""
  from jaxlib.mlir import ir
  from jaxlib.mlir.dialects import stablehlo
  with _mlir_ctx():
    target = stablehlo.get_version_from_compatibility_requirement(
        stablehlo.StablehloCompatibilityRequirement.WEEK_4)
    return bytes(stablehlo.serialize_portable_artifact(ir.Module.parse(text), target))


def deserialize_portable_artifact(data: bytes) -> str:
  """The StableHLO text of a portable artifact."""
  from jaxlib.mlir.dialects import stablehlo
  with _mlir_ctx() as ctx:
    return str(stablehlo.deserialize_portable_artifact(ctx, bytes(data)))


def callable_functions(text: str, rename: Callable[[str], str]) -> list[str]:
  """The functions of a module as private functions renamed by ``rename`` (the public
  ``main`` first, without argument or result attributes), in MLIR's generic form, ready to
  join another module and be called from it. Other top-level operations (Shardy's
  ``sdy.mesh``, which the argument attributes name) are left out: the functions are called
  on one device."""
  from jaxlib.mlir import ir
  with _mlir_ctx():
    module = ir.Module.parse(text)
    ops = sorted((op for op in module.body.operations if op.operation.name == "func.func"),
                 key=lambda op: ir.StringAttr(op.attributes["sym_name"]).value != "main")
    for op in ops:
      old = ir.StringAttr(op.attributes["sym_name"]).value
      new = rename(old)
      ir.SymbolTable.replace_all_symbol_uses(old, new, module.operation)
      ir.SymbolTable.set_symbol_name(op, new)
      ir.SymbolTable.set_visibility(op, "private")
      for attr in ("arg_attrs", "res_attrs"):
        if attr in op.attributes:
          del op.attributes[attr]
    return [op.get_asm(print_generic_op_form=True) for op in ops]


def refine_polymorphic_shapes(text: str) -> str:
  """A module whose ``main`` has static argument types with the dynamic shapes of the
  functions it calls refined from them and their shape assertions checked (a failing one is
  a ``ValueError`` with its message), as text."""
  from jaxlib.mlir import ir
  try:
    refined = _jax.mlir.refine_polymorphic_shapes(text.encode(), True, True)
  except _xc.XlaRuntimeError as e:
    detail = str(e).split("error: ", 1)[-1].split("\n", 1)[0]
    raise ValueError(f"Error refining shapes. {detail}") from None
  with _mlir_ctx():
    return str(ir.Module.parse(refined))


def approx_top_k_output_size(input_size: int, rank: int, k: int, recall_target: float,
                             input_size_override: int) -> int:
  """The reduction-dimension size of XLA's ApproxTopK results left unaggregated."""
  return int(_jax.approx_top_k_reduction_output_size(
      input_size, rank, k, recall_target, False, input_size_override)[0])


def _recording(fn):
  """``fn``, remembering the exception it raises so the caller gets it as the cause."""
  def call(*args):
    try:
      return fn(*args)
    except BaseException as e:
      _host_errors.error = e
      raise
  return call


class _CallbackExecutable(Executable):
  """An executable that runs host callbacks; their exceptions become the ``__cause__`` of
  the JaxRuntimeError the execution raises."""
  __slots__ = ("callbacks",)

  def run_parts(self):
    return None  # callers must go through ``run``, which blocks and chains the cause

  def run(self, bufs):
    _host_errors.error = None
    try:
      outs = Executable.run(self, bufs)
      for b in outs:  # callbacks run (and fail) before the call returns, in call order
        b.block_until_ready()
      return outs
    except XlaRuntimeError as err:
      cause, _host_errors.error = _host_errors.error, None
      if cause is not None:
        raise err from cause
      raise


def _compile_with_callbacks(client, text, device, options, out_avals, callbacks):
  if device.platform != "cpu":
    text = text.replace(HOST_CALLBACK_TARGET, _GPU_CALLBACK_TARGET)
  wrapped = [_recording(fn) for fn in callbacks]
  with _lock:
    module = _parse_module(text)
  loaded = compile_hook[0](client, module, _xc.DeviceList((device,)), options, wrapped)
  exe = _CallbackExecutable(loaded, device, text, out_avals)
  exe.callbacks = wrapped  # kept alive as long as the executable
  return exe


# ---------------------------------------------------------------------------------------
# LAPACK kernels (XLA FFI custom-call targets for the CPU, shipped with jaxlib)

_lapack_targets: list = []


def lapack_targets() -> frozenset:
  """The names of jaxlib's LAPACK kernels (``lapack_spotrf_ffi``, ...), registered with
  XLA on first use; empty when this jaxlib has none."""
  if not _lapack_targets:
    with _lock:
      if not _lapack_targets:
        _lapack_targets.append(_register_lapack())
  return _lapack_targets[0]


def _register_lapack() -> frozenset:
  try:
    from jaxlib.cpu import _lapack
  except ImportError:
    return frozenset()
  _lapack.initialize()  # binds the kernels to SciPy's LAPACK
  kernels = _lapack.registrations()
  for name, capsule in kernels.items():
    _xc.register_custom_call_target(name, capsule, "cpu", api_version=1)
  return frozenset(kernels)


# ---------------------------------------------------------------------------------------
# User FFI handlers (``jax.ffi``).  jaxlib queues a registration until a client of its
# platform installs the registering function; for the CPU that function is installed here
# first, so a registration takes effect (and fails) at once, without making a client.


def _register_cpu_handlers(platform: str) -> None:
  if platform == "cpu":
    _xc.register_custom_call_handler("cpu", _jax.register_custom_call_target)
    _xc.register_custom_type_handler("cpu", _jax.register_custom_type)


def register_ffi_target(name: str, fn, platform: str, api_version: int, **kwargs) -> None:
  """Registers the XLA FFI handler (a PyCapsule, or a dict of them by stage) or, with
  ``api_version=0``, the legacy custom-call function ``fn`` as the custom-call target
  ``name`` on ``platform``."""
  _register_cpu_handlers(platform)
  _xc.register_custom_call_target(name, fn, platform, api_version, **kwargs)


def register_ffi_type(name: str, type_registration, platform: str) -> None:
  """Registers an FFI user type (``{"type_id": capsule, "type_info": capsule}``)."""
  _register_cpu_handlers(platform)
  _xc.register_custom_type(name, type_registration, platform=platform)


def register_ffi_batch_partitionable(name: str) -> None:
  _xc.register_custom_call_as_batch_partitionable(name)


def ffi_include_dir() -> str:
  """The directory of the XLA FFI C++ headers that jaxlib ships (``xla/ffi/api/ffi.h``)."""
  root = jaxlib.__file__ and os.path.dirname(os.path.abspath(jaxlib.__file__))
  return os.path.join(root or list(jaxlib.__path__)[0], "include")


# ---------------------------------------------------------------------------------------
# The runtime's profiler: sessions that record host and device activity and write XSpace
# traces (``ProfilerSession``), ``TraceMe`` annotations, the profiler server, and the
# reader of recorded traces (``profile_data``), imported above.


def heap_profile(platform: str | None = None) -> bytes:
  """The client's device memory as a pprof protocol buffer (uncompressed)."""
  return backend(platform).heap_profile()
