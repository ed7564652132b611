"""Autodiff: grad of a 1,500-equation function and of a 4-layer 512-wide MLP loss.

Per implementation (xjax, and JAX when importable) it prints, eager and jitted, the time
per gradient call, its ratio to the forward pass, and the trace+compile time of jit(grad).
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

import numpy as np

from _timing import best_of, implementations, once


def chain(jnp):
  def f(x):
    for _ in range(500):
      x = jnp.sin(x) * 1.01 + 0.5   # 3 equations per step
    return jnp.sum(x)
  return f


def mlp(jnp):
  def loss(params, x, y):
    h = x
    for w, b in params[:-1]:
      h = jnp.tanh(h @ w + b)
    w, b = params[-1]
    out = h @ w + b
    return jnp.mean((out - y) ** 2)
  return loss


def mlp_data(jnp):
  rng = np.random.RandomState(0)
  sizes = [512, 512, 512, 512, 1]
  params = [(jnp.asarray(rng.randn(a, b).astype(np.float32) / np.sqrt(a)),
             jnp.zeros(b, jnp.float32)) for a, b in zip([512] + sizes[:-1], sizes)]
  x = jnp.asarray(rng.randn(256, 512).astype(np.float32))
  y = jnp.asarray(rng.randn(256, 1).astype(np.float32))
  return params, x, y


def block(tree, jax):
  return jax.block_until_ready(tree)


def measure(label, jax, jnp):
  rows = {}
  x = jnp.ones(8, jnp.float32)
  f = chain(jnp)
  fwd_jit, grad_jit = jax.jit(f), jax.jit(jax.grad(f))
  rows["chain compile (jit grad)"] = once(lambda: block(jax.jit(jax.grad(f))(x), jax))
  rows["chain fwd jit"] = best_of(lambda: block(fwd_jit(x), jax), number=50)
  rows["chain grad jit"] = best_of(lambda: block(grad_jit(x), jax), number=50)
  rows["chain fwd eager"] = best_of(lambda: block(f(x), jax), repeat=2, number=2)
  rows["chain grad eager"] = best_of(lambda: block(jax.grad(f)(x), jax), repeat=2, number=2)

  params, xb, yb = mlp_data(jnp)
  loss = mlp(jnp)
  lj, gj = jax.jit(loss), jax.jit(jax.grad(loss))
  rows["mlp compile (jit grad)"] = once(lambda: block(jax.jit(jax.grad(loss))(params, xb, yb),
                                                     jax))
  rows["mlp fwd jit"] = best_of(lambda: block(lj(params, xb, yb), jax), number=20)
  rows["mlp grad jit"] = best_of(lambda: block(gj(params, xb, yb), jax), number=20)
  rows["mlp fwd eager"] = best_of(lambda: block(loss(params, xb, yb), jax), number=5)
  rows["mlp grad eager"] = best_of(lambda: block(jax.grad(loss)(params, xb, yb), jax),
                                   number=5)
  return rows


def main():
  results = {label: measure(label, jax, jnp) for label, jax, jnp, _ in implementations()}
  ours = results["xjax"]
  for key, value in ours.items():
    line = f"{key:<28s} xjax {value * 1e3:9.3f} ms"
    if key.endswith(("grad jit", "grad eager")):
      fwd = ours[key.replace("grad", "fwd")]
      line += f"  grad/fwd {value / fwd:5.2f}x"
    if "jax" in results:
      line += f"  jax {results['jax'][key] * 1e3:9.3f} ms  xjax/jax {value / results['jax'][key]:5.2f}x"
    print(line)


if __name__ == "__main__":
  main()
