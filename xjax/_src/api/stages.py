"""The types of the ahead-of-time stages (``jax.stages``): what ``jit`` returns, and the
description of one argument of a lowered or compiled computation.  The stages themselves
(``Traced``, ``Lowered``, ``Compiled``) live with ``jit`` in ``jit.py``."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Union, runtime_checkable

from xjax._src.core.avals import ShapedArray

# Options passed to the compiler by name.
CompilerOptions = dict[str, Union[str, bool]]


@runtime_checkable
class Wrapped(Protocol):
  """A function that can be called, traced and lowered, such as the result of ``jit``."""

  def __call__(self, *args, **kwargs):
    """Runs the function, tracing and compiling it as needed."""

  def trace(self, *args, **kwargs):
    """The function traced for these arguments (a ``Traced``)."""

  def lower(self, *args, **kwargs):
    """The function lowered for these arguments (a ``Lowered``)."""


@dataclass(frozen=True)
class ArgInfo:
  """One argument of a lowered computation: its abstract value and whether it is donated."""
  _aval: ShapedArray
  donated: bool

  @property
  def shape(self):
    return self._aval.shape

  @property
  def dtype(self):
    return self._aval.dtype
