"""Host-callback overheads: a debug.print (to a null stream) inside a jitted 1,000-step
fori_loop, and a pure_callback round trip under jit; vs the reference JAX when importable.

Run: .venv/bin/python benchmarks/bench_callbacks.py
     PYTHONPATH=. /work/refjax/bin/python benchmarks/bench_callbacks.py   (with JAX ratios)
"""
from __future__ import annotations

import contextlib
import io
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

import numpy as np

from _timing import best_of, implementations, report


def print_loop(jax, jnp, lax):
  def body(i, c):
    jax.debug.print("step {i} {c}", i=i, c=c)
    return c + 1.0
  f = jax.jit(lambda x: lax.fori_loop(0, 1000, body, x))
  sink = io.StringIO()
  with contextlib.redirect_stdout(sink):
    return best_of(lambda: f(jnp.float32(0)).block_until_ready(), repeat=3, number=3)


def round_trip(jax, jnp, lax):
  x = jnp.ones(16)
  f = jax.jit(lambda x: jax.pure_callback(np.sin, jax.ShapeDtypeStruct(x.shape, x.dtype), x))
  return best_of(lambda: f(x).block_until_ready(), number=300)


def main() -> None:
  impls = implementations()
  for name, bench in [("debug.print in jitted 1,000-step fori_loop", print_loop),
                      ("pure_callback round trip (jit, f32[16])", round_trip)]:
    times = {label: bench(jax, jnp, lax) for label, jax, jnp, lax in impls}
    report(name, times["xjax"], jax_time=times.get("jax"))


if __name__ == "__main__":
  main()
