"""The runtime's profiler: sessions that record host and device activity and write XSpace
traces (``profiler.ProfilerSession``), ``TraceMe`` annotations, the profiler server, the reader
of recorded traces (``profile_data``), and the device memory profile."""
from __future__ import annotations

from xjax._src.backend.clients import backend
from xjax._src.backend.jaxlib_api import jaxlib_module

profile_data = jaxlib_module("_profile_data")
profiler = jaxlib_module("_profiler")


def heap_profile(platform: str | None = None) -> bytes:
  """The client's device memory as a pprof protocol buffer (uncompressed)."""
  return backend(platform).heap_profile()
