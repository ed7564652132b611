"""The persistent compilation cache: the first call of a 1,500-equation jitted function in a
fresh process, with an empty cache, again in a second process (the executable comes from
the cache), and with the cache off.  The second process should take at most 0.3x the first.

    python benchmarks/bench_compilation_cache.py
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

FIRST_CALL = """
import time
import xjax, xjax.numpy as jnp

def f(x):
  for _ in range(500):
    x = jnp.sin(x) * 1.001 + jnp.cos(x)
  return x

x = jnp.ones(8)
t0 = time.perf_counter()
xjax.jit(f)(x).block_until_ready()
print(time.perf_counter() - t0)
"""


def first_call_seconds(cache_dir: str, cache_on: bool = True) -> float:
  env = dict(os.environ, XDG_CACHE_HOME=cache_dir, PYTHONPATH=str(REPO))
  env.pop("JAX_COMPILATION_CACHE_DIR", None)
  env["XJAX_COMPILATION_CACHE"] = "1" if cache_on else "0"
  done = subprocess.run([sys.executable, "-c", FIRST_CALL], env=env, capture_output=True,
                        text=True, check=True, cwd=tempfile.gettempdir())
  return float(done.stdout.split()[-1])


def main() -> None:
  with tempfile.TemporaryDirectory() as cache_dir:
    first = first_call_seconds(cache_dir)
    second = first_call_seconds(cache_dir)
    off = first_call_seconds(cache_dir, cache_on=False)
  print(f"{'first call, 1,500 equations':<40s}{'ms':>10s}")
  print(f"{'first process (empty cache)':<40s}{first * 1e3:10.1f}")
  print(f"{'second process (from the cache)':<40s}{second * 1e3:10.1f}   {second / first:.2f}x")
  print(f"{'cache off':<40s}{off * 1e3:10.1f}")


if __name__ == "__main__":
  main()
