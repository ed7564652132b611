"""The threefry2x32 hash and the PRNG built on it (JAX's default ``"threefry2x32"``).

``threefry2x32`` is a primitive lowered to 32-bit integer additions, rotations and xors
(20 rounds of Threefry-2x32, as in Salmon et al. 2011). A key is two words: a seed's two
32-bit halves as they are; the functions below act on stored keys (see ``counter_prng``).
"""
from __future__ import annotations

import numpy as np

from xjax._src.primitives.lax import lax
from xjax._src.libraries.random.counter_prng import (hash_primitive, rotate_left,
                                                     stored_key_functions)

_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_PARITY = np.uint32(0x1BD11BDA)


def _threefry2x32_rounds(k1, k2, x1, x2):
  """Threefry-2x32 with 20 rounds, on uint32 arrays of one shape."""
  ks = (k1, k2, lax.bitwise_xor(lax.bitwise_xor(k1, k2), _PARITY))
  x1, x2 = lax.add(x1, ks[0]), lax.add(x2, ks[1])
  for i in range(5):
    for r in _ROTATIONS[i % 2]:
      x1 = lax.add(x1, x2)
      x2 = lax.bitwise_xor(x1, rotate_left(x2, r))
    x1 = lax.add(x1, ks[(i + 1) % 3])
    x2 = lax.add(lax.add(x2, ks[(i + 2) % 3]), np.uint32(i + 1))
  return [x1, x2]


threefry2x32_p = hash_primitive("threefry2x32", _threefry2x32_rounds, 4, 2)

_ZERO = np.uint32(0)
seed, split, random_bits, fold_in = stored_key_functions(
    seed=lambda high, low: (high, low),
    split=lambda k, high, low: threefry2x32_p.bind(*k, high, low),
    fold_in=lambda k, msg: threefry2x32_p.bind(*k, _ZERO, msg),
    bits=lambda k, high, low: threefry2x32_p.bind(*k, high, low))
