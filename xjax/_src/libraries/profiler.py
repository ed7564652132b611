"""Profiling through the XLA runtime's profiler (``jax.profiler``).

``trace(log_dir)`` (or ``start_trace``/``stop_trace``) runs a profiler session of the
runtime, which records Python calls, host threads (XLA compilation, execution) and device
activity, and writes it as ``log_dir/plugins/profile/<run>/<host>.xplane.pb`` (with a
``.trace.json.gz``) for TensorBoard or Perfetto; ``ProfileData`` reads such a file back.
``TraceAnnotation`` is the runtime's ``TraceMe``: a named span in the trace, recorded only
while a session or a connected profiler server is listening.
"""
from __future__ import annotations

import contextlib
import functools
import gzip
import http.server
import importlib.metadata
import json
import os
import pathlib
import socketserver
import threading
from typing import Callable

from xjax._src.backend import clients, profiling

_lib = profiling.profiler

ProfileData = profiling.profile_data.ProfileData
ProfileEvent = profiling.profile_data.ProfileEvent
ProfilePlane = profiling.profile_data.ProfilePlane


class ProfileOptions(_lib.ProfileOptions):
  """What a trace collects: ``host_tracer_level``, ``python_tracer_level``,
  ``enable_hlo_proto``, ``duration_ms``, ``advanced_configuration``, ..."""


class TraceAnnotation(_lib.TraceMe):
  """``with TraceAnnotation(name, **metadata):`` marks the block as a span named ``name``
  in the trace being recorded (keyword arguments become the span's statistics)."""


class StepTraceAnnotation(TraceAnnotation):
  """A ``TraceAnnotation`` marking one step of a loop (``step_num=`` names it), which the
  profiler's tools analyse step by step."""

  def __init__(self, name: str, **kwargs) -> None:
    super().__init__(name, _r=1, **kwargs)


def annotate_function(func: Callable, name: str | None = None, **decorator_kwargs):
  """``func`` wrapped so that each call is a ``TraceAnnotation`` span named ``name``
  (default: the function's qualified name); use ``functools.partial`` to pass ``name``."""
  name = name or getattr(func, "__qualname__", None) or func.__name__

  @functools.wraps(func)
  def annotated(*args, **kwargs):
    with TraceAnnotation(name, **decorator_kwargs):
      return func(*args, **kwargs)
  return annotated


# ---------------------------------------------------------------------------------------
# Traces written to a directory

class _Tracing:
  """The one profiler session that may run at a time."""

  def __init__(self) -> None:
    self.lock = threading.Lock()
    self.session = None
    self.log_dir = ""
    self.perfetto_trace = self.perfetto_link = False


_tracing = _Tracing()


def _describe_versions() -> None:
  """Writes the runtime's versions into the trace's metadata."""
  _lib.clear_metadata()
  _lib.set_metadata("jaxlib_version", importlib.metadata.version("jaxlib"))
  client = clients.backend()
  _lib.set_metadata(f"{client.platform}_version", client.platform_version)


def start_trace(log_dir: os.PathLike | str, create_perfetto_link: bool = False,
                create_perfetto_trace: bool = False,
                profiler_options: ProfileOptions | None = None) -> None:
  """Starts recording a trace; ``stop_trace`` writes it under ``log_dir``.  With
  ``create_perfetto_trace`` a ``perfetto_trace.json.gz`` is written too; with
  ``create_perfetto_link`` it is also served for ui.perfetto.dev, and ``stop_trace``
  waits until the page has loaded it.  One trace at a time (RuntimeError otherwise)."""
  with _tracing.lock:
    if _tracing.session is not None:
      raise RuntimeError("Profile has already been started. Only one profile may be run "
                         "at a time.")
    _describe_versions()  # starts the backend first, so its activity is recorded
    _tracing.session = _lib.ProfilerSession(profiler_options or ProfileOptions())
    _tracing.log_dir = str(log_dir)
    _tracing.perfetto_link = create_perfetto_link
    _tracing.perfetto_trace = create_perfetto_trace or create_perfetto_link


def stop_trace() -> None:
  """Stops the trace ``start_trace`` began and writes it (RuntimeError if none runs)."""
  with _tracing.lock:
    session = _tracing.session
    if session is None:
      raise RuntimeError("No profile started")
    try:
      session.stop_and_export(_tracing.log_dir)
      if _tracing.perfetto_trace:
        perfetto = _write_perfetto_trace(_tracing.log_dir)
        if _tracing.perfetto_link:
          _serve_to_perfetto(perfetto)
    finally:
      _tracing.session = None
      _tracing.perfetto_trace = _tracing.perfetto_link = False
      _lib.clear_metadata()


@contextlib.contextmanager
def trace(log_dir: os.PathLike | str, create_perfetto_link: bool = False,
          create_perfetto_trace: bool = False, profiler_options: ProfileOptions | None = None):
  """Records a trace of the block and writes it under ``log_dir`` (see ``start_trace``)."""
  start_trace(log_dir, create_perfetto_link, create_perfetto_trace, profiler_options)
  try:
    yield
  finally:
    stop_trace()


def _write_perfetto_trace(log_dir: str) -> pathlib.Path:
  """The newest run's ``trace.json.gz`` without its metadata (which Perfetto rejects), as
  ``perfetto_trace.json.gz`` beside it."""
  runs = (pathlib.Path(log_dir).absolute() / "plugins" / "profile").iterdir()
  run = max(runs, key=os.path.getmtime)
  found = list(run.glob("*.trace.json.gz"))
  if len(found) != 1:
    raise ValueError(f"Invalid trace folder: {run} (expected one *.trace.json.gz, found "
                     f"{len(found)})")
  with gzip.open(found[0], "rb") as f:
    events = json.load(f)
  events.pop("metadata", None)
  out = run / "perfetto_trace.json.gz"
  with gzip.open(out, "wb") as f:
    f.write(json.dumps(events).encode("utf-8"))
  return out


class _PerfettoHandler(http.server.SimpleHTTPRequestHandler):
  """Serves the trace's folder to ui.perfetto.dev (which needs CORS) and notes the path
  each GET asked for."""

  def end_headers(self) -> None:
    self.send_header("Access-Control-Allow-Origin", "*")
    super().end_headers()

  def do_GET(self) -> None:
    self.server.last_path = self.path
    super().do_GET()

  def log_message(self, *args) -> None:
    pass


PERFETTO_PORT = 9001  # where ui.perfetto.dev looks for a trace served from this machine


def _serve_to_perfetto(path: pathlib.Path) -> None:
  """Prints the ui.perfetto.dev link for ``path`` and serves the file until it is fetched."""
  handler = functools.partial(_PerfettoHandler, directory=str(path.parent))
  socketserver.TCPServer.allow_reuse_address = True
  with socketserver.TCPServer(("127.0.0.1", PERFETTO_PORT), handler) as server:
    server.last_path = None
    print("Open URL in browser: https://ui.perfetto.dev/#!/?url="
          f"http://127.0.0.1:{PERFETTO_PORT}/{path.name}")
    while server.last_path != "/" + path.name:
      server.handle_request()


# ---------------------------------------------------------------------------------------
# The profiler server, subprocesses, device memory

_server: list = []  # the running ProfilerServer, if any


def start_server(port: int, requires_backend: bool = True):
  """Starts the runtime's profiler server on ``port``, so TensorBoard's profiler (or
  ``xprof``) can record traces of this process on demand.  One server at a time."""
  if _server:
    raise ValueError("Only one profiler server can be active at a time.")
  if requires_backend:
    clients.backend()
  _server.append(_lib.start_server(port))
  return _server[0]


def stop_server() -> None:
  """Stops the server ``start_server`` started (ValueError if none runs)."""
  if not _server:
    raise ValueError("No active profiler server.")
  _server.clear()  # the server stops when the last reference goes


def register_subprocess(pid: int, port: int) -> Callable[[], None]:
  """Includes the process ``pid``, whose profiler server listens on ``port``, in the traces
  this process records; returns the function that removes it again (RuntimeError if the
  runtime cannot register it)."""
  return _lib.register_subprocess(pid, port)


def device_memory_profile(backend: str | None = None) -> bytes:
  """A snapshot of the arrays and executables in device memory (of ``backend``'s
  devices), as a gzipped pprof protocol buffer for the ``pprof`` tool."""
  return gzip.compress(profiling.heap_profile(backend))


def save_device_memory_profile(filename, backend: str | None = None) -> None:
  """Writes ``device_memory_profile(backend)`` to ``filename``."""
  profile = device_memory_profile(backend)
  with open(filename, "wb") as f:
    f.write(profile)
