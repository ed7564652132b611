"""Inside a kernel: where it is in the grid (``program_id``, ``num_programs``, primitives
that interpret mode answers from the grid it is running) and ``when``."""
from __future__ import annotations

import contextlib
import threading

import numpy as np

from xjax._src.core.avals import ShapedArray
from xjax._src.core.trace import Primitive
from xjax._src.primitives.lax.control_flow.conditionals import cond

_state = threading.local()


@contextlib.contextmanager
def grid_env(indices, sizes):
  """Answers ``program_id(a)`` with ``indices[a]`` and ``num_programs(a)`` with ``sizes[a]``
  while a kernel runs over its grid (either may be None: not known yet)."""
  stack = _state.__dict__.setdefault("stack", [])
  stack.append((indices, sizes))
  try:
    yield
  finally:
    stack.pop()


def _current():
  stack = getattr(_state, "stack", None)
  return stack[-1] if stack else None


_WHICH = {"program_id": 0, "num_programs": 1}   # each query's part of ``grid_env``


class _GridQuery(Primitive):
  """A primitive the running grid answers (its ``_WHICH`` part of ``grid_env``)."""

  def bind(self, *args, **params):
    env, which = _current(), _WHICH[self.name]
    if env is not None and env[which] is not None:
      return env[which][params["axis"]]
    return super().bind(*args, **params)


def _check_axis(axis: int) -> None:
  env = _current()
  if env is not None and env[1] is not None and not 0 <= axis < len(env[1]):
    raise ValueError(f"program_id/num_programs axis {axis} is out of range for a grid of "
                     f"{len(env[1])} dimensions.")


def program_id(axis: int):
  """The index of the running kernel instance along grid axis ``axis``."""
  _check_axis(axis)
  return program_id_p.bind(axis=axis)


def num_programs(axis: int):
  """The size of the grid along ``axis``."""
  _check_axis(axis)
  return num_programs_p.bind(axis=axis)


def _outside_grid(ctx, *args, axis):
  raise ValueError("program_id and num_programs are only available inside a Pallas kernel "
                   "run by pallas_call.")


program_id_p = _GridQuery("program_id")
program_id_p.abstract_eval = lambda *, axis: ShapedArray((), np.dtype("int32"))
program_id_p.lowering = _outside_grid
num_programs_p = _GridQuery("num_programs")
num_programs_p.abstract_eval = lambda *, axis: ShapedArray((), np.dtype("int32"))
num_programs_p.lowering = _outside_grid


def when(condition):
  """A decorator running the function it decorates (of no arguments) only where
  ``condition`` holds: ``@pl.when(i == 0)``."""
  def decorate(f):
    if isinstance(condition, (bool, np.bool_)):
      if condition:
        f()
      return None
    cond(condition, lambda: (f(), None)[1], lambda: None)
    return None
  return decorate
