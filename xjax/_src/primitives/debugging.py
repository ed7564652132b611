"""``xjax.debug``: printing and inspecting runtime values from transformed code.

``debug.print`` formats with ``str.format`` when the computation runs (specs such as
``{x:.3f}`` apply to the values); the format string is checked when tracing, so a missing
or unused argument fails at once.  Both are built on the ``debug_callback`` primitive.
"""
from __future__ import annotations

import logging
import string
import sys
from typing import Any, Callable

import numpy as np

from xjax._src.foundations import tree_util
from xjax._src.backend import clients, hlo_sharding
from xjax._src.primitives.callback import debug_callback
from xjax._src.core import effects as fx
from xjax._src.core.trace import Primitive
from xjax._src.foundations.sharding import (NamedSharding, PartitionSpec, SingleDeviceSharding,
                                            TiledSharding, sharding_from_tiling)

logger = logging.getLogger(__name__)  # where ``debug.log`` sends its records


class _FormatChecker(string.Formatter):
  """Parses and resolves every field without formatting values: missing names and indices
  raise KeyError/IndexError as ``str.format`` would, unused arguments ValueError."""

  def format_field(self, value, format_spec):
    return ""

  def check_unused_args(self, used_args, args, kwargs):
    unused_args = [a for i, a in enumerate(args) if i not in used_args]
    unused_kwargs = [k for k in kwargs if k not in used_args]
    if unused_args:
      raise ValueError(f"Unused positional arguments to `jax.debug.print`: {unused_args}")
    if unused_kwargs:
      raise ValueError(
          f"Unused keyword arguments to `jax.debug.print`: {unused_kwargs}. You may be "
          "passing an f-string (i.e, `f\"{x}\"`) into `jax.debug.print` and instead should "
          "pass in a regular string.")


_checker = _FormatChecker()


def _host_value(x):
  """Arrays print as NumPy does (``[0 1 2]``); 0-d ones accept scalar format specs."""
  if hasattr(x, "__array__") and not isinstance(x, (str, bytes)):
    value = np.asarray(x)
    return value[()] if value.ndim == 0 else value
  return x


def debug_print(fmt: str, *args: Any, ordered: bool = False, **kwargs: Any) -> None:
  """Prints ``fmt.format(*args, **kwargs)`` with the values the arrays hold when the
  computation runs (``jax.debug.print``); ``ordered=True`` keeps program order across
  functions and calls."""
  if not isinstance(fmt, str):
    raise TypeError(f"jax.debug.print expects a format string, got {type(fmt).__name__}")
  _checker.format(fmt, *args, **kwargs)

  def emit(*host_args, **host_kwargs):
    pos = [_host_value(a) for a in host_args]
    kw = {k: _host_value(v) for k, v in host_kwargs.items()}
    sys.stdout.write(fmt.format(*pos, **kw) + "\n")
    sys.stdout.flush()

  debug_callback(emit, *args, ordered=ordered, **kwargs)


def _has_placeholders(fmt: str) -> bool:
  """Whether ``fmt`` starts with text then a replacement field, as JAX decides whether to
  format or to join the arguments after it."""
  return bool(fmt) and next(iter(string.Formatter().parse(fmt)))[1] is not None


def debug_log(fmt: str | None = None, *args: Any, ordered: bool = False,
              partitioned: bool = False, skip_format_check: bool = False,
              **kwargs: Any) -> Callable[..., None] | None:
  """As ``debug.print``, but each message is an INFO record of the logging module (logger
  ``xjax._src.primitives.debugging``) located at the caller's line (``jax.debug.log``).  Without
  ``fmt`` it returns the function taking the format and values, so options come first:
  ``debug.log(ordered=True)("x={}", x)``."""
  def log(fmt: str, *args: Any, **kwargs: Any) -> None:
    if not isinstance(fmt, str):
      raise TypeError(f"jax.debug.log expects a format string, got {type(fmt).__name__}")
    if not skip_format_check:
      _checker.format(fmt, *args, **kwargs)
    caller = sys._getframe(2 if fmt_given else 1)
    record = logger.makeRecord(logger.name, logging.INFO, caller.f_code.co_filename,
                               caller.f_lineno, "", (), None)
    placeholders = _has_placeholders(fmt)

    def emit(*host_args, **host_kwargs):
      pos = [_host_value(a) for a in host_args]
      if placeholders:
        record.msg = fmt.format(*pos, **{k: _host_value(v) for k, v in host_kwargs.items()})
      else:
        record.msg = " ".join((fmt, *map(str, pos)))
      logger.handle(record)

    debug_callback(emit, *args, ordered=ordered, partitioned=partitioned, **kwargs)

  fmt_given = fmt is not None
  if fmt_given:
    return log(fmt, *args, **kwargs)
  if args or kwargs:
    raise TypeError(f"debug_log received unexpected arguments in the two-call form: "
                    f"args={args} kwargs={kwargs}")
  return log


# ---------------------------------------------------------------------------------------
# inspect_array_sharding: the layout of a value, eagerly or as the compiler chooses it

def _inspect_lowering(ctx, x, *, callback):
  module, aval = ctx.module, ctx.avals_in[0]
  if module.manual:  # inside shard_map, where values are per-device blocks
    callback(NamedSharding(module.manual[-1], PartitionSpec()))
  elif not module.logical:  # a program on one device
    callback(SingleDeviceSharding(clients.default_device()))
  else:  # XLA's partitioner reports the layout it chose
    mesh = module.mesh

    def chosen(tiling):
      callback(TiledSharding(tiling) if mesh is None else
               sharding_from_tiling(tiling, mesh, aval.ndim))
    config = hlo_sharding.inspect_sharding_config(
        chosen, sorted(module.logical, key=module.logical.get), aval.ndim)
    ctx.op("stablehlo.custom_call", [x], aval, {
        "call_target_name": '"InspectSharding"', "has_side_effect": "true",
        "api_version": "1 : i32", "backend_config": f'"{config}"'})
  return []


def _inspect_impl(x, *, callback):
  callback(x.sharding)
  return []


inspect_sharding_p = Primitive("inspect_sharding", multiple_results=True)
inspect_sharding_p.abstract_eval = lambda aval, **_: []
inspect_sharding_p.effects = lambda **_: (fx.debug_effect,)  # never dropped as dead code
inspect_sharding_p.impl = _inspect_impl
inspect_sharding_p.lowering = _inspect_lowering
inspect_sharding_p.jvp = lambda primals, tangents, **params: (
    inspect_sharding_p.bind(*primals, **params), [])
inspect_sharding_p.transpose = lambda cts, x, **params: [None]
inspect_sharding_p.batch = lambda axis, args, dims, **params: (
    inspect_sharding_p.bind(*args, **params), [])


def inspect_array_sharding(value, *, callback: Callable) -> None:
  """Calls ``callback`` with the sharding of each array in ``value``: eagerly its
  sharding, under ``jit`` the layout the compiler chose (when the program is compiled)."""
  for leaf in tree_util.tree_leaves(value):
    inspect_sharding_p.bind(leaf, callback=callback)


def breakpoint(*, backend=None, filter_frames: bool = True, num_frames=None,
               ordered: bool = False, token=None, **kwargs) -> Any:
  """A simple ``jax.debug.breakpoint``: when the computation runs, prints the runtime values
  of the arrays passed as keyword arguments and opens Python's debugger (``pdb``) at the
  caller's frame.  JAX's debugger also lists traced frames' values; this one shows only
  the keyword arguments (see docs/differences.md)."""
  caller = sys._getframe(1)

  def stop(**values):
    import pdb
    debugger = pdb.Pdb()
    debugger.reset()
    where = f"{caller.f_code.co_filename}:{caller.f_lineno}"
    shown = "".join(f"\n  {k} = {_host_value(v)}" for k, v in values.items())
    debugger.message(f"xjax.debug.breakpoint at {where}{shown}")
    debugger.interaction(caller, None)

  debug_callback(stop, ordered=ordered, **kwargs)
  return token
