"""The performance table: every row of the performance issue, xjax against JAX in one run.

Run: .venv/bin/python benchmarks/bench_table.py               (xjax and NumPy only)
     PYTHONPATH=. /path/to/jax-venv/bin/python benchmarks/bench_table.py   (adds JAX and ratios)
Each row is the best mean over many samples, the implementations taking turns sample by sample
(this machine is shared: its load moves from one second to the next); compiled rows include
`block_until_ready`.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))

import numpy as np

from _timing import implementations
from bench_autodiff import mlp, mlp_data


def rnn_grad(jax, jnp, lax):
  T, H = 100, 128
  rng = np.random.RandomState(0)
  W = jnp.asarray(rng.randn(H, H).astype(np.float32) / np.sqrt(H))
  xs = jnp.asarray(rng.randn(T, H).astype(np.float32))

  def loss(W, xs):
    def step(h, x):
      h = jnp.tanh(h @ W + x)
      return h, h
    _, hs = lax.scan(step, jnp.zeros(H, jnp.float32), xs)
    return jnp.sum(hs ** 2)

  g = jax.jit(jax.grad(loss))
  return lambda: g(W, xs).block_until_ready(), 50


def mlp_grad(jax, jnp, lax):
  params, x, y = mlp_data(jnp)
  g = jax.jit(jax.grad(mlp(jnp)))
  return lambda: jax.block_until_ready(g(params, x, y)), 20


def conv_step(jax, jnp, lax):
  rng = np.random.RandomState(0)
  x = jnp.asarray(rng.randn(16, 3, 32, 32).astype(np.float32))
  k1 = jnp.asarray(rng.randn(16, 3, 3, 3).astype(np.float32) * 0.2)
  k2 = jnp.asarray(rng.randn(32, 16, 3, 3).astype(np.float32) * 0.1)

  def loss(ks, x):
    h = jax.nn.relu(lax.conv_general_dilated(x, ks[0], (1, 1), "SAME"))
    h = jax.nn.relu(lax.conv_general_dilated(h, ks[1], (2, 2), "SAME"))
    return jnp.mean(h ** 2)

  @jax.jit
  def step(ks, x):
    grads = jax.grad(loss)(ks, x)
    return [k - 0.01 * gk for k, gk in zip(ks, grads)]

  ks = [k1, k2]
  return lambda: jax.block_until_ready(step(ks, x)), 20


def while_solver(jax, jnp, lax):
  # Newton iterations for sqrt(a), elementwise, until converged.
  a = jnp.asarray(np.linspace(1.0, 100.0, 4096).astype(np.float32))

  @jax.jit
  def solve(a):
    def cond(state):
      x, i = state
      return jnp.logical_and(jnp.max(jnp.abs(x * x - a)) > 1e-3, i < 100)

    def body(state):
      x, i = state
      return 0.5 * (x + a / x), i + 1
    return lax.while_loop(cond, body, (a, 0))[0]

  return lambda: solve(a).block_until_ready(), 100


def attention(jax, jnp, lax):
  rng = np.random.RandomState(0)
  q, k, v = (jnp.asarray(rng.randn(4, 128, 8, 64).astype(np.float32)) for _ in range(3))
  f = jax.jit(jax.nn.dot_product_attention)
  return lambda: f(q, k, v).block_until_ready(), 50


def eager_norm(jax, jnp, lax):
  X = jnp.asarray(np.random.RandomState(1701).rand(10000, 10).astype(np.float32))

  def norm():
    Y = X - X.mean(0)
    return (Y / Y.std(0)).block_until_ready()
  return norm, 20


def eager_chain(jax, jnp, lax):
  x = jnp.ones(8, jnp.float32)

  def chain():
    y = x
    for _ in range(500):
      y = jnp.sin(y) * 1.01 + 0.5
    return y.block_until_ready()
  return chain, 2


def eager_add(jax, jnp, lax):
  s = jnp.ones(3, jnp.float32)
  return lambda: s + s, 2000


def jit_dispatch(leaves):
  def make(jax, jnp, lax):
    f = jax.jit(lambda t: t)
    tree = [jnp.ones(3, jnp.float32) for _ in range(leaves)] if leaves > 1 else jnp.ones(3)
    if leaves == 1:
      f = jax.jit(lambda a: a + a)
    return lambda: f(tree), 2000 if leaves < 100 else 500
  return make


def jit_dispatch_nested(jax, jnp, lax):
  """A training step's signature: flax-style nested parameter dicts and an optimizer state
  (a tuple of the same structure), 16 leaves, returned updated."""
  params = {"params": {f"Dense_{i}": {"bias": jnp.ones(3), "kernel": jnp.ones((3, 3))}
                       for i in range(4)}}
  state = (params, ())
  f = jax.jit(lambda p, s: (p, s))
  return lambda: f(params, state), 2000


ROWS = [
    ("jit(grad) scan RNN T=100 H=128", rnn_grad),
    ("jit(grad) MLP 4x512, batch 256", mlp_grad),
    ("jit convnet step (2 convs + grad)", conv_step),
    ("jit while_loop Newton solver", while_solver),
    ("jit dot_product_attention", attention),
    ("eager norm(X) 10000x10", eager_norm),
    ("eager chain of 1,500 ops", eager_chain),
    ("eager s + s, 3-vector", eager_add),
    ("jit dispatch a + a", jit_dispatch(1)),
    ("jit dispatch, 10-leaf pytree", jit_dispatch(10)),
    ("jit dispatch, 100-leaf pytree", jit_dispatch(100)),
    ("jit dispatch, nested dicts (16 leaves)", jit_dispatch_nested),
]


def main():
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  parser.add_argument("--rounds", type=int, default=15,
                      help="samples per row and implementation, the implementations taking "
                           "turns sample by sample (first in one round, last in the next); a "
                           "row's time is its best sample")
  parser.add_argument("rows", nargs="*", help="run only rows whose name holds one of these words")
  args = parser.parse_args()
  impls = implementations()
  print(f"{'benchmark':<36s}" + "".join(f"{label:>14s}" for label, *_ in impls)
        + ("   xjax/jax" if len(impls) > 1 else ""))
  for name, make in ROWS:
    if args.rows and not any(word in name for word in args.rows):
      continue
    calls = [make(jax, jnp, lax) for _, jax, jnp, lax in impls]
    times = [float("inf")] * len(impls)
    for fn, _ in calls:
      fn()
    for r in range(args.rounds):
      for i in (range(len(impls)) if r % 2 == 0 else reversed(range(len(impls)))):
        fn, number = calls[i]
        t0 = time.perf_counter()
        for _ in range(number):
          fn()
        times[i] = min(times[i], (time.perf_counter() - t0) / number)
    cells = "".join(f"{t * 1e6:11.1f} us" for t in times)
    ratio = f"   {times[0] / times[1]:6.2f}x" if len(times) > 1 else ""
    print(f"{name:<36s}{cells}{ratio}", flush=True)


if __name__ == "__main__":
  main()
