"""Data-parallel MLP step time on 1, 2 and 4 CPU devices with pmap (weak scaling: 64
examples per device), for xjax and, when importable, JAX.

    .venv/bin/python benchmarks/parallel_scaling.py
    PYTHONPATH=/work/main /work/refjax/bin/python benchmarks/parallel_scaling.py
"""
import time

import numpy as np


def bench(jax, n_dev: int, per_device: int = 64, reps: int = 30) -> float:
  jnp = jax.numpy

  def loss(p, x, y):
    h = jnp.tanh(x @ p["w1"])
    return jnp.mean((h @ p["w2"] - y) ** 2)

  def body(p, x, y):
    g = jax.lax.pmean(jax.grad(loss)(p, x, y), "b")
    return jax.tree_util.tree_map(lambda a, b: a - 0.1 * b, p, g)

  step = jax.pmap(body, axis_name="b", in_axes=(None, 0, 0), out_axes=None,
                  devices=jax.devices()[:n_dev])
  rng = np.random.RandomState(0)
  p = {"w1": rng.normal(size=(64, 256)).astype(np.float32) * 0.1,
       "w2": rng.normal(size=(256, 1)).astype(np.float32) * 0.1}
  x = rng.normal(size=(n_dev, per_device, 64)).astype(np.float32)
  y = rng.normal(size=(n_dev, per_device, 1)).astype(np.float32)
  jax.block_until_ready(step(p, x, y))
  start = time.perf_counter()
  for _ in range(reps):
    out = step(p, x, y)
  jax.block_until_ready(out)
  return (time.perf_counter() - start) / reps * 1e6


def main():
  import xjax
  xjax.config.update("jax_num_cpu_devices", 4)
  try:
    import jax
    jax.config.update("jax_num_cpu_devices", 4)
  except ImportError:
    jax = None
  print(f"{'devices':>8} {'xjax us/step':>13} {'jax us/step':>12} {'xjax/jax':>9}")
  for n in (1, 2, 4):
    ours = bench(xjax, n)
    theirs = bench(jax, n) if jax is not None else float("nan")
    print(f"{n:>8} {ours:>13.0f} {theirs:>12.0f} {ours / theirs:>9.2f}")


if __name__ == "__main__":
  main()
