"""The persistent compilation cache (backend/compilation_cache.py): entries survive the
process, corrupted ones are rewritten, the directory stays bounded, writers don't collide."""
import os
import pathlib
import subprocess
import sys
import threading

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax._src.backend import compilation_cache
from xjax._src.foundations.config import config

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture
def cache_dir(tmp_path):
  old = config.jax_compilation_cache_dir
  config.update("jax_compilation_cache_dir", str(tmp_path))
  try:
    yield tmp_path
  finally:
    config.update("jax_compilation_cache_dir", old)


@pytest.fixture
def lookups(monkeypatch):
  """(hits, misses) of cache lookups."""
  counts = [0, 0]
  real = compilation_cache.get

  def counting(entry):
    payload = real(entry)
    counts[payload is None] += 1
    return payload
  monkeypatch.setattr(compilation_cache, "get", counting)
  return counts


def _program(scale):
  return xjax.jit(lambda x: jnp.tanh(x) * scale + jnp.cos(x))


def _entries(folder):
  return sorted(folder.glob("*.xla"))


def test_a_compiled_program_is_loaded_from_disk_after_the_caches_are_cleared(cache_dir,
                                                                              lookups):
  x = np.linspace(-1, 1, 7, dtype=np.float32)
  expect = np.tanh(x) * 1.25 + np.cos(x)
  np.testing.assert_allclose(_program(1.25)(x), expect, rtol=1e-6)
  assert lookups[0] == 0 and _entries(cache_dir)
  xjax.clear_caches()
  np.testing.assert_allclose(_program(1.25)(x), expect, rtol=1e-6)
  assert lookups[0] >= 1


def test_a_corrupted_entry_is_ignored_and_rewritten(cache_dir, lookups):
  x = np.arange(5, dtype=np.float32)
  _program(2.5)(x)
  for path in _entries(cache_dir):
    path.write_bytes(path.read_bytes()[:40])  # truncated
  xjax.clear_caches()
  np.testing.assert_allclose(_program(2.5)(x), np.tanh(x) * 2.5 + np.cos(x), rtol=1e-6)
  assert lookups[0] == 0  # nothing usable was found
  sizes = [p.stat().st_size for p in _entries(cache_dir)]
  assert sizes and min(sizes) > 40  # rewritten whole


def test_switched_off_by_the_environment_or_config(cache_dir, monkeypatch):
  monkeypatch.setenv("XJAX_COMPILATION_CACHE", "0")
  _program(3.5)(np.ones(3, np.float32))
  assert _entries(cache_dir) == []
  monkeypatch.delenv("XJAX_COMPILATION_CACHE")
  config.update("jax_enable_compilation_cache", False)
  try:
    _program(4.5)(np.ones(3, np.float32))
  finally:
    config.update("jax_enable_compilation_cache", True)
  assert _entries(cache_dir) == []


def test_the_directory_is_bounded_by_evicting_the_least_recently_used(cache_dir):
  config.update("jax_compilation_cache_max_size", 2500)
  try:
    for i in range(4):
      compilation_cache.put(f"entry{i}", bytes([i]) * 1000)
      os.utime(cache_dir / f"entry{i}.xla", (1000 + i, 1000 + i))
    compilation_cache.put("entry4", b"\x04" * 1000)
  finally:
    config.update("jax_compilation_cache_max_size", -1)
  names = [p.stem for p in _entries(cache_dir)]
  assert names == ["entry3", "entry4"]
  assert compilation_cache.get("entry4") == b"\x04" * 1000


def test_writers_at_once_leave_one_whole_entry(cache_dir):
  payload = os.urandom(200_000)
  threads = [threading.Thread(target=compilation_cache.put, args=("shared", payload))
             for _ in range(8)]
  for t in threads:
    t.start()
  for t in threads:
    t.join()
  assert [p.name for p in cache_dir.iterdir()] == ["shared.xla"]  # no temporary files left
  assert compilation_cache.get("shared") == payload


def test_a_second_process_loads_what_the_first_compiled(tmp_path):
  script = (
      "import numpy as np, xjax, xjax.numpy as jnp\n"
      "from xjax._src.backend import compilation_cache as cc\n"
      "hits = []\n"
      "real = cc.get\n"
      "cc.get = lambda e: hits.append(real(e) is not None) or real(e)\n"
      "f = xjax.jit(lambda x: jnp.sin(x) * 3.0 + 1.0)\n"
      "print(float(f(np.float32(0.5))), any(hits))\n")
  env = dict(os.environ, JAX_COMPILATION_CACHE_DIR=str(tmp_path), PYTHONPATH=str(ROOT))
  runs = [subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                         text=True, check=True).stdout.split() for _ in range(2)]
  value = np.sin(np.float32(0.5)) * 3 + 1
  assert [float(r[0]) for r in runs] == pytest.approx([value, value], rel=1e-6)
  assert [r[1] for r in runs] == ["False", "True"]
