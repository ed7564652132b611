"""Small timing helpers shared by the benchmark scripts (not a test)."""
from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))


def best_of(fn, repeat: int = 5, number: int = 100) -> float:
  """Best mean seconds per call over ``repeat`` rounds of ``number`` calls."""
  fn()
  best = float("inf")
  for _ in range(repeat):
    t0 = time.perf_counter()
    for _ in range(number):
      fn()
    best = min(best, (time.perf_counter() - t0) / number)
  return best


def once(fn) -> float:
  t0 = time.perf_counter()
  fn()
  return time.perf_counter() - t0


def reference_jax():
  """The reference JAX when it is importable in this environment (for ratios), else None."""
  try:
    import jax
    import jax.numpy as jnp
    return jax, jnp
  except ImportError:
    return None


def implementations():
  """[(label, jax-like module, numpy module, lax module)]: xjax, then JAX if importable."""
  import xjax
  import xjax.numpy as xnp
  from xjax import lax as xlax
  out = [("xjax", xjax, xnp, xlax)]
  ref = reference_jax()
  if ref:
    from jax import lax
    out.append(("jax", ref[0], ref[1], lax))
  return out


def report(name: str, ours: float, numpy_time: float | None = None,
           jax_time: float | None = None) -> None:
  parts = [f"{name:<44s} xjax {ours * 1e6:10.1f} us"]
  if numpy_time is not None:
    parts.append(f"numpy {numpy_time * 1e6:9.1f} us  xjax/numpy {ours / numpy_time:6.2f}x")
  if jax_time is not None:
    parts.append(f"jax {jax_time * 1e6:9.1f} us  xjax/jax {ours / jax_time:6.2f}x")
  print("  ".join(parts))
