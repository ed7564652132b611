"""`jax._src.random.threefry2x32`: the threefry PRNG on raw keys (uint32 arrays of shape
(2,)), as JAX's default keys hold them (quax's custom-PRNG example builds on these)."""
import operator

import numpy as np

from xjax import numpy as jnp
from xjax._src.libraries.random import threefry
from xjax._src.libraries.random.threefry import threefry2x32_p  # noqa: F401
from xjax.extend.random import threefry_2x32  # noqa: F401
from xjax._src.compat.jax_private_compat import missing


def threefry_seed(seed):
  """A raw key from a scalar integer seed: its high and low 32-bit words."""
  seed = jnp.asarray(seed)
  if seed.shape:
    raise TypeError(f"PRNG key seed must be a scalar; got {seed!r}.")
  if not np.issubdtype(seed.dtype, np.integer):
    raise TypeError(f"PRNG key seed must be an integer; got {seed!r}")
  return threefry.seed(seed)


def threefry_split(key, shape):
  """Raw keys of ``shape`` (stacked in front of the key's two words) split from ``key``."""
  return threefry.split(key, tuple(map(operator.index, shape)))


def threefry_fold_in(key, data):
  """A raw key from ``key`` and a scalar integer ``data``."""
  return threefry.fold_in(key, jnp.asarray(data, dtype=np.uint32))


def threefry_random_bits(key, bit_width, shape):
  """Unsigned integers of ``bit_width`` bits and ``shape`` from one raw key."""
  if not (getattr(key, "shape", None) == (2,) and key.dtype == np.uint32):
    raise TypeError("threefry_random_bits got invalid prng key.")
  if bit_width not in (8, 16, 32, 64):
    raise TypeError("requires 8-, 16-, 32- or 64-bit field width.")
  return threefry.random_bits(key, bit_width, tuple(map(operator.index, shape)))


def __getattr__(name: str):
  raise missing("jax._src.random.threefry2x32", name)
