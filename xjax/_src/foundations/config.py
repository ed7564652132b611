"""Global configuration flags (``xjax.config``), mirroring JAX's ``jax.config``.

Flags are read from the environment at import (``JAX_ENABLE_X64=1``) and changed with
``config.update(name, value)`` or the context managers of the same name.  Flags that
change what tracing produces are part of every jit cache key (``trace_state_key``).
"""
from __future__ import annotations

import contextlib
import enum
import itertools
import os
import sys
from typing import Any, Callable


def _bool_env(name: str, default: bool) -> bool:
  value = os.environ.get(name)
  if value is None:
    return default
  return value.strip().lower() in ("1", "true", "t", "yes", "y", "on")


_configured_with_absl = False  # (parse_flags_with_absl reads the command line once)


# The options JAX defines as plain flags (``config.read`` returns them); JAX's others have
# context managers and are read as attributes.  The last two are xjax's own.
_PLAIN_OPTIONS = frozenset({
    "jax_backend_target", "jax_check_proxy_envs", "jax_compiler_detailed_logging_min_ops",
    "jax_cpu_enable_async_dispatch", "jax_cross_host_transfer_socket_address",
    "jax_cross_host_transfer_timeout_seconds", "jax_cross_host_transfer_transfer_size",
    "jax_cross_host_transport_addresses", "jax_cuda_visible_devices",
    "jax_disable_most_optimizations", "jax_dump_ir_modes", "jax_dump_ir_to", "jax_enable_x64",
    "jax_force_dcn_cross_host_transfers", "jax_include_debug_info_in_dumps",
    "jax_mock_gpu_topology", "jax_oneapi_visible_devices", "jax_pallas_verbose_errors",
    "jax_platform_name", "jax_rocm_visible_devices", "jax_sort_devices_by_process_index",
    "jax_tracer_error_num_traceback_frames", "jax_xla_backend", "mock_num_gpu_processes",
    "jax_tracer_repr", "xjax_retrace_warning_threshold",
})


class Config:
  """Holds the flag values; ``update`` validates the name."""

  def __init__(self) -> None:
    self.use_absl = False  # set by config_with_absl
    self._values: dict[str, Any] = {}
    self._affects_tracing: set[str] = set()
    self._listeners: dict[str, list[Callable[[Any], None]]] = {}
    self._validators: dict[str, Callable[[Any], None]] = {}
    self._enums: dict[str, type[enum.StrEnum]] = {}  # flags held as enum members, as JAX's
    self._trace_key: tuple = ()
    self._trace_token = 0  # a small int naming the current _trace_key (cheap to hash)
    self._trace_tokens: dict[tuple, int] = {}

  def define(self, name: str, default: Any, affects_tracing: bool = False,
             validator: Callable[[Any], None] | None = None) -> None:
    """A flag; ``validator(value)`` raises for values xjax cannot honour."""
    self._values[name] = default
    if affects_tracing:
      self._affects_tracing.add(name)
    if validator is not None:
      self._validators[name] = validator
    self._refresh_trace_key()

  def update(self, name: str, val: Any) -> None:  # (JAX's parameter names: callers name them)
    if name not in self._values:
      raise AttributeError(f"Unrecognized config option: {name}")
    if name in self._validators:
      self._validators[name](val)
    if name in self._enums:
      val = self._enums[name](val)
    self._values[name] = val
    self._refresh_trace_key()
    for listener in self._listeners.get(name, ()):
      listener(val)

  def add_validator(self, name: str, validator: Callable[[Any], None]) -> None:
    self._validators[name] = validator

  def on_change(self, name: str, listener: Callable[[Any], None]) -> None:
    self._listeners.setdefault(name, []).append(listener)

  def read(self, name: str) -> Any:
    """An option's value by name; as in JAX, options that have a context manager (most:
    all but ``_PLAIN_OPTIONS``) are read as attributes instead (``config.jax_debug_nans``)."""
    if name in self._values and name not in _PLAIN_OPTIONS:
      raise AttributeError(
          "For flags with a corresponding contextmanager, read their value via e.g. "
          f"`config.{name}` rather than `config.FLAGS.{name}`.")
    return self._read(name)

  def _read(self, name: str) -> Any:
    """An option's value by name (xjax's own reads)."""
    try:
      return self._values[name]
    except KeyError:
      raise AttributeError(f"Unrecognized config option: {name}") from None

  @property
  def x64_enabled(self) -> bool:
    """Whether 64-bit types are on (``jax_enable_x64``; older code reads this name)."""
    return self._values["jax_enable_x64"]

  @property
  def values(self) -> dict[str, Any]:
    """Every option's current value, by name (``"jax_enable_x64" in config.values``)."""
    return dict(self._values)

  def __getattr__(self, name: str) -> Any:
    values = self.__dict__.get("_values", {})
    if name in values:
      return values[name]
    raise AttributeError(f"Unrecognized config option: {name}")

  def __dir__(self) -> list[str]:
    return sorted({*super().__dir__(), *self._values})

  def config_with_absl(self) -> None:
    """Defines an absl flag for every option (``--jax_enable_x64``, ...); the values given
    on the command line apply once absl has parsed it (``absl.app.run``)."""
    from absl import app, flags
    self.use_absl = True
    for name, value in self._values.items():
      if name not in flags.FLAGS:
        self._define_absl_flag(flags, name, value)
    app.call_after_init(lambda: self.complete_absl_config(flags))

  def _define_absl_flag(self, flags: Any, name: str, default: Any) -> None:
    help_text = f"The {name} option of jax.config."
    validator = self._validators.get(name)
    if name in self._enums:
      flags.DEFINE_enum_class(name, default, self._enums[name], help_text)
    elif getattr(validator, "enum_values", None):
      flags.DEFINE_enum(name, default, validator.enum_values, help_text)
    else:
      kind = getattr(validator, "kind", type(default))
      define = {bool: flags.DEFINE_bool, int: flags.DEFINE_integer,
                float: flags.DEFINE_float}.get(kind, flags.DEFINE_string)
      define(name, default, help_text)

  def complete_absl_config(self, absl_flags: Any) -> None:
    """Applies the options given as absl flags on the command line."""
    for name in list(self._values):
      try:
        flag = absl_flags.FLAGS[name]
      except KeyError:
        continue
      if flag.present:
        self.update(name, flag.value)

  def parse_flags_with_absl(self) -> None:
    """Reads the ``--jax*`` arguments of ``sys.argv`` (those before a ``--``) as absl flags,
    once per process: what test files of JAX libraries call at import."""
    global _configured_with_absl
    if _configured_with_absl:
      return
    from absl import flags
    argv = itertools.takewhile(lambda a: a != "--", sys.argv)
    self.config_with_absl()
    flags.FLAGS(["", *(a for a in argv if a.startswith("--jax"))], known_only=True)
    self.complete_absl_config(flags)
    _configured_with_absl = True

  def _refresh_trace_key(self) -> None:
    self._trace_key = tuple((n, self._values[n]) for n in sorted(self._affects_tracing))
    self._trace_token = self._trace_tokens.setdefault(self._trace_key, len(self._trace_tokens))

  def trace_state_key(self) -> tuple:
    """The flag values that change what tracing produces (part of jit cache keys)."""
    return self._trace_key

  @contextlib.contextmanager
  def _override(self, name: str, value: Any):
    old = self._values[name]
    self.update(name, value)
    try:
      yield
    finally:
      self.update(name, old)


config = Config()
config.define("jax_enable_x64", _bool_env("JAX_ENABLE_X64", False), affects_tracing=True)
config.define("jax_disable_jit", _bool_env("JAX_DISABLE_JIT", False))
config.define("jax_log_compiles", _bool_env("JAX_LOG_COMPILES", False))
config.define("jax_platforms", os.environ.get("JAX_PLATFORMS"))
config.define("jax_platform_name", os.environ.get("JAX_PLATFORM_NAME", ""))
config.define("jax_numpy_rank_promotion", os.environ.get("JAX_NUMPY_RANK_PROMOTION", "allow"),
              affects_tracing=True)
config.define("jax_default_matmul_precision", None, affects_tracing=True)
config.define("jax_debug_nans", _bool_env("JAX_DEBUG_NANS", False))
config.define("jax_debug_infs", _bool_env("JAX_DEBUG_INFS", False))
# While tracing, operations on concrete values only are computed at once (what
# ensure_compile_time_eval turns on), as JAX's flag.
config.define("eager_constant_folding", _bool_env("EAGER_CONSTANT_FOLDING", False),
              affects_tracing=True)
# Guards for tests: tracing for jit / running compiled programs is an error while set.
config.define("jax_no_tracing", _bool_env("JAX_NO_TRACING", False))
config.define("jax_no_execution", _bool_env("JAX_NO_EXECUTION", False))
config.define("jax_num_cpu_devices", int(os.environ.get("JAX_NUM_CPU_DEVICES", "-1")))
config.define("jax_compilation_cache_dir", os.environ.get("JAX_COMPILATION_CACHE_DIR"))
config.define("jax_default_prng_impl", "threefry2x32", affects_tracing=True)


def _tracer_repr(value: Any) -> None:
  if value not in ("xjax", "jax"):
    raise ValueError(f"jax_tracer_repr must be 'xjax' or 'jax', got {value!r}")


# How tracers print (core/trace.py): "xjax", Traced<ShapedArray(float32[])>with<JVPTrace>;
# "jax", JAX 0.10's JitTracer(~float32[]), GradTracer(...), VmapTracer(...).
config.define("jax_tracer_repr", os.environ.get("JAX_TRACER_REPR", "xjax"),
              validator=_tracer_repr)
_tracer_repr(config._values["jax_tracer_repr"])
def _only(name: str, supported: Any, why: str) -> Callable[[Any], None]:
  def validate(value: Any) -> None:
    if value != supported:
      raise NotImplementedError(f"xjax does not support {name}={value!r}: {why} "
                                "(see docs/differences.md).")
  return validate


config.define("jax_threefry_partitionable", True, affects_tracing=True)
config.define("jax_debug_key_reuse", False, validator=_only(
    "jax_debug_key_reuse", False, "xjax does not check for reused PRNG keys"))
config.define("jax_high_dynamic_range_gumbel", False, affects_tracing=True)
config.define("jax_random_seed_offset", 0, affects_tracing=True)
config.define("jax_legacy_prng_key", "allow", affects_tracing=True)
config.define("jax_enable_custom_prng", False, affects_tracing=True)
config.define("jax_numpy_dtype_promotion", "standard", affects_tracing=True)
config.define("jax_check_tracer_leaks", False, affects_tracing=True)  # core/leaks.py
# shard_map's check_vma (lax/shard_map.py): without auto_pcast, operands must vary along
# the same mesh axes; remove_size_one_mesh_axis_from_type leaves axes of size 1 out.
config.define("jax_auto_pcast", True, affects_tracing=True)
config.define("jax_remove_size_one_mesh_axis_from_type", False, affects_tracing=True)
# nn.softmax differentiated by its own JVP rule (libraries/nn/softmax.py); reduce_sum of
# float16/bfloat16 over more than one element refused (primitives/lax/reductions.py).
config.define("jax_softmax_custom_jvp", False, affects_tracing=True)
config.define("jax_allow_f16_reductions", True, affects_tracing=True)

# The persistent compilation cache (backend/compilation_cache.py). Unlike JAX it is on
# without a directory being set, and caches every compile (JAX's minimum is 1 s).
config.define("jax_enable_compilation_cache", True)
config.define("jax_persistent_cache_min_compile_time_secs", 0.0)
config.define("jax_persistent_cache_min_entry_size_bytes", 0)
config.define("jax_compilation_cache_max_size", -1)  # bytes; -1: xjax's default, 1 GiB

# Options JAX programs commonly set that do not change xjax's results: accepted (with
# JAX's defaults) so such programs run; docs/differences.md lists them.
for _name, _default in {
    "jax_traceback_filtering": "auto",
    "jax_enable_checks": False, "jax_explain_cache_misses": False,
    "jax_transfer_guard": None,
    "jax_transfer_guard_host_to_device": None, "jax_transfer_guard_device_to_host": None,
    "jax_transfer_guard_device_to_device": None, "jax_cpu_enable_async_dispatch": True,
    "jax_logging_level": "NOTSET",
    "jax_use_shardy_partitioner": True, "jax_traceback_in_locations_limit": 100,
    "jax_include_full_tracebacks_in_locations": True, "jax_pprint_use_color": True,
    "jax_dump_ir_to": "", "jax_optimization_level": "UNKNOWN",
    "jax_memory_fitting_level": "O2", "jax_check_static_indices": False,
    "jax_default_device": None,
    # internal implementation choices of JAX's that do not change results
    "check_vma": False, "jax_use_direct_linearize": True, "jax_mutable_array_checks": True,
    "jax_disable_bwd_checks": False, "jax_disable_vmap_shmap_error": False,
    "jax_disallow_mesh_context_manager": False, "jax_embedded_constants_max_bytes": 32,
    "jax_compiler_enable_remat_pass": True, "jax_exec_time_optimization_effort": 0.0,
    "jax_memory_fitting_effort": 0.0, "jax_xla_profile_version": 0,
    "jax_remove_custom_partitioning_ptr_from_cache_key": False,
    "jax_use_emit_pipeline_primitive": False, "jax_bcoo_cusparse_lowering": False,
    # logging, dumps and diagnostics
    "jax_debug_log_modules": "", "jax_dump_ir_modes": "stablehlo",
    "jax_include_debug_info_in_dumps": True, "jax_compiler_detailed_logging_min_ops": 10,
    "jax_hlo_source_file_canonicalization_regex": None, "jax_source_url_schema": None,
    "jax_tracer_error_num_traceback_frames": 5, "jax_captured_constants_warn_bytes": 2000000000,
    "jax_captured_constants_report_frames": 0, "jax_log_checkpoint_residuals": False,
    "jax_debug_leaked_clients_on_clear_backends": False, "jax_distributed_debug": False,
    "jax_check_proxy_envs": True, "jax_experimental_unsafe_xla_runtime_errors": False,
    # the persistent cache: XLA's own caches, cache keys and errors
    "jax_persistent_cache_enable_xla_caches": "xla_gpu_per_fusion_autotune_cache_dir",
    "jax_compilation_cache_include_metadata_in_key": False,
    "jax_compilation_cache_check_contents": False, "jax_raise_persistent_cache_errors": False,
    # GPU, TPU and Pallas-on-accelerator options (no effect on CPU, in JAX too)
    "jax_cuda_visible_devices": "all", "jax_rocm_visible_devices": "all",
    "jax_oneapi_visible_devices": "all", "mock_num_gpu_processes": 0,
    "jax_mock_gpu_topology": "", "jax_threefry_gpu_kernel_lowering": False,
    "jax_enable_pgle": False, "jax_pgle_profiling_runs": 3, "jax_pgle_aggregation_percentile": 90,
    "jax_compilation_cache_expect_pgle": False, "jax_pallas_use_mosaic_gpu": True,
    "jax_pallas_verbose_errors": False, "jax_pallas_enable_debug_checks": False,
    "jax_pallas_poison_buffers": False, "jax_mosaic_allow_hlo": False,
    "jax_ragged_dot_use_ragged_dot_instruction": True,
    "jax_ragged_dot_use_gpu_pallas_triton_lowering": False,
    # several hosts (xjax runs one host's processes over loopback)
    "jax_backend_target": "", "jax_xla_backend": "", "jax_pjrt_client_create_options": None,
    "jax_cpu_get_local_topology_timeout_minutes": 2,
    "jax_cpu_get_global_topology_timeout_minutes": 5, "jax_enable_recoverability": False,
    "jax_enable_preemption_service": True, "jax_share_binary_between_hosts": False,
    "jax_share_binary_between_hosts_timeout_ms": 1200000,
    "jax_sort_devices_by_process_index": True, "jax_force_dcn_cross_host_transfers": False,
    "jax_cross_host_transfer_socket_address": "", "jax_cross_host_transport_addresses": "",
    "jax_cross_host_transfer_timeout_seconds": None,
    "jax_cross_host_transfer_transfer_size": None,
    # jax2tf (not in xjax) and serialization defaults
    "jax2tf_default_native_serialization": True, "jax_serialization_version": 0,
    "jax_export_ignore_forward_compatibility": False,
}.items():
  config.define(_name, _default)

# Options whose other values would change what programs compute, in ways xjax does not
# implement: only JAX's default is accepted.
for _name, _default, _why in [
    ("jax_cpu_collectives_implementation", "gloo", "collectives between processes use gloo"),
    ("jax_export_calling_convention_version", 10, "jax.export writes calling convention 10"),
    ("jax_error_checking_behavior_nan", "ignore", "jax.experimental.error_check is absent"),
    ("jax_error_checking_behavior_divide", "ignore", "jax.experimental.error_check is absent"),
    ("jax_error_checking_behavior_oob", "ignore", "jax.experimental.error_check is absent"),
    ("jax_disable_most_optimizations", False, "XLA always optimizes xjax's programs"),
    ("jax_use_simplified_jaxpr_constants", False, "jaxprs hold constants as JAX's default"),
    ("jax_scan3", False, "scan is JAX's default implementation"),
    ("jax_remat3", False, "checkpoint is JAX's default implementation"),
    ("jax_custom_vjp3", False, "custom_vjp is JAX's default implementation"),
    ("jax_refs_to_pins", False, "mutable array references are JAX's default ones"),
    ("jax_use_magma", "auto", "eig runs LAPACK on the CPU"),
]:
  config.define(_name, _default, validator=_only(_name, _default, _why))


def _enum(values: list, none_ok: bool = False) -> Callable[[Any], None]:
  """A validator for a flag taking one of ``values`` (or None), with JAX's ValueError."""
  def validate(value: Any) -> None:
    if value in values if isinstance(value, str) else (value is None and none_ok):
      return
    raise ValueError(f"new enum value must be {'None or ' if none_ok else ''}in {values}, "
                     f"got {value} of type {type(value)}.")
  validate.enum_values = values  # (an absl flag's choices)
  return validate


class NumpyDtypePromotion(enum.StrEnum):
  """The values of ``jax_numpy_dtype_promotion`` (equal to their strings)."""
  STANDARD = "standard"
  STRICT = "strict"


class LegacyPrngKeyState(enum.StrEnum):
  """The values of ``jax_legacy_prng_key`` (equal to their strings)."""
  ALLOW = "allow"
  WARN = "warn"
  ERROR = "error"


class ExplicitX64Mode(enum.IntEnum):
  """The values of ``jax_explicit_x64_dtypes`` (a string names its member)."""
  WARN = enum.auto()
  ERROR = enum.auto()
  ALLOW = enum.auto()

  @classmethod
  def _missing_(cls, value: object) -> "ExplicitX64Mode | None":
    return {"warn": cls.WARN, "error": cls.ERROR, "allow": cls.ALLOW}.get(value)


class RuntimeTracebackMode(enum.StrEnum):
  """The values of ``jax_send_traceback_to_runtime`` (accepted; no effect on the CPU)."""
  OFF = "off"
  ON = "on"
  FULL = "full"


def _enum_class(name: str, cls: type[enum.Enum], default: Any = None,
                extra: Callable[[Any], None] | None = None, affects_tracing: bool = False) -> None:
  """Makes flag ``name`` hold members of ``cls`` (a string names its member); ``extra``
  checks the member further.  ``default`` defines the flag."""
  def validate(value: Any) -> None:
    if not isinstance(value, (str, cls)):
      raise TypeError(f"new enum value must be an instance of <enum '{cls.__name__}'>, got "
                      f"{value} of type {type(value)}.")
    member = cls(value)  # (ValueError: "'bad' is not a valid NumpyDtypePromotion")
    if extra is not None:
      extra(member)
  if default is not None:
    config.define(name, default, affects_tracing)
  config.add_validator(name, validate)
  config._enums[name] = cls
  config._values[name] = cls(config._values[name])
  config._refresh_trace_key()


def _typed(kind: type) -> Callable[[Any], None]:
  """A validator for an int, float or str flag (or None), with JAX's ValueError."""
  def validate(value: Any) -> None:
    if value is not None and not isinstance(value, kind):
      kind_name = "string" if kind is str else kind.__name__
      raise ValueError(f"new {kind_name} config value must be None or of type "
                       f"{kind.__name__}, got {value} of type {type(value)}"
                       + ("." if kind is str else ""))
  validate.kind = kind  # (an absl flag's type)
  return validate


_GUARDS = ["allow", "log", "disallow", "log_explicit", "disallow_explicit"]
_LEVELS = ["UNKNOWN", "O0", "O1", "O2", "O3"]
for _name, _validator in {  # the value checks JAX 0.10.2 makes
    "jax_numpy_rank_promotion": _enum(["allow", "warn", "raise"]),
    "jax_default_matmul_precision": _enum(
        ["default", "high", "highest", "bfloat16", "tensorfloat32", "float32",
         "ANY_F8_ANY_F8_F32", "ANY_F8_ANY_F8_F32_FAST_ACCUM", "ANY_F8_ANY_F8_ANY",
         "ANY_F8_ANY_F8_ANY_FAST_ACCUM", "F16_F16_F16", "F16_F16_F32", "BF16_BF16_BF16",
         "BF16_BF16_F32", "BF16_BF16_F32_X3", "BF16_BF16_F32_X6", "BF16_BF16_F32_X9",
         "TF32_TF32_F32", "TF32_TF32_F32_X3", "F32_F32_F32", "F64_F64_F64"], none_ok=True),
    "jax_default_prng_impl": _enum(["threefry2x32", "threefry4x32", "rbg", "unsafe_rbg",
                                    "philox2x32", "philox4x32"]),
    "jax_traceback_filtering": _enum(["off", "tracebackhide", "remove_frames",
                                      "quiet_remove_frames", "auto"]),
    "jax_transfer_guard": _enum(_GUARDS, none_ok=True),
    "jax_transfer_guard_host_to_device": _enum(_GUARDS, none_ok=True),
    "jax_transfer_guard_device_to_host": _enum(_GUARDS, none_ok=True),
    "jax_transfer_guard_device_to_device": _enum(_GUARDS, none_ok=True),
    "jax_logging_level": _enum(["NOTSET", "DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"],
                               none_ok=True),
    "jax_optimization_level": _enum(_LEVELS), "jax_memory_fitting_level": _enum(_LEVELS),
    "jax_platforms": _typed(str), "jax_compilation_cache_dir": _typed(str),
    "jax_num_cpu_devices": _typed(int), "jax_random_seed_offset": _typed(int),
    "jax_persistent_cache_min_entry_size_bytes": _typed(int),
    "jax_compilation_cache_max_size": _typed(int),
    "jax_traceback_in_locations_limit": _typed(int),
    "jax_persistent_cache_min_compile_time_secs": _typed(float),
}.items():
  config.add_validator(_name, _validator)
_enum_class("jax_numpy_dtype_promotion", NumpyDtypePromotion)
_enum_class("jax_legacy_prng_key", LegacyPrngKeyState)
_enum_class("jax_send_traceback_to_runtime", RuntimeTracebackMode, "off")


def _explicit_x64_dtypes(value: ExplicitX64Mode) -> None:
  if value == ExplicitX64Mode.ALLOW:
    raise NotImplementedError(
        "xjax does not support jax_explicit_x64_dtypes='allow': without jax_enable_x64 every "
        "64-bit dtype is narrowed to 32 bits; turn on jax_enable_x64 instead "
        "(see docs/differences.md).")


# An explicitly requested 64-bit dtype without x64: 'warn' narrows it with a warning, 'error'
# raises ValueError (foundations/dtypes.py).
_enum_class("jax_explicit_x64_dtypes", ExplicitX64Mode, "warn", extra=_explicit_x64_dtypes,
            affects_tracing=True)


def enable_x64() -> bool:
  return config._values["jax_enable_x64"]


def enable_x64_context(value: bool = True):
  """Context manager that sets ``jax_enable_x64`` (``jax.experimental.enable_x64``)."""
  return config._override("jax_enable_x64", value)


def disable_jit(disable: bool = True):
  """Context manager that runs jitted functions op by op (``jax.disable_jit``)."""
  return config._override("jax_disable_jit", disable)


def log_compiles(value: bool = True):
  return config._override("jax_log_compiles", value)


class UserContext:
  """``with user_config(value):``: the value inside the block (``jax.make_user_context``)."""
  __slots__ = ("_config", "_new_value")

  def __init__(self, config_: "UserConfig", new_value: Any) -> None:
    self._config, self._new_value = config_, new_value

  def __enter__(self) -> None:
    hash(self._new_value)  # part of jit's cache key: unhashable values fail here
    self._config._locals.append(self._new_value)
    self._config._refresh()

  def __exit__(self, *exc) -> None:
    self._config._locals.pop()
    self._config._refresh()


class UserConfig:
  """A value that is part of every jit cache key: changing it re-traces jitted functions
  (``jax.make_user_context``).  ``with c(value):`` sets it for a block, ``set_global`` outside
  any block."""

  def __init__(self, default_value: Any = None) -> None:
    hash(default_value)
    self._flag = f"user_context_{len(_user_contexts)}"
    _user_contexts.append(self)
    self._global, self._locals = default_value, []
    config.define(self._flag, default_value, affects_tracing=True)

  @property
  def value(self) -> Any:
    return config._values[self._flag]

  def get_global(self) -> Any:
    return self._global

  def set_global(self, new_value: Any) -> None:
    hash(new_value)
    self._global = new_value
    self._refresh()

  def __call__(self, new_value: Any) -> UserContext:
    return UserContext(self, new_value)

  def _refresh(self) -> None:
    config.update(self._flag, self._locals[-1] if self._locals else self._global)


_user_contexts: list = []


def make_user_context(default_value: Any = None) -> UserConfig:
  """A jit-cache-sensitive context: jitted functions called under another value of it are
  traced, lowered and compiled again."""
  return UserConfig(default_value)
