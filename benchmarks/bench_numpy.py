"""The FAQ's benchmark: f(x) = x.T @ (x - x.mean(axis=0)) on 1000x1000 float32,
NumPy vs xjax eager vs xjax jit (and JAX when importable)."""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

import numpy as np

from _timing import best_of, implementations


def f(x):
  return x.T @ (x - x.mean(axis=0))


def main():
  x_np = np.ones((1000, 1000), dtype=np.float32)
  numpy_time = best_of(lambda: f(x_np), number=10)
  print(f"numpy            {numpy_time * 1e3:8.2f} ms")
  for label, jax, jnp, _ in implementations():
    x = jax.device_put(x_np)
    f_jit = jax.jit(f)
    eager = best_of(lambda: f(x).block_until_ready(), number=10)
    jitted = best_of(lambda: f_jit(x).block_until_ready(), number=10)
    print(f"{label:<5s} eager       {eager * 1e3:8.2f} ms   /numpy {eager / numpy_time:5.2f}x")
    print(f"{label:<5s} jit         {jitted * 1e3:8.2f} ms   /numpy {jitted / numpy_time:5.2f}x")


if __name__ == "__main__":
  main()
