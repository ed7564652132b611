"""lax operations as they behave on one CPU device: platform_dependent picks the CPU
branch, composites call their decomposition."""
from __future__ import annotations

from typing import Callable


def platform_dependent(*args, default=None, **per_platform):
  """Calls the branch for this platform ('cpu'), else ``default``."""
  branch = per_platform.get("cpu", default)
  if branch is None:
    raise NotImplementedError(f"platform_dependent: no branch for platform cpu among "
                              f"{sorted(per_platform)} and no default")
  return branch(*args)


def composite(decomposition: Callable, name: str, version: int = 0):
  """A function calling ``decomposition`` (the composite's name is informational)."""
  def fn(*args, **kwargs):
    return decomposition(*args, **kwargs)
  fn.__name__ = getattr(decomposition, "__name__", name)
  fn.__doc__ = decomposition.__doc__
  return fn
