"""A multilayer perceptron classifies three interleaved spirals.

Shows: a synthetic dataset drawn with explicit PRNG keys, parameters as a pytree, a per-example
model batched with `vmap`, a training step compiled with `jit(value_and_grad(...))`.

    python examples/mlp_classifier.py [--smoke] [--plot spirals.png]
"""
import time

import xjax
import xjax.numpy as jnp
from xjax import random

from example_cli import parse_args, pyplot, save

CLASSES = 3


def spirals(key, per_class):
  """Points on three noisy spiral arms in the plane, and the arm each belongs to."""
  radius = jnp.tile(jnp.linspace(0.1, 1.0, per_class), CLASSES)
  labels = jnp.repeat(jnp.arange(CLASSES), per_class)
  angle = 4.0 * radius + labels * (2 * jnp.pi / CLASSES) + 0.2 * random.normal(key, radius.shape)
  points = jnp.stack([radius * jnp.cos(angle), radius * jnp.sin(angle)], axis=1)
  return points, labels


def init_params(key, sizes):
  """One {"w", "b"} dict per layer, scaled for tanh (Glorot)."""
  keys = random.split(key, len(sizes) - 1)
  return [{"w": random.normal(k, (m, n)) * jnp.sqrt(2.0 / (m + n)), "b": jnp.zeros(n)}
          for k, m, n in zip(keys, sizes[:-1], sizes[1:])]


def logits_one(params, point):
  """The model for a single point; `vmap` makes it work on a batch."""
  h = point
  for layer in params[:-1]:
    h = jnp.tanh(h @ layer["w"] + layer["b"])
  return h @ params[-1]["w"] + params[-1]["b"]


logits = xjax.vmap(logits_one, in_axes=(None, 0))


def loss(params, points, labels):
  log_probs = xjax.nn.log_softmax(logits(params, points))
  return -jnp.mean(jnp.take_along_axis(log_probs, labels[:, None], axis=1))


@xjax.jit
def train_step(params, points, labels, learning_rate):
  value, grads = xjax.value_and_grad(loss)(params, points, labels)
  return xjax.tree.map(lambda p, g: p - learning_rate * g, params, grads), value


@xjax.jit
def accuracy(params, points, labels):
  return jnp.mean(jnp.argmax(logits(params, points), axis=1) == labels)


def main(argv=None):
  args = parse_args(__doc__.splitlines()[0], argv)
  plt = pyplot() if args.plot else None
  steps = 300 if args.smoke else 2000
  data_key, init_key = random.split(random.key(0))
  points, labels = spirals(data_key, 100)
  params = init_params(init_key, [2, 64, 64, CLASSES])
  start = time.perf_counter()
  for step in range(steps + 1):
    params, value = train_step(params, points, labels, 1.0)
    if step % (steps // 4) == 0:
      print(f"step {step:5d}  loss {float(value):.4f}")
  elapsed = time.perf_counter() - start
  acc = float(accuracy(params, points, labels))
  print(f"trained {steps} steps in {elapsed:.1f} s; training accuracy {acc:.3f}")
  if plt:
    grid = jnp.stack(jnp.meshgrid(jnp.linspace(-1.2, 1.2, 200), jnp.linspace(-1.2, 1.2, 200)), -1)
    regions = jnp.argmax(logits(params, grid.reshape(-1, 2)), axis=1).reshape(200, 200)
    fig, ax = plt.subplots(figsize=(5, 5))
    ax.contourf(grid[..., 0], grid[..., 1], regions, levels=[-0.5, 0.5, 1.5, 2.5], alpha=0.3, cmap="brg")
    ax.scatter(points[:, 0], points[:, 1], c=labels, s=10, cmap="brg")
    ax.set_title(f"MLP on three spirals: accuracy {acc:.2f}")
    save(fig, args.plot)


if __name__ == "__main__":
  main()
