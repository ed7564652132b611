"""What can be a host value (see ``host_eval.py``): where, which dtypes and sizes, and the
subnormal floats XLA:CPU reads as zeros."""
from __future__ import annotations

import numpy as np

from xjax._src.backend import clients
from xjax._src.foundations.config import config

# Arrays of at most this many elements are kept on the host; larger ones go to the device,
# where XLA's threads and fusion pay for the dispatch.
HOST_MAX_SIZE = 4096
# Eager calls of an operation (a primitive, or a library function on host kernels) whose
# small device operands are copied to the host before its compiled program is made.
FETCHES_BEFORE_COMPILING = 64
# Host values are floats of these dtypes, integers and booleans. (Half-precision floats and
# complex numbers round or flush differently; they stay on the device.)
TINY = {np.dtype(np.float32): float(np.finfo(np.float32).tiny),
         np.dtype(np.float64): float(np.finfo(np.float64).tiny)}
HOST_DTYPES = frozenset([*TINY, *map(np.dtype, (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
    np.uint64))])

_state: dict = {}  # "on": whether the default device is the process's only one, a CPU,
clients.register_backend_cache(_state)  # and execution is allowed (jax_no_execution)
config.on_change("jax_default_device", lambda _: _state.clear())
config.on_change("jax_no_execution", lambda _: _state.clear())


def enabled() -> bool:
  """Whether values may live and be computed on the host: the only device is a CPU, and
  execution is allowed (under jax_no_execution every computation is refused as a compiled
  one is)."""
  if clients.several_devices:
    return False
  on = _state.get("on")
  if on is None:
    on = _state["on"] = (clients.default_device().platform == "cpu"
                         and not config._read("jax_no_execution"))
  return on


def scan_floats(value: np.ndarray) -> tuple[bool, bool]:
  """(whether a float array holds subnormals -- nonzero values smaller in magnitude than
  its dtype's smallest normal number --, whether it holds NaNs), in one pass."""
  tiny = TINY[value.dtype]
  if value.size > 24:
    magnitude = np.abs(value)
    return (bool(((magnitude < tiny) & (magnitude > 0)).any()),
            bool(np.isnan(magnitude).any()))
  # (quicker than NumPy's reductions on a few values)
  values = value.tolist() if value.ndim == 1 else value.ravel().tolist()
  for v in values:  # the common case first: every value normal, infinite or zero
    if not (v >= tiny or v <= -tiny or v == 0):  # (a NaN fails each comparison)
      break
  else:
    return False, False
  return (any(-tiny < v < tiny and v for v in values), any(v != v for v in values))


def has_subnormals(value: np.ndarray) -> bool:
  """Whether a float array holds subnormals (``scan_floats``' first answer, without its
  search for NaNs on larger arrays)."""
  if value.size <= 24:
    return scan_floats(value)[0]
  small = np.abs(value) < TINY[value.dtype]  # (zeros and subnormals; count_nonzero is the
  return bool(np.count_nonzero(small)) and bool(np.count_nonzero(value[small]))  # quickest)


def usable(value: np.ndarray) -> bool:
  """Whether a host array can be a host value: small, of a host dtype, and without the
  subnormal floats XLA:CPU would read as zeros."""
  return (value.dtype in HOST_DTYPES and value.size <= HOST_MAX_SIZE
          and (value.dtype not in TINY or not has_subnormals(value)))
