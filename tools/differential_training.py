"""JAX's examples/mnist_vae.py trained on xjax and on the reference JAX, compared bit for bit
after every epoch (issue 34: "find the first step where the values differ").

    python tools/differential_training.py --ref-python /tmp/ref/bin/python [--epochs 100]

The program is the example's (stax encoder and decoder of 512 units, momentum, a fori_loop
epoch of binarized batches, a jitted evaluation with the 10x10 sampled image grid) on
MNIST-shaped synthetic data (640 training and 200 test images from NumPy's generator). Each
side prints, per epoch, a digest of the parameters' bytes, the test ELBO's bits and a digest
of the sampled grid; the first epoch whose line differs is reported.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))
from mnist_vae_model import SOURCE as MODEL  # noqa: E402

PROGRAM = """
import hashlib, sys
import numpy as np
import jax
from jax import jit, grad, lax, random
import jax.numpy as jnp
from jax.example_libraries import optimizers, stax
from jax.example_libraries.stax import Dense, FanOut, Relu, Softplus
""" + MODEL + """
encoder_init, encode = stax.serial(Dense(512), Relu, Dense(512), Relu, FanOut(2),
                                   stax.parallel(Dense(10), stax.serial(Dense(10), Softplus)))
decoder_init, decode = stax.serial(Dense(512), Relu, Dense(512), Relu, Dense(28 * 28))
batch_size, num_batches = 32, 20
generator = np.random.default_rng(0)
train_images = generator.random((batch_size * num_batches, 784), dtype=np.float32) ** 3
test_images = generator.random((200, 784), dtype=np.float32) ** 3
test_rng = random.PRNGKey(1)
enc_init_rng, dec_init_rng = random.split(random.PRNGKey(2))
_, init_encoder = encoder_init(enc_init_rng, (batch_size, 28 * 28))
_, init_decoder = decoder_init(dec_init_rng, (batch_size, 10))
opt_init, opt_update, get_params = optimizers.momentum(0.001, mass=0.9)

@jit
def run_epoch(rng, opt_state):
  def body_fun(i, opt_state):
    elbo_rng, data_rng = random.split(random.fold_in(rng, i))
    batch = random.bernoulli(data_rng, lax.dynamic_slice_in_dim(
        train_images, (i % num_batches) * batch_size, batch_size))
    loss = lambda params: -elbo(elbo_rng, params, batch) / batch_size
    return opt_update(i, grad(loss)(get_params(opt_state)), opt_state)
  return lax.fori_loop(0, num_batches, body_fun, opt_state)

@jit
def evaluate(opt_state, images):
  params = get_params(opt_state)
  elbo_rng, data_rng, image_rng = random.split(test_rng, 3)
  test_elbo = elbo(elbo_rng, params, random.bernoulli(data_rng, images)) / images.shape[0]
  return test_elbo, image_sample(image_rng, params, 10, 10)

def digest(tree):
  data = b"".join(np.asarray(leaf).tobytes() for leaf in jax.tree_util.tree_leaves(tree))
  return hashlib.sha1(data).hexdigest()[:12]

opt_state = opt_init((init_encoder, init_decoder))
for epoch in range(int(sys.argv[1])):
  opt_state = run_epoch(random.PRNGKey(epoch), opt_state)
  test_elbo, sampled = evaluate(opt_state, test_images)
  print(epoch, digest(get_params(opt_state)), float(test_elbo).hex(), digest(sampled),
        flush=True)
"""


def run(command: list[str], epochs: int) -> list[str]:
  with tempfile.TemporaryDirectory() as folder:
    script = Path(folder) / "mnist_vae.py"
    script.write_text(PROGRAM)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    out = subprocess.run([*command, str(script), str(epochs)], capture_output=True, text=True,
                         cwd=folder, env=env, check=True)
  return out.stdout.splitlines()


def main() -> None:
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  parser.add_argument("--ref-python", required=True, help="python of a venv with jax==0.10.2")
  parser.add_argument("--epochs", type=int, default=100)
  args = parser.parse_args()
  ours = run([sys.executable, "-m", "xjax"], args.epochs)
  theirs = run([args.ref_python], args.epochs)
  for line_ours, line_theirs in zip(ours, theirs):
    if line_ours != line_theirs:
      print(f"first difference after epoch {line_ours.split()[0]}:\n  xjax {line_ours}\n"
            f"  JAX  {line_theirs}")
      return
  print(f"bit for bit the same over {min(len(ours), len(theirs))} epochs "
        "(parameters, test ELBO, sampled grid)")


if __name__ == "__main__":
  main()
