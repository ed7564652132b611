"""Config flags as objects (`jax.enable_x64`, `jax.debug_nans`, ...): ``.value`` reads the
flag, calling one with a value gives a context manager that sets it for a block."""
from __future__ import annotations

import contextlib
from typing import Any

from xjax._src.foundations.config import config


class ConfigState:
  """One config flag; ``with state(value): ...`` overrides it inside the block."""

  def __init__(self, flag: str, doc: str | None = None) -> None:
    self.flag = flag
    if doc is not None:
      self.__doc__ = doc  # (``help(jax.enable_x64)`` and the API reference show it)

  @property
  def value(self) -> Any:
    return config._read(self.flag)

  def __call__(self, new_val: Any = True):
    return config._override(self.flag, new_val)

  def __repr__(self) -> str:
    return f"ConfigState({self.flag}={self.value!r})"


# Flags JAX exposes as states that the config does not define yet (accepted, no effect).
for _flag, _default in {"jax2tf_associative_scan_reductions": False,
                        "jax_thread_guard": False,
                        "jax_array_garbage_collection_guard": None}.items():
  if _flag not in config._values:
    config.define(_flag, _default)

# Each flag JAX exposes as ``jax.<name>`` (flag ``jax_<name>``), with what it does.
_DESCRIPTIONS = {
    "enable_x64": "64-bit types: float64, int64, uint64 and complex128 are kept rather than "
                  "narrowed to their 32-bit kinds.",
    "debug_nans": "Raise FloatingPointError, naming the primitive, when a computation "
                  "produces a NaN (re-running a jitted function op by op to find it).",
    "debug_infs": "As `debug_nans`, for infinities.",
    "log_compiles": "Log (at WARNING) each program compiled, naming its function.",
    "numpy_rank_promotion": "Operands of different ranks in `jax.numpy`: 'allow' broadcasts "
                            "them, 'warn' warns, 'raise' raises ValueError.",
    "numpy_dtype_promotion": "'standard' promotes mixed dtypes by JAX's lattice; 'strict' "
                             "raises on any implicit promotion.",
    "default_matmul_precision": "The precision of matrix products and convolutions whose "
                                "`precision=` is None ('bfloat16', 'tensorfloat32', "
                                "'float32', ...).",
    "transfer_guard_host_to_device": "Host-to-device transfers: 'allow', 'log', 'disallow', "
                                     "or their '_explicit' forms.",
    "transfer_guard_device_to_host": "Device-to-host transfers, as `transfer_guard_host_to_"
                                     "device`.",
    "transfer_guard_device_to_device": "Device-to-device transfers, as "
                                       "`transfer_guard_host_to_device`.",
    "check_tracer_leaks": "Raise when a tracer outlives the transformation that made it.",
    "explain_cache_misses": "Log why a jitted function is traced again (which argument's type "
                            "or which static value changed).",
    "softmax_custom_jvp": "Differentiate `nn.softmax`/`log_softmax` by their custom JVP rule.",
    "default_prng_impl": "The PRNG of `random.key`/`PRNGKey`: 'threefry2x32', 'rbg' or "
                         "'unsafe_rbg'.",
    "threefry_partitionable": "Threefry's counter layout that partitions over devices (JAX's "
                              "default); False gives the original layout's bits.",
    "enable_checks": "Extra internal consistency checks while tracing (slower).",
    "legacy_prng_key": "Raw uint32 keys passed to `jax.random`: 'allow', 'warn' or 'error'.",
    "enable_custom_prng": "Typed key arrays print and convert as JAX's custom-PRNG mode does.",
    "debug_key_reuse": "Raise KeyReuseError when a typed PRNG key is consumed twice.",
    "allow_f16_reductions": "Accepted for JAX's configuration; float16 reductions always "
                            "accumulate in float32.",
    "jax2tf_associative_scan_reductions": "Accepted for JAX's configuration (jax2tf's); no "
                                          "effect in xjax.",
    "thread_guard": "Accepted for JAX's configuration; no effect in xjax.",
    "array_garbage_collection_guard": "Accepted for JAX's configuration; no effect in xjax.",
    "no_tracing": "Raise when a function is traced (to find unintended retracing).",
    "no_execution": "Raise when a program would run (to check code only traces).",
    "auto_pcast": "Insert `pcast`s implicitly inside `shard_map` bodies checked with "
                  "`check_vma`.",
    "remove_size_one_mesh_axis_from_type": "Leave mesh axes of size 1 out of sharded types.",
}

# (jax2tf's flag is the one whose name does not start with "jax_")
STATES = {name: ConfigState(name if name.startswith("jax2tf") else "jax_" + name, doc)
          for name, doc in _DESCRIPTIONS.items()}
globals().update(STATES)  # module attributes too: where tools (the API reference) find them


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
