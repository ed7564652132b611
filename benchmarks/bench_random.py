"""xjax.random: 10M normals under jit, split into 10,000 keys, and eager uniform dispatch.

Prints xjax's time per call, NumPy's (``default_rng().standard_normal`` for the normals),
and the reference JAX's when it is importable, with the ratios.
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

import numpy as np

from _timing import best_of, implementations, report


def measure(jax):
  random = jax.random
  key = random.key(0)
  normal = jax.jit(lambda k: random.normal(k, (10_000_000,)))
  split = jax.jit(lambda k: random.split(k, 10_000))
  normal(key).block_until_ready()
  split(key).block_until_ready()
  random.uniform(key).block_until_ready()
  return {
      "jit normal(key, (10_000_000,))": best_of(
          lambda: normal(key).block_until_ready(), repeat=5, number=3),
      "jit split(key, 10_000)": best_of(lambda: split(key).block_until_ready(), number=50),
      "eager uniform(key)": best_of(lambda: random.uniform(key).block_until_ready(),
                                    number=200),
  }


def main():
  results = {label: measure(jax) for label, jax, _, _ in implementations()}
  rng = np.random.default_rng(0)
  numpy_times = {"jit normal(key, (10_000_000,))": best_of(
      lambda: rng.standard_normal(10_000_000, dtype=np.float32), repeat=5, number=3)}
  for name, ours in results["xjax"].items():
    theirs = results.get("jax", {}).get(name)
    report(name, ours, numpy_times.get(name), theirs)


if __name__ == "__main__":
  main()
