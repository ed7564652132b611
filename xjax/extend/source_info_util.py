"""``jax.extend.source_info_util``: where equations come from. Name stacks are JAX's
(``named_scope`` scopes and ``jvp``/``transpose``/``vmap`` transformations, on every staged
equation's ``source_info``); source locations are not recorded, so tracebacks are None."""
import contextlib

from xjax._src.core.source_info import (NO_SOURCE, NameStack, SourceInfo,  # noqa: F401
                                        current_name_stack, extend_name_stack,
                                        set_name_stack, transform_name_stack)


def current() -> SourceInfo:
  """The source an equation staged now gets: no traceback, the current name stack."""
  return NO_SOURCE.replace(current_name_stack())


def new_source_info() -> SourceInfo:
  return NO_SOURCE


def new_name_stack(name: str = "") -> NameStack:
  return NameStack().extend(name) if name else NameStack()


def reset_name_stack():
  """Stages what runs inside the block (or decorated function) under an empty stack."""
  return set_name_stack(NameStack())


def user_context(traceback, *, name_stack: NameStack | None = None):
  """Stages what runs inside the block under ``name_stack`` (the traceback is not kept)."""
  return contextlib.nullcontext() if name_stack is None else set_name_stack(name_stack)


def summarize(source_info: SourceInfo, num_frames: int = 1) -> str:
  return "unknown"


def register_exclusion(path: str) -> None:
  """Files whose frames are left out of source information (xjax records none)."""
