"""jax_debug_nans / jax_debug_infs: every result checked on the host (slow; for debugging)."""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes, errors
from xjax._src.foundations.config import config

_debug = {"nans": config._read("jax_debug_nans"), "infs": config._read("jax_debug_infs")}
config.on_change("jax_debug_nans", lambda v: _debug.__setitem__("nans", bool(v)))
config.on_change("jax_debug_infs", lambda v: _debug.__setitem__("infs", bool(v)))


def checks_results() -> bool:
  """Whether results are checked for NaNs or infinities (jax_debug_nans/jax_debug_infs)."""
  return _debug["nans"] or _debug["infs"]


def check_special_values(name: str, outs) -> None:
  for out in outs:
    if not dtypes.is_inexact(out.dtype):
      continue
    value = np.asarray(out)
    if _debug["nans"] and np.isnan(value).any():
      raise FloatingPointError(f"invalid value (nan) encountered in {name}\n"
                               f"  at {errors.user_frame()}")
    if _debug["infs"] and np.isinf(value).any():
      raise FloatingPointError(f"invalid value (inf) encountered in {name}\n"
                               f"  at {errors.user_frame()}")
