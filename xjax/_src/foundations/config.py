"""Global configuration flags (``xjax.config``), mirroring JAX's ``jax.config``.

Flags are read from the environment at import (``JAX_ENABLE_X64=1``) and changed with
``config.update(name, value)`` or the context managers of the same name.  Flags that
change what tracing produces are part of every jit cache key (``trace_state_key``).
"""
from __future__ import annotations

import contextlib
import enum
import os
from typing import Any, Callable


def _bool_env(name: str, default: bool) -> bool:
  value = os.environ.get(name)
  if value is None:
    return default
  return value.strip().lower() in ("1", "true", "t", "yes", "y", "on")


class Config:
  """Holds the flag values; ``update`` validates the name."""

  def __init__(self) -> None:
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

  def update(self, name: str, value: Any) -> None:
    if name not in self._values:
      raise AttributeError(f"Unrecognized config option: {name}")
    if name in self._validators:
      self._validators[name](value)
    if name in self._enums:
      value = self._enums[name](value)
    self._values[name] = value
    self._refresh_trace_key()
    for listener in self._listeners.get(name, ()):
      listener(value)

  def add_validator(self, name: str, validator: Callable[[Any], None]) -> None:
    self._validators[name] = validator

  def on_change(self, name: str, listener: Callable[[Any], None]) -> None:
    self._listeners.setdefault(name, []).append(listener)

  def read(self, name: str) -> Any:
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
    "jax_softmax_custom_jvp": False, "jax_transfer_guard": None,
    "jax_transfer_guard_host_to_device": None, "jax_transfer_guard_device_to_host": None,
    "jax_transfer_guard_device_to_device": None, "jax_cpu_enable_async_dispatch": True,
    "jax_logging_level": "NOTSET", "jax_allow_f16_reductions": True,
    "jax_use_shardy_partitioner": True, "jax_traceback_in_locations_limit": 100,
    "jax_include_full_tracebacks_in_locations": True, "jax_pprint_use_color": True,
    "jax_dump_ir_to": "", "jax_optimization_level": "UNKNOWN",
    "jax_memory_fitting_level": "O2", "jax_check_static_indices": False,
    "jax_default_device": None,
}.items():
  config.define(_name, _default)


def _enum(values: list, none_ok: bool = False) -> Callable[[Any], None]:
  """A validator for a flag taking one of ``values`` (or None), with JAX's ValueError."""
  def validate(value: Any) -> None:
    if value in values if isinstance(value, str) else (value is None and none_ok):
      return
    raise ValueError(f"new enum value must be {'None or ' if none_ok else ''}in {values}, "
                     f"got {value} of type {type(value)}.")
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


def _enum_class(name: str, cls: type[enum.StrEnum]) -> None:
  """Makes flag ``name`` hold members of ``cls`` (a string names its member)."""
  def validate(value: Any) -> None:
    if not isinstance(value, str):
      raise TypeError(f"new enum value must be an instance of <enum '{cls.__name__}'>, got "
                      f"{value} of type {type(value)}.")
    cls(value)  # (ValueError: "'bad' is not a valid NumpyDtypePromotion")
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
