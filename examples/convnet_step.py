"""A small convolutional network learns to tell horizontal, vertical and diagonal strokes apart.

Shows: `lax.conv_general_dilated` and `lax.reduce_window` (max pooling) written directly, a
jitted training step that donates the old parameters' buffers to the new ones
(`donate_argnums`), and per-step random batches from split PRNG keys.

    python examples/convnet_step.py [--smoke] [--plot convnet.png]
"""
import time
from functools import partial

import xjax
import xjax.numpy as jnp
from xjax import lax, random

from example_cli import parse_args, pyplot, save

SIZE = 12
KINDS = ("horizontal", "vertical", "diagonal")


@partial(xjax.jit, static_argnums=1)
def strokes(key, count):
  """Noisy SIZE x SIZE images, each with one stroke of a random kind at a random place."""
  k_kind, k_pos, k_noise = random.split(key, 3)
  kind = random.randint(k_kind, (count,), 0, len(KINDS))
  pos = random.randint(k_pos, (count,), 2, SIZE - 2)
  rows, cols = jnp.arange(SIZE)[:, None], jnp.arange(SIZE)[None, :]
  p = pos[:, None, None]
  inner = (rows > 1) & (rows < SIZE - 2) & (cols > 1) & (cols < SIZE - 2)
  masks = jnp.stack([(rows == p) & inner, (cols == p) & inner, (rows - cols == p - SIZE // 2) & inner], axis=1)
  images = jnp.take_along_axis(masks, kind[:, None, None, None], axis=1)[:, 0].astype(jnp.float32)
  images = images + 0.3 * random.normal(k_noise, images.shape)
  return images[..., None], kind                      # NHWC


def init_params(key):
  k1, k2, k3 = random.split(key, 3)
  return {"conv1": random.normal(k1, (3, 3, 1, 8)) * 0.3,       # HWIO
          "conv2": random.normal(k2, (3, 3, 8, 16)) * 0.1,
          "dense": random.normal(k3, (16, len(KINDS))) * 0.1,
          "bias": jnp.zeros(len(KINDS))}


def conv(x, kernel):
  return lax.conv_general_dilated(x, kernel, window_strides=(1, 1), padding="SAME",
                                  dimension_numbers=("NHWC", "HWIO", "NHWC"))


def max_pool(x):
  return lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")


def logits(params, images):
  h = max_pool(xjax.nn.relu(conv(images, params["conv1"])))
  h = xjax.nn.relu(conv(h, params["conv2"]))
  return jnp.max(h, axis=(1, 2)) @ params["dense"] + params["bias"]   # global max pool


def loss(params, images, labels):
  log_probs = xjax.nn.log_softmax(logits(params, images))
  return -jnp.mean(jnp.take_along_axis(log_probs, labels[:, None], axis=1))


@partial(xjax.jit, donate_argnums=(0, 1))
def train_step(params, velocity, images, labels):
  """SGD with momentum; the old params and velocity buffers are reused for the new ones."""
  value, grads = xjax.value_and_grad(loss)(params, images, labels)
  velocity = xjax.tree.map(lambda v, g: 0.9 * v + g, velocity, grads)
  params = xjax.tree.map(lambda p, v: p - 0.05 * v, params, velocity)
  return params, velocity, value


def main(argv=None):
  args = parse_args(__doc__.splitlines()[0], argv)
  plt = pyplot() if args.plot else None
  steps = 100 if args.smoke else 300
  key, k_init, k_test = random.split(random.key(5), 3)
  params = init_params(k_init)
  velocity = xjax.tree.map(jnp.zeros_like, params)
  start = time.perf_counter()
  for i in range(steps):
    key, k_batch = random.split(key)
    images, labels = strokes(k_batch, 64)
    params, velocity, value = train_step(params, velocity, images, labels)
    if i % (steps // 4) == 0:
      print(f"step {i:4d}  loss {float(value):.4f}")
  test_images, test_labels = strokes(k_test, 500)
  predicted = jnp.argmax(logits(params, test_images), axis=1)
  accuracy = float(jnp.mean(predicted == test_labels))
  print(f"trained {steps} steps in {time.perf_counter() - start:.1f} s; test accuracy {accuracy:.3f}")
  if plt:
    test_images, test_labels, predicted, filters = xjax.device_get(
        (test_images, test_labels, predicted, params["conv1"]))     # NumPy arrays for plotting
    fig, axes = plt.subplots(2, 6, figsize=(9, 4), layout="constrained")
    for ax, image, label, guess in zip(axes[0], test_images, test_labels, predicted):
      ax.imshow(image[..., 0], cmap="gray")
      ax.set_title(f"{KINDS[int(guess)]}" + ("" if guess == label else " (wrong)"), fontsize=8)
    for j, ax in enumerate(axes[1]):
      ax.imshow(filters[:, :, 0, j], cmap="RdBu")
      ax.set_title(f"filter {j}", fontsize=8)
    for ax in axes.flat:
      ax.set_xticks([])
      ax.set_yticks([])
    fig.suptitle(f"convnet: test accuracy {accuracy:.2f}; first-layer filters below")
    save(fig, args.plot)


if __name__ == "__main__":
  main()
