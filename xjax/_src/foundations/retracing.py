"""Explaining retraces of jitted functions.

With ``jax_explain_cache_misses`` each retrace logs which argument changed (shape, dtype,
weak type, static value, tree structure) and where the function is defined.  Beyond JAX,
a one-time notice on the "xjax" logger (level WARNING, so it reaches stderr without any
logging set up) names the changing argument once a function has been traced more than
``xjax_retrace_warning_threshold`` (default 10) times: retracing on every call is the most
common silent performance bug in JAX code.  It is a log record, not a Python warning, so
programs that turn warnings into errors (pytest's ``filterwarnings = error``) behave as on
JAX.  Runs only on cache misses.
"""
from __future__ import annotations

import logging
import os

from xjax._src.foundations import errors
from xjax._src.foundations.config import config

logger = logging.getLogger("xjax")
_XJAX_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

config.define("xjax_retrace_warning_threshold", 10)


def explain(cache: dict, key: tuple, fun_name: str, fun_src: str, arg_names,
            warned: set) -> None:
  """Called before tracing ``key`` (a miss); ``cache`` holds the keys traced before."""
  explain_on = config._read("jax_explain_cache_misses")
  threshold = config._read("xjax_retrace_warning_threshold")
  retraced = (threshold is not None and len(cache) >= threshold and id(cache) not in warned
              and not fun_src.startswith(_XJAX_DIR))  # xjax's own helpers retrace by design
  if not explain_on and not retraced:
    return
  reasons = _differences(cache, key, arg_names)
  if explain_on:
    where = errors.user_frame(3)
    if not cache:
      logger.warning("TRACING CACHE MISS at %s:\n  never seen function:\n    %s defined at "
                     "%s", where, fun_name, fun_src)
    else:
      logger.warning("TRACING CACHE MISS at %s:\n  for %s defined at %s\n  all previously "
                     "seen cache keys differ. For the closest previous key:\n%s", where,
                     fun_name, fun_src, "\n".join(f"  * {r}" for r in reasons))
  if retraced:
    warned.add(id(cache))
    logger.warning(
        "xjax: the jitted function %s (defined at %s) has been traced %d times; each trace "
        "recompiles. The latest retrace happened because %s. Pass values that change as "
        "array arguments rather than static ones, keep shapes and dtypes fixed (pad "
        "batches), set jax_explain_cache_misses to log every retrace, or "
        "xjax_retrace_warning_threshold to None to silence this.", fun_name, fun_src,
        len(cache) + 1, "; ".join(reasons) or "the arguments differ")


def _differences(cache: dict, key: tuple, arg_names) -> list[str]:
  """What differs between ``key`` and the closest previously traced key."""
  if not cache:
    return []
  in_tree, avals, statics, static_kw, trace_key = key
  best = None
  for old in reversed(list(cache)):  # the most recent of the closest keys
    reasons = _compare(old, key, arg_names)
    if best is None or len(reasons) < len(best):
      best = reasons
  return best


def _compare(old, new, arg_names) -> list[str]:
  o_tree, o_avals, o_statics, o_kw, o_trace = old
  n_tree, n_avals, n_statics, n_kw, n_trace = new
  out = []
  if o_tree != n_tree:
    out.append(f"different input pytree: now {n_tree[1]} and before {o_tree[1]}")
    return out
  for i, (a, b) in enumerate(zip(n_avals, o_avals)):
    if a != b:
      name = arg_names[i] if i < len(arg_names) else f"args[{i}]"
      what = "weak type" if (a.shape, a.dtype) == (b.shape, b.dtype) else "type"
      out.append(f"different input {what} at {name}, now {_aval(a)} and before {_aval(b)}")
  for (i, a), (_, b) in zip(n_statics, o_statics):
    if a != b:
      out.append(f"different static argument at position {i}, now {a!r} and before {b!r}")
  for (k, a), (_, b) in zip(n_kw, o_kw):
    if a != b:
      out.append(f"different static argument {k}, now {a!r} and before {b!r}")
  if len(n_statics) != len(o_statics) or [k for k, _ in n_kw] != [k for k, _ in o_kw]:
    out.append("different static arguments")
  if o_trace != n_trace:  # (the configuration, with the sizes of the bound axes after it)
    o_cfg, n_cfg = (t[0] if _with_axes(t) else t for t in (o_trace, n_trace))
    if o_cfg != n_cfg:
      out.append("different configuration (e.g. jax_enable_x64)")
    else:
      sizes = lambda t: list(t[1]) if _with_axes(t) else []  # noqa: E731
      out.append(f"different mapped axes around the call (vmap or shard_map: (name, size) "
                 f"pairs), now {sizes(n_trace)} and before {sizes(o_trace)}")
  return out


def _with_axes(trace_key) -> bool:
  """Whether a cache key's trace part is (configuration, the (name, size) of each axis
  bound around the call), not the configuration alone."""
  return (len(trace_key) == 2 and isinstance(trace_key[1], tuple) and
          all(isinstance(a, tuple) and len(a) == 2 for a in trace_key[1]))


def _aval(a) -> str:
  return a.str_short(short_dtypes=True) + (" (weak)" if a.weak_type else "")
