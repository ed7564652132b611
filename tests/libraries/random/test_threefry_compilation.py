"""How threefry2x32 reaches XLA on CPU: as JAX 0.10.2 lowers it, its five groups of four
rounds are a loop. Unrolled, XLA fused the whole hash into every consumer of a draw, and
mnist_vae's ``evaluate`` (a 10x10 grid of transposed sample slices) compiled 100 copies of
it: 10x JAX's compile time."""
import hashlib

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import random as R
from xjax._src.backend import clients

pytestmark = pytest.mark.skipif(clients.default_backend() != "cpu",
                                reason="the loop is CPU's lowering")


def test_hash_rounds_are_one_loop():
  text = xjax.jit(lambda k: R.bits(k, (64,))).lower(R.PRNGKey(0)).as_text()
  # JAX 0.10.2's module: one while loop, seven xors (the loop's four rounds, two for the key
  # parity word, one joining the hash's two output words); unrolled there were 23.
  assert text.count("stablehlo.while") == 1
  assert text.count("stablehlo.xor") == 7


def _image_grid(n):
  def grid(key, x, w):
    samples = R.bernoulli(key, jnp.logaddexp(0., x @ w))
    images = iter(samples.reshape(-1, 28, 28))
    return jnp.vstack([jnp.hstack([next(images).T for _ in range(n)][::-1])
                       for _ in range(n)]).T
  return grid


def test_image_grid_of_samples_hashes_once():
  n = 6
  x = np.linspace(-1, 1, n * n * 10, dtype=np.float32).reshape(n * n, 10)
  w = np.linspace(-2, 2, 7840, dtype=np.float32).reshape(10, 784)
  key = R.PRNGKey(0)
  compiled = xjax.jit(_image_grid(n)).lower(key, x, w).compile()
  # The optimized module holds the hash once (JAX's: 45 xors, one per image's bits-to-float
  # fusion beyond the loop's); a copy per image gave 828.
  assert compiled.as_text().count(" xor(") <= 23 + 2 * n * n
  grid = np.asarray(compiled(key, x, w))
  assert grid.shape == (168, 168) and grid.sum() == 21289  # recorded on JAX 0.10.2
  assert hashlib.sha256(np.packbits(grid)).hexdigest()[:16] == "32b89c3c08622890"
