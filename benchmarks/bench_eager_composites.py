"""Eager calls of multi-op jax.numpy / jax.scipy functions that JAX jits (so one eager call
is one compiled program): xjax vs the reference JAX when importable, on 64x64 float32
(and int32 for gcd), microseconds per call and xjax/jax ratios."""
from __future__ import annotations

import importlib
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

import numpy as np

from _timing import best_of, reference_jax


def cases(lib):
  jnp = importlib.import_module(f"{lib}.numpy")
  special = importlib.import_module(f"{lib}.scipy.special")
  stats = importlib.import_module(f"{lib}.scipy.stats")
  rng = np.random.RandomState(0)
  x = jnp.asarray(rng.randn(64, 64).astype(np.float32))
  y = jnp.asarray(rng.randn(64, 64).astype(np.float32))
  v = jnp.asarray(np.sort(rng.randn(64)).astype(np.float32))
  n = jnp.asarray(rng.randint(1, 1000, (64, 64)).astype(np.int32))
  p = jnp.asarray(rng.randn(8).astype(np.float32))
  return {
      "hypot": lambda: jnp.hypot(x, y),
      "sinc": lambda: jnp.sinc(x),
      "log10": lambda: jnp.log10(x),
      "round(decimals=2)": lambda: jnp.round(x, 2),
      "nan_to_num": lambda: jnp.nan_to_num(x),
      "clip": lambda: jnp.clip(x, -1, 1),
      "isclose": lambda: jnp.isclose(x, y),
      "fmax": lambda: jnp.fmax(x, y),
      "spacing": lambda: jnp.spacing(x),
      "i0": lambda: jnp.i0(x),
      "gcd (int32)": lambda: jnp.gcd(n, n.T),
      "cumsum(axis=0)": lambda: jnp.cumsum(x, axis=0),
      "nanvar(axis=0)": lambda: jnp.nanvar(x, axis=0),
      "median(axis=1)": lambda: jnp.median(x, axis=1),
      "percentile(25, axis=0)": lambda: jnp.percentile(x, 25.0, axis=0),
      "argsort(axis=1)": lambda: jnp.argsort(x, axis=1),
      "diff(n=2)": lambda: jnp.diff(x, n=2),
      "cov": lambda: jnp.cov(x),
      "corrcoef": lambda: jnp.corrcoef(x),
      "trapezoid": lambda: jnp.trapezoid(x),
      "polyval (8 coeffs)": lambda: jnp.polyval(p, x),
      "kron (8x8, 8x8)": lambda: jnp.kron(x[:8, :8], y[:8, :8]),
      "trace(offset=1)": lambda: jnp.trace(x, 1),
      "digitize": lambda: jnp.digitize(x, v),
      "unwrap": lambda: jnp.unwrap(x * 3),
      "sici": lambda: special.sici(x)[1],
      "hyp1f1": lambda: special.hyp1f1(0.5, 1.5, x),
      "truncnorm.logpdf": lambda: stats.truncnorm.logpdf(x, -1.0, 2.0),
  }


def run(lib):
  out = {}
  for name, fn in cases(lib).items():
    call = lambda: fn().block_until_ready()
    out[name] = best_of(call, repeat=3, number=50)
  return out


def main():
  ours = run("xjax")
  ref = run("jax") if reference_jax() is not None else None
  print(f"{'eager call (64x64 float32)':<28s} {'xjax us':>9s}" +
        (f" {'jax us':>9s} {'xjax/jax':>9s}" if ref else ""))
  ratios = []
  for name, t in ours.items():
    line = f"{name:<28s} {t * 1e6:9.1f}"
    if ref:
      ratios.append(t / ref[name])
      line += f" {ref[name] * 1e6:9.1f} {t / ref[name]:8.2f}x"
    print(line)
  if ratios:
    print(f"{'geometric mean':<28s} {'':>9s} {'':>9s} {float(np.exp(np.mean(np.log(ratios)))):8.2f}x")


if __name__ == "__main__":
  main()
