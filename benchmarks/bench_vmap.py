"""vmap: per-example loss gradients (batch 256) three ways, after jit.

vmapped grad vs a Python loop over examples vs a hand-batched version (the gradient of
each example's loss written with explicit batch dimensions).  The target: vmapped within
1.2x of hand-batched.
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

import numpy as np

from _timing import best_of, implementations

B, D, H = 256, 64, 128


def run(label, jax, jnp):
  rng = np.random.RandomState(0)
  w1 = jnp.asarray(rng.randn(D, H).astype(np.float32) / 8)
  w2 = jnp.asarray(rng.randn(H).astype(np.float32) / 8)
  xs = jnp.asarray(rng.randn(B, D).astype(np.float32))
  ys = jnp.asarray(rng.randn(B).astype(np.float32))

  def loss(params, x, y):
    a, b = params
    return (jnp.tanh(x @ a) @ b - y) ** 2

  per_example = jax.jit(jax.vmap(jax.grad(loss), in_axes=(None, 0, 0)))

  def hand(params, x, y):  # d/da and d/db of each example's loss, batched by hand
    a, b = params
    h = jnp.tanh(x @ a)                      # [B, H]
    r = 2 * (h @ b - y)                      # [B]
    db = r[:, None] * h                      # [B, H]
    dh = r[:, None] * b[None, :] * (1 - h ** 2)
    da = x[:, :, None] * dh[:, None, :]      # [B, D, H]
    return da, db

  hand_batched = jax.jit(hand)
  single = jax.jit(jax.grad(loss))
  params = (w1, w2)
  t_vmap = best_of(lambda: jax.block_until_ready(per_example(params, xs, ys)), number=20)
  t_hand = best_of(lambda: jax.block_until_ready(hand_batched(params, xs, ys)), number=20)
  t_loop = best_of(lambda: jax.block_until_ready(
      [single(params, xs[i], ys[i]) for i in range(B)]), repeat=2, number=1)
  got = per_example(params, xs, ys)
  want = hand_batched(params, xs, ys)
  np.testing.assert_allclose(np.asarray(got[0]), np.asarray(want[0]), rtol=1e-4, atol=1e-5)
  print(f"{label}: vmap(grad) {t_vmap * 1e3:7.3f} ms   hand-batched {t_hand * 1e3:7.3f} ms   "
        f"python loop {t_loop * 1e3:8.2f} ms   vmap/hand {t_vmap / t_hand:5.2f}x   "
        f"loop/vmap {t_loop / t_vmap:6.1f}x")
  return t_vmap


def main():
  times = {label: run(label, jax, jnp) for label, jax, jnp, _ in implementations()}
  if "jax" in times:
    print(f"vmap(grad) xjax/jax: {times['xjax'] / times['jax']:.2f}x")


if __name__ == "__main__":
  main()
