"""Linear algebra and FFT: jitted xjax (and JAX when importable) vs NumPy/SciPy.

cholesky, solve, eigh and svd of a 512x512 float32 matrix, a batched 256 x (32x32) solve
and a 2**20-point complex64 FFT.  Prints milliseconds and ratios.
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

import numpy as np
import scipy.linalg

from _timing import best_of, implementations


def _cases():
  rng = np.random.default_rng(0)
  a = rng.standard_normal((512, 512)).astype(np.float32)
  spd = (a @ a.T + 512 * np.eye(512)).astype(np.float32)
  b = rng.standard_normal((512, 8)).astype(np.float32)
  ab = rng.standard_normal((256, 32, 32)).astype(np.float32) + 8 * np.eye(32, dtype=np.float32)
  bb = rng.standard_normal((256, 32, 1)).astype(np.float32)
  z = (rng.standard_normal(2 ** 20) + 1j * rng.standard_normal(2 ** 20)).astype(np.complex64)
  return [  # (name, numpy/scipy callable, jax-like callable, args)
      ("cholesky 512", lambda x: scipy.linalg.cholesky(x, lower=True),
       lambda jnp, x: jnp.linalg.cholesky(x), (spd,)),
      ("solve 512", np.linalg.solve, lambda jnp, x, y: jnp.linalg.solve(x, y), (a, b)),
      ("eigh 512", np.linalg.eigh, lambda jnp, x: jnp.linalg.eigh(x), (spd,)),
      ("svd 512", lambda x: np.linalg.svd(x, full_matrices=False),
       lambda jnp, x: jnp.linalg.svd(x, full_matrices=False), (a,)),
      ("solve 256x32x32", np.linalg.solve, lambda jnp, x, y: jnp.linalg.solve(x, y), (ab, bb)),
      ("fft 2**20 c64", np.fft.fft, lambda jnp, x: jnp.fft.fft(x), (z,)),
  ]


def main():
  impls = implementations()
  header = f"{'case':<18s}{'numpy':>10s}" + "".join(f"{label:>10s}{'/np':>7s}"
                                                    for label, *_ in impls)
  if len(impls) > 1:
    header += f"{'xjax/jax':>10s}"
  print(header + "   (ms)")
  for name, np_fn, fn, args in _cases():
    t_np = best_of(lambda: np_fn(*args), repeat=3, number=3)
    row = f"{name:<18s}{t_np * 1e3:10.2f}"
    times = []
    for label, jax, jnp, _ in impls:
      xs = [jax.device_put(x) for x in args]
      f = jax.jit(lambda *v, jnp=jnp: fn(jnp, *v))
      t = best_of(lambda: jax.block_until_ready(f(*xs)), repeat=3, number=3)
      times.append(t)
      row += f"{t * 1e3:10.2f}{t / t_np:7.2f}"
    if len(times) > 1:
      row += f"{times[0] / times[1]:10.2f}"
    print(row)


if __name__ == "__main__":
  main()
