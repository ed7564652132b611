"""Control flow: a 1,000-step update as a Python loop vs lax.fori_loop (jaxpr size,
trace+compile time, run time), and a scan RNN forward+backward (seq 100, hidden 128)."""
from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))

import numpy as np

from _timing import best_of, implementations

STEPS = 1000


def loops(label, jax, jnp, lax):
  def step(x):
    return x * 0.999 + jnp.sin(x) * 0.001

  def python_loop(x):
    for _ in range(STEPS):
      x = step(x)
    return x

  def fori(x):
    return lax.fori_loop(0, STEPS, lambda i, x: step(x), x)

  x = jnp.ones(16, jnp.float32)
  for name, fn in (("python loop", python_loop), ("fori_loop", fori)):
    n_eqns = len(jax.make_jaxpr(fn)(x).jaxpr.eqns)
    t0 = time.perf_counter()
    f = jax.jit(fn)
    jax.block_until_ready(f(x))
    compile_time = time.perf_counter() - t0
    run = best_of(lambda: jax.block_until_ready(f(x)), number=20)
    print(f"{label}: {name:<12s} jaxpr eqns {n_eqns:5d}   trace+compile {compile_time * 1e3:8.1f} ms"
          f"   run {run * 1e3:7.3f} ms")


def rnn(label, jax, jnp, lax):
  rng = np.random.RandomState(0)
  T, H = 100, 128
  wx = jnp.asarray(rng.randn(H, H).astype(np.float32) / 12)
  wh = jnp.asarray(rng.randn(H, H).astype(np.float32) / 12)
  xs = jnp.asarray(rng.randn(T, 8, H).astype(np.float32))

  def loss(params, xs):
    wx, wh = params
    def cell(h, x):
      h = jnp.tanh(x @ wx + h @ wh)
      return h, jnp.sum(h)
    _, outs = lax.scan(cell, jnp.zeros((8, H), jnp.float32), xs)
    return jnp.sum(outs)

  g = jax.jit(jax.value_and_grad(loss))
  t0 = time.perf_counter()
  jax.block_until_ready(g((wx, wh), xs))
  compile_time = time.perf_counter() - t0
  run = best_of(lambda: jax.block_until_ready(g((wx, wh), xs)), number=10)
  print(f"{label}: scan RNN fwd+bwd (T={T}, H={H}, batch 8): compile {compile_time * 1e3:7.1f} ms"
        f"   {run * 1e3:7.3f} ms per call, {run / T * 1e6:7.2f} us per step")
  return run


def main():
  times = {}
  for label, jax, jnp, lax in implementations():
    loops(label, jax, jnp, lax)
    times[label] = rnn(label, jax, jnp, lax)
  if "jax" in times:
    print(f"scan RNN xjax/jax: {times['xjax'] / times['jax']:.2f}x")


if __name__ == "__main__":
  main()
