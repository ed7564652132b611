"""Stress: threads, memory and cache bounds under load (issue 18).  Each test prints its
figures (run with ``-s`` to see them) and is bounded to a few seconds."""
import gc
import threading
import time

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax
from xjax._src.core import jaxpr_cache
from xjax._src.execution import compiled_jaxprs

pytestmark = pytest.mark.stress


def rss_mib() -> float:
  with open("/proc/self/statm") as f:
    return int(f.read().split()[1]) * 4096 / 2**20


@xjax.jit
def _f(x):
  return jnp.sum(jnp.sin(x) * x)


def _worker(kind: int, calls: int, counts: list, errors: list, deadline: float):
  try:
    x = np.linspace(0, 1, 16, dtype=np.float32)
    g = xjax.grad(_f)
    for i in range(calls):
      if time.perf_counter() > deadline:
        return
      if kind == 0:  # the same jitted function
        out = _f(x)
        np.testing.assert_allclose(out, np.sum(np.sin(x) * x), rtol=1e-5)
      elif kind == 1:  # retracing shapes
        n = 1 + (i % 7)
        out = _f(np.ones(n, np.float32))
        np.testing.assert_allclose(out, n * np.sin(1.0), rtol=1e-5)
      else:  # grad of jit
        out = g(x)
        np.testing.assert_allclose(out, np.cos(x) * x + np.sin(x), rtol=1e-5)
      counts[0] += 1
  except BaseException as e:  # reported by the main thread
    errors.append(e)


def test_threads_all_progress():
  """8 threads (same function, retracing shapes, grad-of-jit) each finish their calls."""
  calls, n_threads = 300, 8
  deadline = time.perf_counter() + 40
  counts = [[0] for _ in range(n_threads)]
  errors: list = []
  threads = [threading.Thread(target=_worker, args=(i % 3, calls, counts[i], errors,
                                                      deadline)) for i in range(n_threads)]
  t0 = time.perf_counter()
  for t in threads:
    t.start()
  for t in threads:
    t.join()
  took = time.perf_counter() - t0
  done = [c[0] for c in counts]
  print(f"\n8 threads x {calls} jitted calls: {took:.2f} s, calls per thread {done}")
  assert not errors, errors[0]
  assert done == [calls] * n_threads


def test_memory_of_dropped_arrays_comes_back():
  n = 2**18  # 1 MiB of float32
  host = np.ones(n, np.float32)

  def step(i):
    a = jnp.ones(n) * float(i) if i % 2 == 0 else jnp.asarray(host)
    a.block_until_ready()

  for i in range(200):
    step(i)
  gc.collect()
  before = rss_mib()
  for i in range(3000):
    step(i)
  gc.collect()
  grown = rss_mib() - before
  print(f"\n3000 x 1 MiB arrays created and dropped: RSS {grown:+.1f} MiB")
  assert grown < 64


def test_eager_ops_do_not_grow_memory():
  x = jnp.ones(10)
  for i in range(2000):
    x = jnp.sin(x) * 0.5 + float(i % 7)
  x.block_until_ready()
  gc.collect()
  before = rss_mib()
  for i in range(20000):
    x = jnp.sin(x) * 0.5 + float(i % 7)
  x.block_until_ready()
  gc.collect()
  grown = rss_mib() - before
  print(f"\n60,000 eager ops: RSS {grown:+.1f} MiB")
  assert grown < 8


def _body(c, x):
  return c * 0.9 + jnp.sin(x), c


def _scanned(x):
  c, ys = lax.scan(_body, x[0], x)
  return c + ys.sum()


def test_caches_stay_flat_over_1000_transformed_calls():
  x = np.linspace(0, 1, 16, dtype=np.float32)
  g, gs = xjax.grad(_f), xjax.grad(_scanned)
  for _ in range(20):
    g(x), gs(x)
  gc.collect()
  size0, rss0 = jaxpr_cache.cache_size(), rss_mib()
  t0 = time.perf_counter()
  for _ in range(500):
    g(x).block_until_ready()
    gs(x).block_until_ready()
  took = (time.perf_counter() - t0) / 1000
  gc.collect()
  grown, rss_grown = jaxpr_cache.cache_size() - size0, rss_mib() - rss0
  print(f"\n1000 grad(jit) / grad(scan) calls: {took * 1e3:.3f} ms/call, jaxpr caches "
        f"{size0} -> {size0 + grown} entries, RSS {rss_grown:+.1f} MiB")
  assert grown == 0 and rss_grown < 8


def test_caches_are_bounded_over_many_jaxprs():
  """Many distinct jitted functions, transformed and dropped: the caches do not grow."""
  gc.collect()
  size0, compiled0 = jaxpr_cache.cache_size(), compiled_jaxprs._compiled_jaxprs.size()
  for i in range(200):
    f = xjax.jit(lambda x, i=i: jnp.sum(x * i))
    xjax.grad(f)(np.ones(3, np.float32))
  del f
  gc.collect()
  size1, compiled1 = jaxpr_cache.cache_size(), compiled_jaxprs._compiled_jaxprs.size()
  print(f"\n200 jitted functions differentiated and dropped: jaxpr caches {size0} -> {size1}, "
        f"compiled programs {compiled0} -> {compiled1}")
  assert size1 <= size0 + 8
  assert compiled1 <= compiled0 + 8   # a program does not keep the jaxpr it is cached on
