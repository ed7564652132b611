"""``jax.extend.source_info_util``: where equations come from.  xjax records no name stacks
or source locations on equations, so these are the empty ones and the context managers
change nothing."""
from contextlib import contextmanager
from typing import NamedTuple


class NameStack(NamedTuple):
  stack: tuple = ()

  def extend(self, name) -> "NameStack":
    return NameStack(self.stack + (tuple(name) if isinstance(name, tuple) else (name,)))

  def __str__(self) -> str:
    return "/".join(map(str, self.stack))


class SourceInfo(NamedTuple):
  traceback: object = None
  name_stack: NameStack = NameStack()


def current() -> SourceInfo:
  return SourceInfo()


def new_source_info() -> SourceInfo:
  return SourceInfo()


def current_name_stack() -> NameStack:
  return NameStack()


def new_name_stack(name: str = "") -> NameStack:
  return NameStack((name,) if name else ())


@contextmanager
def _unchanged(*args, **kwargs):
  yield


extend_name_stack = set_name_stack = reset_name_stack = transform_name_stack = _unchanged
user_context = _unchanged


def summarize(source_info: SourceInfo, num_frames: int = 1) -> str:
  return "unknown"


def register_exclusion(path: str) -> None:
  """Files whose frames are left out of source information (xjax records none)."""
