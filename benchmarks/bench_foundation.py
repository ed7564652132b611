"""Foundation benchmarks: dispatch overheads, tracing+lowering cost, the seed's norm(X).

Run: .venv/bin/python benchmarks/bench_foundation.py
(With the reference JAX importable, e.g. PYTHONPATH=. /path/to/jax-venv/bin/python ...,
the ratios against JAX are printed too.)
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))

import numpy as np

import xjax
import xjax.numpy as xnp
from _timing import best_of, once, reference_jax, report

ref = reference_jax()


def jit_dispatch():
  x = xnp.ones(3)
  f = xjax.jit(lambda a: a + 1)
  ours = best_of(lambda: f(x), number=2000)
  theirs = None
  if ref:
    jax, jnp = ref
    jx = jnp.ones(3)
    g = jax.jit(lambda a: a + 1)
    theirs = best_of(lambda: g(jx), number=2000)
  nx = np.ones(3, np.float32)
  report("jit dispatch, tiny function", ours, best_of(lambda: nx + 1, number=2000), theirs)

  def add_one(a):
    return a + 1
  # `jax.jit(f)(x)` inside a loop: a new wrapper of the same function each call
  ours = best_of(lambda: xjax.jit(add_one)(x), number=1000)
  theirs = None
  if ref:
    theirs = best_of(lambda: ref[0].jit(add_one)(jx), number=1000)
  report("new jit wrapper each call, tiny function", ours, None, theirs)


def eager_dispatch():
  x = xnp.ones(3)
  ours = best_of(lambda: xnp.sin(x), number=2000)
  theirs = None
  if ref:
    jax, jnp = ref
    jx = jnp.ones(3)
    theirs = best_of(lambda: jnp.sin(jx), number=2000)
  nx = np.ones(3, np.float32)
  report("eager dispatch, one op (sin)", ours, best_of(lambda: np.sin(nx), number=2000), theirs)


def long_chain(mod):
  def f(x):
    for i in range(500):
      x = mod.sin(x) * 1.01 + 0.5   # 3 equations per step: 1,500 equations
    return x
  return f


def trace_and_lower():
  # A fresh function each time, so neither implementation can reuse a cached trace.
  ours = min(once(lambda: xjax.jit(long_chain(xnp)).lower(np.ones(8, np.float32)).as_text())
             for _ in range(3))
  theirs = None
  if ref:
    jax, jnp = ref
    theirs = min(once(lambda: jax.jit(long_chain(jnp)).lower(np.ones(8, np.float32)).as_text())
                 for _ in range(3))
  report("trace+lower, 1,500 equations", ours, None, theirs)
  f = long_chain(xnp)
  again = min(once(lambda: xjax.jit(f).lower(np.ones(8, np.float32)).as_text())
              for _ in range(3))
  theirs = None
  if ref:
    g = long_chain(ref[1])
    theirs = min(once(lambda: ref[0].jit(g).lower(np.ones(8, np.float32)).as_text())
                 for _ in range(3))
  report("re-jit of a traced function, lower", again, None, theirs)


def norm_benchmark():
  def norm(X, mod):
    X = X - X.mean(0)
    return X / X.std(0)

  Xn = np.random.RandomState(1701).rand(10000, 10).astype(np.float32)
  X = xnp.asarray(Xn)
  f = xjax.jit(lambda X: norm(X, xnp))
  ours = best_of(lambda: f(X).block_until_ready(), number=50)
  eager = best_of(lambda: norm(X, xnp).block_until_ready(), number=20)
  numpy_time = best_of(lambda: norm(Xn, np), number=50)
  theirs = None
  if ref:
    jax, jnp = ref
    jX = jnp.asarray(Xn)
    g = jax.jit(lambda X: norm(X, jnp))
    theirs = best_of(lambda: g(jX).block_until_ready(), number=50)
  report("norm(X) 10000x10, jit", ours, numpy_time, theirs)
  report("norm(X) 10000x10, eager", eager, numpy_time, None)


if __name__ == "__main__":
  jit_dispatch()
  eager_dispatch()
  trace_and_lower()
  norm_benchmark()
