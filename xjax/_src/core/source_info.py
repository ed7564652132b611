"""Where equations come from: their named scopes always, their source lines on request.

The name stack is JAX's: ``named_scope``/``named_call`` push a ``Scope``, and ``jvp``,
``transpose`` and ``vmap`` push a ``Transform``, so an equation staged in scope ``b`` of
scope ``a`` under ``grad`` carries ``jvp(a)/b``, and its transpose ``transpose(jvp(a))/b``.
A trace records the stack relative to the depth it began at (a ``jit``'s equations are
named inside its function); interpreting a jaxpr stages each equation under the current
stack extended by the equation's own.

While ``recording()`` is on (``print_saved_residuals``), every staged equation also gets the
innermost user frame outside xjax (``file:line:column (function)``), and an equation
re-staged while a jaxpr is interpreted inherits the source of the equation it came from.
A source is a ``SourceInfo``: that text (empty when not recorded), with JAX's ``traceback``
(always None) and ``name_stack`` attributes, which libraries reading jaxprs use.
"""
from __future__ import annotations

import contextlib
import os
import sys
import threading
from typing import NamedTuple

class Scope(NamedTuple):
  """A ``named_scope`` (or ``named_call``) on the name stack."""
  name: str

  def wrap(self, parts: list) -> None:
    parts.append(self.name)


class Transform(NamedTuple):
  """A transformation on the name stack: it wraps the scope inside it, ``jvp(a)``."""
  name: str

  def wrap(self, parts: list) -> None:
    if parts:
      parts[-1] = f"{self.name}({parts[-1]})"
    else:
      parts.append(f"{self.name}()")


class NameStack:
  """The named scopes and transformations an equation was staged in (JAX's
  ``eqn.source_info.name_stack``): ``str`` of it is ``transpose(jvp(a))/b``."""
  __slots__ = ("stack",)

  def __init__(self, stack: tuple = ()) -> None:
    self.stack = tuple(stack)

  def extend(self, name: str) -> "NameStack":
    return NameStack(self.stack + (Scope(name),))

  def transform(self, name: str) -> "NameStack":
    return NameStack(self.stack + (Transform(name),))

  def __add__(self, other: "NameStack") -> "NameStack":
    return NameStack(self.stack + other.stack)

  def __getitem__(self, idx) -> "NameStack":
    return NameStack(self.stack[idx])

  def __eq__(self, other) -> bool:
    return isinstance(other, NameStack) and self.stack == other.stack

  def __hash__(self) -> int:
    return hash(self.stack)

  def __len__(self) -> int:
    return len(self.stack)

  def __str__(self) -> str:
    parts: list = []
    for elem in reversed(self.stack):
      elem.wrap(parts)
    return "/".join(reversed(parts))

  def __repr__(self) -> str:
    return f"NameStack(stack={self.stack!r})"


class SourceInfo(str):
  """An equation's source: its text (empty where none was recorded), with JAX's attributes."""
  traceback = None
  name_stack = NameStack()

  def replace(self, name_stack: NameStack) -> "SourceInfo":
    out = SourceInfo(self)
    out.name_stack = name_stack
    return out


NO_SOURCE = SourceInfo("")


class _State(threading.local):
  stack = NameStack()   # the current name stack
  named = None          # a SourceInfo("") carrying ``stack`` (None while it is empty)
  memo = None           # (stack, depth, SourceInfo of stack[depth:]) last staged
  inherited = None      # the source re-staged equations inherit (while recording)


_XJAX_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_state = _State()
active = False   # any thread recording: the hooks in staging and eval_jaxpr test this only


def current_name_stack() -> NameStack:
  return _state.stack


@contextlib.contextmanager
def set_name_stack(stack: NameStack):
  """Stages what runs inside the block under ``stack``."""
  prev = enter(naming(stack))
  try:
    yield
  finally:
    leave(prev)


def naming(stack: NameStack) -> tuple:
  """What ``enter`` takes to stage under ``stack`` (made once, entered many times)."""
  return stack, (NO_SOURCE.replace(stack) if len(stack) else None)


def enter(naming: tuple) -> tuple:
  """Stages under ``naming`` (from ``naming()``) until ``leave(returned value)``: the
  context manager's work without its cost, for loops over equations."""
  prev = _state.stack, _state.named
  _state.stack, _state.named = naming
  return prev


def leave(prev: tuple) -> None:
  _state.stack, _state.named = prev


def extend_name_stack(name: str):
  """``named_scope(name)``: a context manager (and decorator) pushing a scope."""
  return _Extended(name)


class _Extended(contextlib.ContextDecorator):
  def __init__(self, name: str) -> None:
    self.name, self.prev = name, []

  def __enter__(self):
    self.prev.append(enter(naming(_state.stack.extend(self.name))))

  def __exit__(self, *exc):
    leave(self.prev.pop())


def transform_name_stack(name: str):
  """Stages what runs inside the block under transformation ``name`` (``jvp``, ...)."""
  return set_name_stack(_state.stack.transform(name))


def staged(depth: int):
  """The source_info of an equation staged now by a trace begun at name-stack ``depth``
  (None when there is nothing to say)."""
  st = _state
  stack = st.stack
  if active:
    return current().replace(stack[depth:])
  if len(stack.stack) <= depth:
    return None
  if depth == 0:
    return st.named
  memo = st.memo
  if memo is not None and memo[0] is stack and memo[1] == depth:
    return memo[2]
  source = NO_SOURCE.replace(stack[depth:])
  st.memo = (stack, depth, source)
  return source


@contextlib.contextmanager
def recording():
  """Records the user's source location on the equations staged inside the block."""
  global active
  prev, prev_inherited = active, _state.inherited
  active, _state.inherited = True, None
  try:
    yield
  finally:
    active, _state.inherited = prev, prev_inherited


@contextlib.contextmanager
def inherited(source):
  """Equations staged inside the block come from ``source`` (an equation's source_info):
  they inherit its text while recording, and are named under its name stack."""
  prev = _state.inherited
  _state.inherited = source if source else prev
  try:
    if len(source.name_stack):
      with set_name_stack(_state.stack + source.name_stack):
        yield
    else:
      yield
  finally:
    _state.inherited = prev


def current() -> SourceInfo:
  """The source of an equation staged now: the inherited one, else the user's frame."""
  source = _state.inherited
  return SourceInfo(source if source else _user_frame())


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
