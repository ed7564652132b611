"""Transformations of jitted functions and of control flow, called eagerly in a loop.

``grad(jit(f))(x)`` and friends must reuse their jaxprs and executables: each row prints
the time per call, the growth of the resident set over the loop, and the ratio to JAX
when the reference is importable (run it as
``PYTHONPATH=/work/main /work/refjax/bin/python benchmarks/bench_reliability.py``).
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

from _timing import best_of, implementations


def rss_mib() -> float:
  with open("/proc/self/statm") as f:
    return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def cases(jax, jnp, lax):
  @jax.jit
  def f(x):
    return jnp.sum(jnp.sin(x) * x)

  def body(c, x):
    return c * 0.9 + jnp.sin(x), c

  def scanned(x):
    c, ys = lax.scan(body, x[0], x)
    return c + ys.sum()

  def branchy(x):
    return lax.cond(x.sum() > 0, jnp.sin, jnp.cos, x).sum()

  def step(i, c):
    return c * 1.01 + jnp.sin(c)

  def looped(x):
    return lax.fori_loop(0, 5, step, x).sum()

  x, xb = jnp.ones(100), jnp.ones((4, 100))
  return {
      "grad(jit(f))": (jax.grad(f), x),
      "vmap(jit(f))": (jax.vmap(f), xb),
      "jvp(jit(f))": (lambda x: jax.jvp(f, (x,), (x,)), x),
      "vjp(jit(f))": (lambda x: jax.vjp(f, x)[1](1.0), x),
      "linearize(jit(f))": (lambda x: jax.linearize(f, x)[1](x), x),
      "grad(scan)": (jax.grad(scanned), x),
      "vmap(scan)": (jax.vmap(scanned), xb),
      "grad(cond)": (jax.grad(branchy), x),
      "jvp(cond)": (lambda x: jax.jvp(branchy, (x,), (x,)), x),
      "grad(fori_loop)": (jax.grad(looped), x),
  }


def measure(jax, jnp, lax, calls: int = 300) -> dict:
  rows = {}
  for name, (fn, x) in cases(jax, jnp, lax).items():
    run = lambda: jax.block_until_ready(fn(x))
    for _ in range(20):  # warm up: compile and fill the caches
      run()
    before = rss_mib()
    for _ in range(calls):
      run()
    grown = rss_mib() - before
    rows[name] = (best_of(run, repeat=3, number=50), grown)
  return rows


def main() -> None:
  results = {label: measure(jax, jnp, lax) for label, jax, jnp, lax in implementations()}
  ours = results["xjax"]
  ref = results.get("jax")
  for name, (t, grown) in ours.items():
    line = f"{name:<20s} xjax {t * 1e3:7.3f} ms/call  rss {grown:+6.1f} MiB/300 calls"
    if ref:
      rt, rgrown = ref[name]
      line += (f"  jax {rt * 1e3:7.3f} ms/call  rss {rgrown:+6.1f} MiB  "
               f"xjax/jax {t / rt:5.2f}x")
    print(line)


if __name__ == "__main__":
  main()
