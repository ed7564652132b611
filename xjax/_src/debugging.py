"""``xjax.debug``: printing and inspecting runtime values from transformed code.

``debug.print`` formats with ``str.format`` when the computation runs (specs such as
``{x:.3f}`` apply to the values); the format string is checked when tracing, so a missing
or unused argument fails at once.  Both are built on the ``debug_callback`` primitive.
"""
from __future__ import annotations

import string
import sys
from typing import Any

import numpy as np

from xjax._src.callback import debug_callback


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
