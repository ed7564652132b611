"""Process and environment queries of the top-level namespace (`print_environment_info`,
`host_count`, `process_indices`, `typeof`, `named_scope`, `effects_barrier`, ...)."""
from __future__ import annotations

import platform
import sys

import numpy as np

from xjax._src.backend import clients
from xjax._src.foundations.version import __version__
from xjax._src.core import source_info
from xjax._src.core.values import get_aval


def process_indices(backend=None) -> list[int]:
  """The indices of the processes taking part."""
  return clients.process_indices(backend)


def host_count(backend=None) -> int:
  """Old name of ``process_count``."""
  return len(process_indices(backend))


def host_id(backend=None) -> int:
  """Old name of ``process_index``."""
  return clients.process_index(backend)


def host_ids(backend=None) -> list[int]:
  """Old name of ``process_indices``."""
  return process_indices(backend)


def typeof(x):
  """The abstract value (shape, dtype, weak type) of ``x``."""
  return get_aval(x)


def named_scope(name: str):
  """Names the equations staged inside (their ``source_info.name_stack``): a context
  manager, or a decorator."""
  if not isinstance(name, str):
    raise TypeError("named_scope name argument must be a string.")
  return source_info.extend_name_stack(name)


def effects_barrier() -> None:
  """Waits for the side effects of dispatched computations.  xjax has no queue of ordered
  effects to drain (see docs/differences.md), so there is nothing to wait for."""


def print_environment_info(return_string: bool = False):
  """Versions and devices, for bug reports."""
  from importlib.metadata import version
  devices = clients.devices()
  info = (f"xjax:    {__version__}\n"
          f"jaxlib: {version('jaxlib')}\n"
          f"numpy:  {np.__version__}\n"
          f"python: {sys.version}\n"
          f"device info: {devices[0].platform}-{len(devices)}, "
          f"{len(clients.local_devices())} local devices\n"
          f"process_count: 1\n"
          f"platform: {platform.uname()}\n")
  if return_string:
    return info
  print(info)
