"""lax operations as they behave on one CPU device: platform_dependent picks the CPU
branch, composites call their decomposition."""
from __future__ import annotations

from typing import Callable

from xjax._src.backend import clients


def platform_dependent(*args, default=None, **per_platform):
  """Calls the branch for the default backend's platform ('cpu', 'cuda', 'rocm', 'tpu'),
  else ``default``."""
  if "gpu" in per_platform:
    raise ValueError("Use 'cuda' or 'rocm' for lax.platform_dependent.")
  platform = clients.backend().platform
  branch = per_platform.get(platform, default)
  if branch is None:
    raise NotImplementedError(f"platform_dependent: no branch for platform {platform} among "
                              f"{sorted(per_platform)} and no default")
  return branch(*args)


def composite(decomposition: Callable, name: str, version: int = 0):
  """A function calling ``decomposition`` (the composite's name is informational)."""
  def fn(*args, **kwargs):
    return decomposition(*args, **kwargs)
  fn.__name__ = getattr(decomposition, "__name__", name)
  fn.__doc__ = decomposition.__doc__
  return fn
