"""A recurrent network, written with `lax.scan`, learns to continue sine waves.

Shows: a loop over time steps as one `lax.scan` (traced once, however long the sequence),
gradients through the scan, a batch of sequences with `vmap`, and the Adam optimizer from
`xjax.example_libraries.optimizers`.

    python examples/rnn_scan.py [--smoke] [--plot waves.png]
"""
import time

import xjax
import xjax.numpy as jnp
from xjax import lax, random
from xjax.example_libraries import optimizers

from example_cli import parse_args, pyplot, save

HIDDEN = 32


def waves(key, count, length):
  """Sine waves with random frequency and phase, sampled at `length` steps."""
  k_freq, k_phase = random.split(key)
  freq = random.uniform(k_freq, (count, 1), minval=0.1, maxval=0.3)
  phase = random.uniform(k_phase, (count, 1), maxval=2 * jnp.pi)
  return jnp.sin(freq * jnp.arange(length) + phase)


def init_params(key):
  k_in, k_rec, k_out = random.split(key, 3)
  return {"w_in": random.normal(k_in, (1, HIDDEN)) * 0.5,
          "w_rec": random.orthogonal(k_rec, HIDDEN) * 0.9,
          "b": jnp.zeros(HIDDEN),
          "w_out": random.normal(k_out, (HIDDEN, 1)) / jnp.sqrt(HIDDEN)}


def predict_next(params, sequence):
  """Reads one sequence step by step; after each step, predicts the next value."""
  def cell(hidden, x):
    hidden = jnp.tanh(x * params["w_in"][0] + hidden @ params["w_rec"] + params["b"])
    return hidden, (hidden @ params["w_out"])[0]
  _, predictions = lax.scan(cell, jnp.zeros(HIDDEN), sequence)
  return predictions


def loss(params, batch):
  predictions = xjax.vmap(predict_next, in_axes=(None, 0))(params, batch[:, :-1])
  return jnp.mean((predictions - batch[:, 1:]) ** 2)


def main(argv=None):
  args = parse_args(__doc__.splitlines()[0], argv)
  plt = pyplot() if args.plot else None
  steps = 150 if args.smoke else 600
  key = random.key(1)
  init_opt, update, get_params = optimizers.adam(1e-2)

  @xjax.jit
  def train_step(i, state, batch):
    value, grads = xjax.value_and_grad(loss)(get_params(state), batch)
    return update(i, grads, state), value

  key, k_init, k_test = random.split(key, 3)
  state = init_opt(init_params(k_init))
  start = time.perf_counter()
  first = None
  for i in range(steps):
    key, k_batch = random.split(key)
    state, value = train_step(i, state, waves(k_batch, 32, 50))
    first = float(value) if first is None else first
    if i % (steps // 3) == 0:
      print(f"step {i:4d}  mean squared error {float(value):.5f}")
  test = waves(k_test, 4, 50)
  test_error = float(loss(get_params(state), test))
  print(f"trained {steps} steps in {time.perf_counter() - start:.1f} s; "
        f"error {first:.4f} -> test {test_error:.5f}")
  if plt:
    predictions = xjax.vmap(predict_next, in_axes=(None, 0))(get_params(state), test[:, :-1])
    fig, axes = plt.subplots(4, 1, figsize=(7, 6), sharex=True)
    for ax, wave, guess in zip(axes, test, predictions):
      ax.plot(range(50), wave, "k.", label="sequence")
      ax.plot(range(1, 50), guess, "r-", label="prediction of the next value")
    axes[0].legend(loc="upper right", fontsize="small")
    axes[0].set_title("RNN (lax.scan): one-step-ahead predictions")
    save(fig, args.plot)


if __name__ == "__main__":
  main()
