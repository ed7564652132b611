"""Compiling StableHLO text to executables (through the persistent compilation cache, with
XLA's options, over one device or a mesh's devices, with host callbacks) and running them."""
from __future__ import annotations

import contextlib
import logging
import os
import re
import threading
import time
from typing import Sequence

import numpy as np

from xjax._src.foundations import monitoring
from xjax._src.foundations.config import config
from xjax._src.core.avals import physical_aval
from xjax._src.backend import compilation_cache
from xjax._src.backend.jaxlib_api import xc as _xc
from xjax._src.backend.jaxlib_api import JAXLIB_CACHE_VERSION, DeviceBuffer, XlaRuntimeError
from xjax._src.backend.clients import lock, xla_transforms
from xjax._src.backend.buffers import device_sharding, spread
from xjax._src.backend.hlo_sharding import inspections, report_inspections, tiling_of
from xjax._src.backend.mlir_modules import parse_module

logger = logging.getLogger("xjax")

# jax_no_execution: while set, running a compiled program raises (jit's fast path, which
# inlines ``Executable.run``, is off meanwhile).
_no_execution = [config._read("jax_no_execution")]
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
    placement = device_sharding(device)
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
  if config._read("jax_log_compiles"):
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


class SpmdExecutable(_Loaded):
  """A program partitioned by XLA over several devices (``devices``, in the order of the
  program's device assignment); ``run`` takes and returns buffers over those devices."""
  __slots__ = ("_loaded", "devices", "text", "_handlers", "in_tilings", "out_tilings",
               "_callbacks")

  def __init__(self, loaded, devices, text: str, in_avals, out_avals,
               callbacks: bool = False) -> None:
    self._loaded, self.devices, self.text = loaded, tuple(devices), text
    self._callbacks = callbacks
    self.in_tilings = [self._tiling(op, a.ndim)
                       for op, a in zip(loaded.get_parameter_shardings(), in_avals)]
    self.out_tilings = [self._tiling(op, a.ndim)
                        for op, a in zip(loaded.get_output_shardings(), out_avals)]
    self._handlers = None

  def _tiling(self, op_sharding, ndim: int):
    return tiling_of(_xc.HloSharding.from_proto(op_sharding), self.devices, ndim)

  def set_outputs(self, out_avals, described) -> None:
    """How outputs are wrapped: each laid out as its xjax sharding in ``described``."""
    self._handlers = [_xc.array_result_handler(physical_aval(a), spread(s, a.ndim), True, True)
                      for a, s in zip(out_avals, described)]

  def run(self, bufs: Sequence[DeviceBuffer]) -> list[DeviceBuffer]:
    if _no_execution[0]:
      _refuse_execution(self.text)
    if not self._callbacks:
      return self._loaded.execute_sharded(bufs).consume_with_handlers(self._handlers)
    with _callback_errors_as_causes():
      outs = self._loaded.execute_sharded(bufs).consume_with_handlers(self._handlers)
      for b in outs:  # callbacks run (and fail) before the call returns
        b.block_until_ready()
      return outs


def compile_spmd(module_text: str, devices: Sequence, name: str, in_avals, out_avals,
                 choose_in: Sequence[bool], choose_out: Sequence[bool],
                 env_options: Sequence = (), host_callbacks: Sequence = ()) -> SpmdExecutable:
  """Compiles a StableHLO module with XLA's SPMD partitioner: one partition per device,
  ``devices`` giving the device of each partition id.  XLA picks the layouts of the
  parameters and results flagged in ``choose_in``/``choose_out`` (see ``in_tilings``,
  ``out_tilings``); ``env_options`` as ``compile``'s."""
  devices = list(devices)
  client = devices[0].client
  if config._read("jax_log_compiles"):
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
    if host_callbacks:  # (the Python callables the module's callback custom calls run)
      module, wrapped = _with_callbacks(module_text, devices[0].platform, host_callbacks)
      loaded = client.compile_and_load(module, _xc.DeviceList(tuple(devices)), options,
                                       host_callbacks=wrapped)
    else:
      loaded = client.compile_and_load(module_text, _xc.DeviceList(tuple(devices)), options)
  if inspections:
    report_inspections(module_text)
  return SpmdExecutable(loaded, devices, module_text, in_avals, out_avals,
                        bool(host_callbacks))


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
                                str(device.id), JAXLIB_CACHE_VERSION,
                                os.environ.get("XLA_FLAGS", ""), _options_key(options)) if (
      compilation_cache.directory() is not None and not xla_transforms) else None
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
                            >= config._read("jax_persistent_cache_min_compile_time_secs")):
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
    with _callback_errors_as_causes():
      outs = Executable.run(self, bufs)
      for b in outs:  # callbacks run (and fail) before the call returns, in call order
        b.block_until_ready()
      return outs


@contextlib.contextmanager
def _callback_errors_as_causes():
  """The exception a host callback raised becomes the ``__cause__`` of the execution's
  JaxRuntimeError."""
  _host_errors.error = None
  try:
    yield
  except XlaRuntimeError as err:
    cause, _host_errors.error = _host_errors.error, None
    if cause is not None:
      raise err from cause
    raise


def _with_callbacks(text: str, platform: str, callbacks):
  """(the parsed module, its callables made to record their exceptions): jaxlib takes host
  callbacks only with a parsed module, whose custom calls name the platform's target."""
  if platform != "cpu":
    text = text.replace(HOST_CALLBACK_TARGET, _GPU_CALLBACK_TARGET)
  with lock:
    module = parse_module(text)
  return module, [_recording(fn) for fn in callbacks]


def _compile_with_callbacks(client, text, device, options, out_avals, callbacks):
  module, wrapped = _with_callbacks(text, device.platform, callbacks)
  loaded = compile_hook[0](client, module, _xc.DeviceList((device,)), options, wrapped)
  exe = _CallbackExecutable(loaded, device, text, out_avals)
  exe.callbacks = wrapped  # kept alive as long as the executable
  return exe
