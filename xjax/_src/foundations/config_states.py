"""Config flags as objects (`jax.enable_x64`, `jax.debug_nans`, ...): ``.value`` reads the
flag, calling one with a value gives a context manager that sets it for a block."""
from __future__ import annotations

import contextlib
from typing import Any

from xjax._src.foundations.config import config


class ConfigState:
  """One config flag; ``with state(value): ...`` overrides it inside the block."""

  def __init__(self, flag: str) -> None:
    self.flag = flag

  @property
  def value(self) -> Any:
    return config.read(self.flag)

  def __call__(self, new_val: Any = True):
    return config._override(self.flag, new_val)

  def __repr__(self) -> str:
    return f"ConfigState({self.flag}={self.value!r})"


# Flags JAX exposes as states that the config does not define yet (accepted, no effect).
for _flag, _default in {"jax_jax2tf_associative_scan_reductions": False,
                        "jax_thread_guard": False,
                        "jax_array_garbage_collection_guard": None}.items():
  if _flag not in config._values:
    config.define(_flag, _default)

_STATES = """enable_x64 debug_nans debug_infs log_compiles numpy_rank_promotion
numpy_dtype_promotion default_matmul_precision transfer_guard_host_to_device
transfer_guard_device_to_host transfer_guard_device_to_device check_tracer_leaks
explain_cache_misses softmax_custom_jvp default_prng_impl threefry_partitionable enable_checks
legacy_prng_key enable_custom_prng debug_key_reuse allow_f16_reductions
jax2tf_associative_scan_reductions thread_guard array_garbage_collection_guard no_tracing
no_execution auto_pcast remove_size_one_mesh_axis_from_type""".split()

STATES = {name: ConfigState("jax_" + name) for name in _STATES}


@contextlib.contextmanager
def transfer_guard(new_val: str):
  """Sets all three transfer guards (host->device, device->host, device->device)."""
  with contextlib.ExitStack() as stack:
    for kind in ("host_to_device", "device_to_host", "device_to_device"):
      stack.enter_context(STATES[f"transfer_guard_{kind}"](new_val))
    yield


def checking_leaks():
  """``check_tracer_leaks(True)`` as a context manager."""
  return STATES["check_tracer_leaks"](True)
