"""``xjax.debug``: printing and inspecting runtime values from transformed code.

``debug.print`` formats with ``str.format`` when the computation runs (specs such as
``{x:.3f}`` apply to the values); the format string is checked when tracing, so a missing
or unused argument fails at once.  Both are built on the ``debug_callback`` primitive.
"""
from __future__ import annotations

import copy
import logging
import string
import sys
from typing import Any, Callable

import numpy as np

from xjax._src.foundations import dtypes, tree_util
from xjax._src.backend import clients, hlo_sharding
from xjax._src.primitives.callback import (debug_callback, debug_primitive,
                                             merge_callback_args, split_callback_args)
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
  """Arrays print as NumPy does (``[0 1 2]``); 0-d ones accept scalar format specs. Arrays
  of extended dtypes (typed PRNG keys) print as themselves."""
  if dtypes.is_extended(getattr(x, "dtype", None)):
    return x
  if hasattr(x, "__array__") and not isinstance(x, (str, bytes)):
    value = np.asarray(x)
    return value[()] if value.ndim == 0 else value
  return x


def _print_callback(params) -> Callable:
  """The host function of a ``debug_print`` equation: formats its values (under the NumPy
  print options in effect when it was traced) and prints them, or logs them as the
  equation's ``logging_record``."""
  fmt, placeholders, record = params["fmt"], params["has_placeholders"], params["logging_record"]
  options = dict(params["np_printoptions"])

  def emit(*values):
    args, kwargs = merge_callback_args(params["in_tree"], values, dict(params["static_args"]))
    with np.printoptions(**options):
      if placeholders:
        msg = fmt.format(*map(_host_value, args),
                         **{k: _host_value(v) for k, v in kwargs.items()})
      else:  # (values after text without fields are joined to it, as JAX does)
        msg = " ".join((fmt, *(str(_host_value(a)) for a in args)))
    if record is None:
      sys.stdout.write(msg + "\n")
      sys.stdout.flush()
    else:
      logged = copy.copy(record)
      logged.msg = msg
      logger.handle(logged)
    return ()
  return emit


debug_print_p = debug_primitive(
    "debug_print", _print_callback,
    lambda params: fx.ordered_debug_effect if params["ordered"] else fx.debug_effect)


def debug_print(fmt: str | None = None, *args: Any, ordered: bool = False,
                partitioned: bool = False, skip_format_check: bool = False,
                _use_logging: bool = False, **kwargs: Any) -> Callable[..., None] | None:
  """Prints ``fmt.format(*args, **kwargs)`` with the values the arrays hold when the
  computation runs (``jax.debug.print``); ``ordered=True`` keeps program order across
  functions and calls.  Without ``fmt`` it returns the function taking the format and
  values, so options come first: ``debug.print(ordered=True)("x={}", x)``."""
  def _debug_print(fmt: str, *c_args: Any, **c_kwargs: Any) -> None:
    if not isinstance(fmt, str):
      raise TypeError(f"jax.debug.print expects a format string, got {type(fmt).__name__}")
    if not skip_format_check:
      _checker.format(fmt, *c_args, **c_kwargs)
    record = None
    if _use_logging:
      caller = sys._getframe(1)
      while caller.f_code.co_filename == __file__:  # (the user's frame: the record's place)
        caller = caller.f_back
      record = logger.makeRecord(logger.name, logging.INFO, caller.f_code.co_filename,
                                 caller.f_lineno, "", (), None)
    in_tree, dynamic, static = split_callback_args(c_args, c_kwargs)
    debug_print_p.bind(*dynamic, fmt=fmt, ordered=bool(ordered),
                       partitioned=bool(partitioned), in_tree=in_tree,
                       static_args=tuple(static.items()),
                       np_printoptions=tuple(np.get_printoptions().items()),
                       has_placeholders=_has_placeholders(fmt), logging_record=record)

  fmt_given = fmt is not None
  if fmt_given:
    return _debug_print(fmt, *args, **kwargs)
  if args or kwargs:
    raise TypeError(f"debug_print received unexpected arguments in the two-call form: "
                    f"args={args} kwargs={kwargs}")
  return _debug_print


def _has_placeholders(fmt: str) -> bool:
  """Whether ``fmt`` starts with text then a replacement field, as JAX decides whether to
  format or to join the arguments after it."""
  return bool(fmt) and next(iter(string.Formatter().parse(fmt)))[1] is not None


def debug_log(fmt: str | None = None, *args: Any, ordered: bool = False,
              partitioned: bool = False, skip_format_check: bool = False,
              **kwargs: Any) -> Callable[..., None] | None:
  """As ``debug.print``, but each message is an INFO record of the logging module (logger
  ``xjax._src.primitives.debugging``) located at the caller's line (``jax.debug.log``)."""
  return debug_print(fmt, *args, ordered=ordered, partitioned=partitioned,
                     skip_format_check=skip_format_check, _use_logging=True, **kwargs)


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
