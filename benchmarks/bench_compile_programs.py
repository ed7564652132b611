"""Cold compile times of real programs' jitted functions, xjax vs JAX: JAX's mnist_vae
example (its ``evaluate``, the test ELBO and a 10x10 grid of sampled images, and its
``run_epoch``), a stax MLP classifier's training step, an RNN trained through ``lax.scan``
with Adam, a stax conv net's training step and a transformer block's gradient.

Each implementation runs the programs in a fresh process with the persistent compilation
cache off; a function's time is its ``jit(f).lower(...)`` and its ``.compile()``, measured
apart, and the compile's CPU time. xjax runs them through ``python -m xjax``; the reference needs an interpreter whose
environment has JAX 0.10.2 (no dataset is read: the images are random binary arrays of
MNIST's shapes):

    python benchmarks/bench_compile_programs.py --jax-python /path/to/venv/bin/python
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from mnist_vae_model import SOURCE as MNIST_VAE_MODEL

REPO = Path(__file__).resolve().parent.parent

# Written against JAX's API; run by both implementations. Prints "name lower_s compile_s
# compile_cpu_s" (the CPU seconds of all the process's threads: XLA compiles on several, and
# on a shared machine they are steadier than the wall time).
PROGRAMS = """
import sys, time
import numpy as np
import jax
jax.config.update("jax_enable_compilation_cache", False)
import jax.numpy as jnp
from jax import grad, jit, lax, random
from jax.example_libraries import optimizers, stax
from jax.example_libraries.stax import (Conv, Dense, FanOut, Flatten, LogSoftmax, MaxPool,
                                        Relu, Softplus)

ONLY = sys.argv[1:]

def timed(name, fn, *args):
  if ONLY and not any(word in name for word in ONLY):
    return
  t0 = time.perf_counter()
  lowered = jit(fn).lower(*args)
  t1, c1 = time.perf_counter(), time.process_time()
  lowered.compile()
  print(name, t1 - t0, time.perf_counter() - t1, time.process_time() - c1, flush=True)

data = np.random.RandomState(0)

# --- mnist_vae (JAX's examples/mnist_vae.py) ----------------------------------------------
""" + MNIST_VAE_MODEL + """
encoder_init, encode = stax.serial(
    Dense(512), Relu, Dense(512), Relu, FanOut(2),
    stax.parallel(Dense(10), stax.serial(Dense(10), Softplus)))
decoder_init, decode = stax.serial(Dense(512), Relu, Dense(512), Relu, Dense(28 * 28))

batch_size, nrow, ncol = 32, 10, 10
train_images = (data.rand(2048, 784) > 0.5).astype(np.float32)
test_images = (data.rand(10000, 784) > 0.5).astype(np.float32)
num_batches = train_images.shape[0] // batch_size
test_rng = random.PRNGKey(1)
enc_init_rng, dec_init_rng = random.split(random.PRNGKey(2))
_, init_encoder_params = encoder_init(enc_init_rng, (batch_size, 28 * 28))
_, init_decoder_params = decoder_init(dec_init_rng, (batch_size, 10))
opt_init, opt_update, get_params = optimizers.momentum(0.001, mass=0.9)
opt_state = opt_init((init_encoder_params, init_decoder_params))

def binarize_batch(rng, i, images):
  i = i % num_batches
  batch = lax.dynamic_slice_in_dim(images, i * batch_size, batch_size)
  return random.bernoulli(rng, batch)

def run_epoch(rng, opt_state):
  def body_fun(i, opt_state):
    elbo_rng, data_rng = random.split(random.fold_in(rng, i))
    batch = binarize_batch(data_rng, i, train_images)
    loss = lambda params: -elbo(elbo_rng, params, batch) / batch_size
    g = grad(loss)(get_params(opt_state))
    return opt_update(i, g, opt_state)
  return lax.fori_loop(0, num_batches, body_fun, opt_state)

def evaluate(opt_state, images):
  params = get_params(opt_state)
  elbo_rng, data_rng, image_rng = random.split(test_rng, 3)
  binarized_test = random.bernoulli(data_rng, images)
  test_elbo = elbo(elbo_rng, params, binarized_test) / images.shape[0]
  sampled_images = image_sample(image_rng, params, nrow, ncol)
  return test_elbo, sampled_images

timed("mnist_vae evaluate", evaluate, opt_state, test_images)
timed("mnist_vae run_epoch", run_epoch, random.PRNGKey(0), opt_state)

# --- a stax MLP classifier's step (JAX's examples/mnist_classifier.py) --------------------
mlp_init, mlp_predict = stax.serial(Dense(1024), Relu, Dense(1024), Relu, Dense(10), LogSoftmax)
_, mlp_params = mlp_init(random.PRNGKey(0), (-1, 784))
mlp_opt_init, mlp_opt_update, mlp_get_params = optimizers.momentum(0.001, mass=0.9)
images = data.rand(128, 784).astype(np.float32)
labels = np.eye(10, dtype=np.float32)[data.randint(0, 10, 128)]

def mlp_loss(params, batch):
  inputs, targets = batch
  return -jnp.mean(jnp.sum(mlp_predict(params, inputs) * targets, axis=1))

def mlp_update(i, opt_state, batch):
  return mlp_opt_update(i, grad(mlp_loss)(mlp_get_params(opt_state), batch), opt_state)

timed("stax MLP train step", mlp_update, 0, mlp_opt_init(mlp_params), (images, labels))

# --- an RNN trained through lax.scan, with Adam --------------------------------------------
hidden, features, steps = 256, 32, 100
k1, k2, k3 = random.split(random.PRNGKey(3), 3)
rnn_params = {"wx": random.normal(k1, (features, hidden)) * 0.1,
              "wh": random.normal(k2, (hidden, hidden)) * 0.05,
              "b": jnp.zeros(hidden), "wo": random.normal(k3, (hidden, 1)) * 0.1}
xs = data.randn(steps, 16, features).astype(np.float32)
ys = data.randn(16, 1).astype(np.float32)
adam_init, adam_update, adam_get_params = optimizers.adam(1e-3)

def rnn_loss(params, xs, ys):
  def cell(h, x):
    h = jnp.tanh(x @ params["wx"] + h @ params["wh"] + params["b"])
    return h, h
  h, _ = lax.scan(cell, jnp.zeros((xs.shape[1], hidden)), xs)
  return jnp.mean((h @ params["wo"] - ys) ** 2)

def rnn_step(i, opt_state, xs, ys):
  g = grad(rnn_loss)(adam_get_params(opt_state), xs, ys)
  return adam_update(i, g, opt_state)

timed("RNN scan train step", rnn_step, 0, adam_init(rnn_params), xs, ys)

# --- a stax conv net's training step --------------------------------------------------------
conv_init, conv_predict = stax.serial(
    Conv(32, (3, 3), padding="SAME"), Relu, Conv(64, (3, 3), padding="SAME"), Relu,
    MaxPool((2, 2), strides=(2, 2)), Conv(64, (3, 3)), Relu, Flatten, Dense(128), Relu,
    Dense(10), LogSoftmax)
_, conv_params = conv_init(random.PRNGKey(4), (-1, 28, 28, 1))
conv_images = data.rand(32, 28, 28, 1).astype(np.float32)
conv_labels = np.eye(10, dtype=np.float32)[data.randint(0, 10, 32)]

def conv_step(params, images, labels):
  loss = lambda p: -jnp.mean(jnp.sum(conv_predict(p, images) * labels, axis=1))
  g = grad(loss)(params)
  return jax.tree_util.tree_map(lambda p, g: p - 0.01 * g, params, g)

timed("stax conv net train step", conv_step, conv_params, conv_images, conv_labels)

# --- a transformer block's gradient ---------------------------------------------------------
d, heads, seq = 128, 4, 64
ks = random.split(random.PRNGKey(5), 6)
block_params = {"qkv": random.normal(ks[0], (d, 3 * d)) * 0.05,
                "out": random.normal(ks[1], (d, d)) * 0.05,
                "up": random.normal(ks[2], (d, 4 * d)) * 0.05,
                "down": random.normal(ks[3], (4 * d, d)) * 0.05,
                "g1": jnp.ones(d), "g2": jnp.ones(d)}
tokens = data.randn(8, seq, d).astype(np.float32)

def layer_norm(x, g):
  mean = x.mean(-1, keepdims=True)
  return g * (x - mean) * lax.rsqrt(((x - mean) ** 2).mean(-1, keepdims=True) + 1e-5)

def block(params, x):
  q, k, v = jnp.split(layer_norm(x, params["g1"]) @ params["qkv"], 3, axis=-1)
  q, k, v = (t.reshape(*t.shape[:-1], heads, d // heads) for t in (q, k, v))
  scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(d // heads)
  mask = jnp.tril(jnp.ones((seq, seq), bool))
  attn = jax.nn.softmax(jnp.where(mask, scores, -1e9), axis=-1)
  x = x + jnp.einsum("bhqk,bkhd->bqhd", attn, v).reshape(x.shape) @ params["out"]
  return x + jax.nn.gelu(layer_norm(x, params["g2"]) @ params["up"]) @ params["down"]

timed("transformer block grad", grad(lambda p, x: jnp.sum(block(p, x) ** 2)),
      block_params, tokens)
"""


def run(python: list[str], rows: list[str]) -> dict[str, tuple[float, ...]]:
  """{function: (lower, compile, compile CPU seconds)} from one fresh process."""
  env = dict(os.environ, PYTHONPATH=str(REPO), XJAX_COMPILATION_CACHE="0")
  env.pop("JAX_COMPILATION_CACHE_DIR", None)
  with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
    f.write(PROGRAMS)
  try:
    done = subprocess.run([*python, f.name, *rows], capture_output=True, text=True,
                          cwd=tempfile.gettempdir(), env=env)
  finally:
    os.unlink(f.name)
  if done.returncode != 0:
    lines = done.stderr.strip().splitlines()
    raise RuntimeError(f"{python[0]} failed: " + (lines[-1] if lines else f"exit {done.returncode}"))
  times = {}
  for line in done.stdout.splitlines():
    *name, lower, compile_, cpu = line.split()
    times[" ".join(name)] = (float(lower), float(compile_), float(cpu))
  return times


def main() -> None:
  parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  parser.add_argument("--jax-python", default=os.environ.get("XJAX_REFERENCE_PYTHON"),
                      help="interpreter of an environment with the reference JAX")
  parser.add_argument("--rounds", type=int, default=1,
                      help="run each implementation this many times, alternating them, and "
                           "report each function's best (this machine's timings are noisy)")
  parser.add_argument("rows", nargs="*", help="compile only functions whose name holds one "
                                               "of these words")
  args = parser.parse_args()
  impls = [("xjax", [sys.executable, "-m", "xjax"])]
  if args.jax_python:
    impls.append(("jax", [args.jax_python]))
  best: dict[str, dict[str, tuple[float, ...]]] = {label: {} for label, _ in impls}
  for _ in range(args.rounds):
    for label, python in impls:
      for name, times in run(python, args.rows).items():
        old = best[label].get(name, times)
        best[label][name] = tuple(map(min, old, times))
  columns = ("lower", "compile", "cpu")
  print(f"{'seconds':<26s}" + "".join(f"{label + ' ' + column:>13s}" for label, _ in impls
                                      for column in columns)
        + ("   xjax/jax compile    cpu" if len(impls) > 1 else ""))
  for name, ours in best["xjax"].items():
    line = f"{name:<26s}" + "".join(f"{t:13.3f}" for t in ours)
    if name in best.get("jax", {}):
      theirs = best["jax"][name]
      line += "".join(f"{t:13.3f}" for t in theirs)
      line += f"   {ours[1] / theirs[1]:15.2f}x {ours[2] / theirs[2]:5.2f}x"
    print(line)


if __name__ == "__main__":
  sys.exit(main())
