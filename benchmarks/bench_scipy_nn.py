"""scipy/nn: logsumexp over 4096x4096 and dot_product_attention (batch 8, 8 heads, 512
tokens, 64 dims) under jit, and minimize (BFGS, Rosenbrock in 100 dimensions) wall time;
xjax vs SciPy/NumPy and vs the reference JAX when importable (target <= 1.1x for the
jitted kernels)."""
from __future__ import annotations

import importlib
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

import numpy as np
import scipy.optimize
import scipy.special

from _timing import best_of, once, reference_jax

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))


def modules():
  out = [("xjax", importlib.import_module("xjax"))]
  if reference_jax() is not None:
    out.append(("jax", importlib.import_module("jax")))
  return out


def run(label, jax):
  jnp = importlib.import_module(f"{label}.numpy")
  special = importlib.import_module(f"{label}.scipy.special")
  optimize = importlib.import_module(f"{label}.scipy.optimize")
  rng = np.random.RandomState(0)
  a = jnp.asarray(rng.randn(4096, 4096).astype(np.float32))
  lse = jax.jit(lambda x: special.logsumexp(x, axis=1))
  t_lse = best_of(lambda: lse(a).block_until_ready(), repeat=3, number=10)
  q, k, v = (jnp.asarray(rng.randn(8, 512, 8, 64).astype(np.float32)) for _ in range(3))
  att = jax.jit(lambda q, k, v: jax.nn.dot_product_attention(q, k, v, is_causal=True))
  t_att = best_of(lambda: att(q, k, v).block_until_ready(), repeat=3, number=5)

  def rosen(x):
    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)
  solve = jax.jit(lambda x0: optimize.minimize(rosen, x0, method="BFGS").x)
  x0 = jnp.zeros(100)
  t_first = once(lambda: solve(x0).block_until_ready())
  t_min = best_of(lambda: solve(x0).block_until_ready(), repeat=3, number=1)
  return {"logsumexp": t_lse, "attention": t_att, "minimize (first call)": t_first,
          "minimize": t_min}


def main():
  a = np.random.RandomState(0).randn(4096, 4096).astype(np.float32)
  baseline = {"logsumexp": best_of(lambda: scipy.special.logsumexp(a, axis=1), 3, 3)}

  def rosen(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)
  baseline["minimize"] = once(lambda: scipy.optimize.minimize(rosen, np.zeros(100),
                                                              method="BFGS"))
  results = {label: run(label, mod) for label, mod in modules()}
  for name in results["xjax"]:
    line = f"{name:22s} xjax {results['xjax'][name] * 1e3:9.2f} ms"
    if name in baseline:
      line += f"  scipy {baseline[name] * 1e3:9.2f} ms (x{results['xjax'][name] / baseline[name]:.2f})"
    if "jax" in results:
      line += (f"  jax {results['jax'][name] * 1e3:9.2f} ms "
               f"(x{results['xjax'][name] / results['jax'][name]:.2f})")
    print(line)


if __name__ == "__main__":
  main()
