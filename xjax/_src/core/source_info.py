"""Where equations come from, recorded only on request (``print_saved_residuals``).

While ``recording()`` is on, every staged equation gets a ``source_info`` naming the
innermost user frame outside xjax (``file:line:column (function)``), and an equation
re-staged while a jaxpr is interpreted inherits the source of the equation it came from.
Off (the default), equations carry ``NO_SOURCE`` and nothing is looked up.  A source is a
``SourceInfo``: that text, with JAX's ``traceback`` and ``name_stack`` attributes (which
libraries reading jaxprs use) -- no traceback, and an empty name stack: xjax does not name
equations by ``named_scope``.
"""
from __future__ import annotations

import contextlib
import os
import sys
import threading

class NameStack:
  """The named scopes an equation was staged in (JAX's ``eqn.source_info.name_stack``):
  ``str`` of it is the scopes joined by ``/``."""
  __slots__ = ("stack",)

  def __init__(self, stack: tuple = ()) -> None:
    self.stack = tuple(stack)

  def __str__(self) -> str:
    return "/".join(map(str, self.stack))

  def __repr__(self) -> str:
    return f"NameStack(stack={self.stack!r})"

  def __len__(self) -> int:
    return len(self.stack)


class SourceInfo(str):
  """An equation's source: its text (empty where none was recorded), with JAX's attributes."""
  traceback = None
  name_stack = NameStack()


NO_SOURCE = SourceInfo("")

_XJAX_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_state = threading.local()
active = False   # any thread recording: the hooks in staging and eval_jaxpr test this only


@contextlib.contextmanager
def recording():
  """Records the user's source location on the equations staged inside the block."""
  global active
  prev, prev_inherited = active, getattr(_state, "inherited", None)
  active, _state.inherited = True, None
  try:
    yield
  finally:
    active, _state.inherited = prev, prev_inherited


@contextlib.contextmanager
def inherited(source):
  """Equations staged inside the block come from ``source`` (an equation's source_info)."""
  prev = getattr(_state, "inherited", None)
  _state.inherited = source if source else prev
  try:
    yield
  finally:
    _state.inherited = prev


def current() -> str:
  """The source of an equation staged now: the inherited one, else the user's frame."""
  source = getattr(_state, "inherited", None)
  return source if source else SourceInfo(_user_frame())


def _user_frame() -> str:
  frame = sys._getframe(1)
  while frame is not None and frame.f_code.co_filename.startswith(_XJAX_DIR):
    frame = frame.f_back
  if frame is None:
    return "unknown"
  code = frame.f_code
  column = 0
  positions = list(code.co_positions())
  i = frame.f_lasti // 2
  if 0 <= i < len(positions) and positions[i][2] is not None:
    column = positions[i][2]
  name = getattr(code, "co_qualname", code.co_name)
  return f"{code.co_filename}:{frame.f_lineno}:{column} ({name})"
