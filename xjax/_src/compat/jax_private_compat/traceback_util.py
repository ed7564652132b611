"""`jax._src.traceback_util`: which frames error tracebacks leave out.

Libraries register their own source folders (flax and equinox do at import) so that their
frames are filtered together with xjax's; `_exclude_paths` is the live list that xjax's
filtering (`errors.remove_internal_frames`, `jax_traceback_filtering`) reads.
"""
import os
import traceback
import types

from xjax._src.foundations import errors
from xjax._src.foundations.errors import UnfilteredStackTrace, api_boundary  # noqa: F401
from xjax._src.compat.jax_private_compat import missing

_exclude_paths = errors.excluded_paths


def register_exclusion(path: str) -> None:
  """Leaves frames from files under ``path`` out of filtered tracebacks."""
  errors.excluded_paths.append(path)


def path_starts_with(path: str, path_prefix: str) -> bool:
  """Whether ``path`` lies under ``path_prefix``."""
  path, path_prefix = os.path.abspath(path), os.path.abspath(path_prefix)
  try:
    return os.path.commonpath([path, path_prefix]) == path_prefix
  except ValueError:  # different drives
    return False


def include_frame(f) -> bool:
  """Whether a filtered traceback keeps frame ``f``."""
  return not errors._is_ours(f.f_code.co_filename)


def filter_traceback(tb: types.TracebackType) -> types.TracebackType | None:
  """A traceback of ``tb``'s frames that filtered tracebacks keep (None if none)."""
  out = None
  for f, lineno in reversed(list(traceback.walk_tb(tb))):
    if include_frame(f):
      out = types.TracebackType(out, f, f.f_lasti, lineno)
  return out


def __getattr__(name: str):
  raise missing("jax._src.traceback_util", name)
