"""xjax.profiler on the runtime's profiler: traces written where JAX 0.10.2 writes them and
read back with ProfileData, annotations as spans, the profiler server, memory profiles."""
import gzip
import json
import os
import pathlib
import socket
import subprocess
import sys
import threading
import time
import urllib.request

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import profiler
from xjax._src.libraries import profiler as profiler_impl
from tests.libraries.multi_process_run import free_port


def _events(xplane: pathlib.Path) -> dict:
  """name -> list of (stats, duration_ns) over every plane and line of a trace."""
  found: dict = {}
  for plane in profiler.ProfileData.from_file(str(xplane)).planes:
    for line in plane.lines:
      for event in line.events:
        found.setdefault(event.name, []).append((dict(event.stats), event.duration_ns))
  return found


def _only_run(log_dir) -> pathlib.Path:
  runs = list((pathlib.Path(log_dir) / "plugins" / "profile").iterdir())
  assert len(runs) == 1
  return runs[0]


def test_trace_writes_an_xplane_with_annotations(tmp_path):
  def sum_of_squares(x):
    return (x * x).sum()

  @profiler.annotate_function
  def step_body():
    return xjax.jit(sum_of_squares)(jnp.arange(64.0)).block_until_ready()

  assert not profiler.TraceAnnotation.is_enabled()
  with profiler.trace(tmp_path):
    assert profiler.TraceAnnotation.is_enabled()
    with profiler.TraceAnnotation("my_label", foo=3):
      time.sleep(0.002)
    for i in range(2):
      with profiler.StepTraceAnnotation("train", step_num=i):
        assert float(step_body()) == 85344.0
  run = _only_run(tmp_path)
  host = socket.gethostname()
  # As JAX: log_dir/plugins/profile/<run>/<host>.xplane.pb and .trace.json.gz.
  assert sorted(p.name for p in run.iterdir()) == [f"{host}.trace.json.gz",
                                                   f"{host}.xplane.pb"]
  events = _events(run / f"{host}.xplane.pb")
  (stats, duration), = events["my_label"]
  assert stats == {"foo": 3} and duration >= 2e6
  assert sorted(s["step_num"] for s, _ in events["train"]) == [0, 1]
  assert all(s["_r"] == 1 for s, _ in events["train"])
  assert len(events["test_trace_writes_an_xplane_with_annotations.<locals>.step_body"]) == 2
  # The runtime's own activity is recorded: running the program (which may come from the
  # persistent compilation cache, so compiling need not appear).
  assert any("ExecuteHelper" in name for name in events)
  with gzip.open(run / f"{host}.trace.json.gz") as f:
    trace_json = json.load(f)
  assert any(e.get("name") == "my_label" for e in trace_json["traceEvents"])


def test_annotate_function_name_and_keywords(tmp_path):
  def f(x):
    return x + 1

  named = profiler.annotate_function(f, name="event_name", kind="inference")
  assert named.__name__ == "f" and named(1) == 2
  with profiler.trace(tmp_path):
    named(2)
  events = _events(next(_only_run(tmp_path).glob("*.xplane.pb")))
  assert events["event_name"][0][0] == {"kind": "inference"}


def test_start_stop_trace_and_their_errors(tmp_path):
  with pytest.raises(RuntimeError, match="No profile started"):
    profiler.stop_trace()
  options = profiler.ProfileOptions()
  assert (options.host_tracer_level, options.python_tracer_level) == (2, 1)
  options.python_tracer_level = 0
  profiler.start_trace(str(tmp_path), profiler_options=options)
  try:
    with pytest.raises(RuntimeError, match="Only one profile may be run at a time"):
      profiler.start_trace(tmp_path)
    with profiler.TraceAnnotation("inside"):
      pass
  finally:
    profiler.stop_trace()
  with pytest.raises(RuntimeError, match="No profile started"):
    profiler.stop_trace()
  events = _events(next(_only_run(tmp_path).glob("*.xplane.pb")))
  assert "inside" in events
  assert not any(name.startswith("$") for name in events)  # no Python tracer: level 0


def test_trace_stops_when_the_block_raises(tmp_path):
  with pytest.raises(ZeroDivisionError):
    with profiler.trace(tmp_path):
      1 / 0
  assert list((tmp_path / "plugins" / "profile").iterdir())
  with profiler.trace(tmp_path / "again"):  # a new trace may start
    pass


def test_perfetto_trace_and_link(tmp_path, monkeypatch):
  with profiler.trace(tmp_path / "file", create_perfetto_trace=True):
    with profiler.TraceAnnotation("for_perfetto"):
      pass
  run = _only_run(tmp_path / "file")
  with gzip.open(run / "perfetto_trace.json.gz") as f:
    perfetto = json.load(f)
  assert "metadata" not in perfetto
  assert any(e.get("name") == "for_perfetto" for e in perfetto["traceEvents"])

  # The link: stop_trace serves the file until it is fetched once.
  port = free_port()
  monkeypatch.setattr(profiler_impl, "PERFETTO_PORT", port)
  fetched = []

  def fetch():
    for _ in range(200):
      try:
        url = f"http://127.0.0.1:{port}/perfetto_trace.json.gz"
        with urllib.request.urlopen(url, timeout=5) as r:
          fetched.append((r.headers["Access-Control-Allow-Origin"], r.read()))
        return
      except OSError:
        time.sleep(0.05)

  fetcher = threading.Thread(target=fetch)
  profiler.start_trace(tmp_path / "link", create_perfetto_link=True)
  fetcher.start()
  profiler.stop_trace()
  fetcher.join(10)
  (origin, body), = fetched
  assert origin == "*" and "traceEvents" in json.loads(gzip.decompress(body))


def test_profiler_server_start_stop():
  with pytest.raises(ValueError, match="No active profiler server"):
    profiler.stop_server()
  server = profiler.start_server(free_port())
  assert type(server).__name__ == "ProfilerServer"
  try:
    with pytest.raises(ValueError, match="Only one profiler server"):
      profiler.start_server(free_port())
  finally:
    profiler.stop_server()
  with pytest.raises(ValueError, match="No active profiler server"):
    profiler.stop_server()


def test_register_subprocess(tmp_path):
  port = free_port()
  child = subprocess.Popen(
      [sys.executable, "-c", "import sys, jaxlib._profiler as p; s = p.start_server("
       f"{port}); print('up', flush=True); sys.stdin.read()"],
      stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
  try:
    assert child.stdout.readline().strip() == "up"
    unregister = profiler.register_subprocess(child.pid, port)
    assert callable(unregister)
    unregister()
    with pytest.raises(RuntimeError, match="same pid"):
      profiler.register_subprocess(os.getpid(), port)
  finally:
    child.stdin.close()
    child.wait(30)


def _pprof_samples(profile: bytes) -> list[list[int]]:
  """The value lists of a pprof Profile's samples (field 2, values in field 2)."""
  def varint(b, i):
    v = s = 0
    while True:
      c = b[i]
      i += 1
      v |= (c & 0x7F) << s
      s += 7
      if c < 0x80:
        return v, i

  def fields(b):
    i = 0
    while i < len(b):
      key, i = varint(b, i)
      kind = key & 7
      if kind == 0:
        v, i = varint(b, i)
      elif kind == 2:
        n, i = varint(b, i)
        v, i = b[i:i + n], i + n
      else:
        v, i = b[i:i + (8 if kind == 1 else 4)], i + (8 if kind == 1 else 4)
      yield key >> 3, v

  samples = []
  for field, sample in fields(profile):
    if field == 2:
      for f, packed in fields(sample):
        if f == 2:
          values, i = [], 0
          while i < len(packed):
            v, i = varint(packed, i)
            values.append(v)
          samples.append(values)
  return samples


def test_device_memory_profile_lists_live_buffers(tmp_path):
  big = xjax.device_put(np.ones((256, 1024), np.float32))  # 1 MiB
  profile = profiler.device_memory_profile()
  assert profile[:2] == b"\x1f\x8b"  # gzip, as JAX
  samples = _pprof_samples(gzip.decompress(profile))
  assert [1, 1 << 20] in samples  # (count, bytes) of the live buffer
  path = tmp_path / "memory.prof"
  profiler.save_device_memory_profile(path, backend="cpu")
  assert [1, 1 << 20] in _pprof_samples(gzip.decompress(path.read_bytes()))
  del big
  with pytest.raises(RuntimeError, match="tpu"):
    profiler.device_memory_profile("tpu")
