"""Trace + lower of a 1,000-equation function of a user-defined primitive (issue 23): its
lowering made with ``mlir.lower_fun`` and built with the MLIR bindings, xjax vs JAX.

Run: ``.venv/bin/python benchmarks/bench_extend.py`` (xjax only), and with the ratios:
``PYTHONPATH=/work/main /work/refjax/bin/python benchmarks/bench_extend.py``.
"""
import numpy as np
from _timing import best_of, implementations

from jaxlib.mlir.dialects import stablehlo as hlo   # what JAX's `hlo` dialect module is

N = 1000


def make_primitive(jax_like, lowering: str):
  core = __import__(f"{jax_like.__name__}.extend.core", fromlist=["core"])
  mlir = __import__(f"{jax_like.__name__}.interpreters.mlir", fromlist=["mlir"])
  prim = core.Primitive(f"fma_{lowering}")
  prim.def_abstract_eval(lambda a, b, c: jax_like.core.ShapedArray(a.shape, a.dtype))
  if lowering == "lower_fun":
    mlir.register_lowering(prim, mlir.lower_fun(lambda a, b, c: a * b + c,
                                                multiple_results=False))
  else:
    mlir.register_lowering(prim, lambda ctx, a, b, c: [hlo.AddOp(hlo.MulOp(a, b), c).result])
  return prim


def chain(prim):
  def f(x):
    for _ in range(N):
      x = prim.bind(x, x, x)
    return x
  return f


def main():
  x = np.ones((4,), np.float32)
  times = {}
  for label, jax_like, _, _ in implementations():
    for lowering in ("lower_fun", "bindings"):
      prim = make_primitive(jax_like, lowering)
      times[label, lowering] = best_of(lambda: jax_like.jit(chain(prim)).lower(x),
                                       repeat=3, number=2)
  for lowering in ("lower_fun", "bindings"):
    ours, ref = times["xjax", lowering], times.get(("jax", lowering))
    line = f"trace+lower {N} x user primitive ({lowering:9s})  xjax {ours * 1e3:8.1f} ms"
    if ref is not None:
      line += f"  jax {ref * 1e3:8.1f} ms  xjax/jax {ours / ref:5.2f}x"
    print(line)


if __name__ == "__main__":
  main()
