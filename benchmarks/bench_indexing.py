"""Indexing: a loop of .at[i].set inside fori_loop updates in place (no whole-array copy).

A copy per step would cost O(n) per update; in place it is O(1).  We time 1,000 updates
of a 1,000,000-element array and compare with NumPy's in-place loop.
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

import numpy as np

from _timing import best_of, implementations

N, STEPS = 1_000_000, 1_000


def numpy_loop(x):
  for i in range(STEPS):
    x[i] = x[i] * 2.0 + 1.0
  return x


def main():
  xn = np.ones(N, np.float32)
  numpy_time = best_of(lambda: numpy_loop(xn), number=3)
  results = {}
  for label, jax, jnp, lax in implementations():
    def run(x):
      return lax.fori_loop(0, STEPS, lambda i, x: x.at[i].set(x[i] * 2.0 + 1.0), x)
    f = jax.jit(run)
    x = jnp.ones(N, jnp.float32)
    results[label] = best_of(lambda: f(x).block_until_ready(), number=3)
    copy = best_of(lambda: (x + 0).block_until_ready(), number=10)
    print(f"{label}: {STEPS} x .at[i].set in fori_loop on {N:,} floats: "
          f"{results[label] * 1e3:8.2f} ms  (numpy loop {numpy_time * 1e3:6.2f} ms, "
          f"ratio {results[label] / numpy_time:5.2f}x; one full copy costs "
          f"{copy * 1e3:.2f} ms, so {STEPS} copies would be ~{copy * STEPS * 1e3:.0f} ms)")
  if "jax" in results:
    print(f"xjax/jax: {results['xjax'] / results['jax']:.2f}x")


if __name__ == "__main__":
  main()
