"""The threefry2x32 hash and the PRNG built on it (JAX's default ``"threefry2x32"``).

``threefry2x32`` is a primitive lowered to 32-bit integer additions, rotations and xors
(20 rounds of Threefry-2x32, as in Salmon et al. 2011). A key is two words: a seed's two
32-bit halves as they are; the functions below act on stored keys (see ``counter_prng``).
"""
from __future__ import annotations

import numpy as np

from xjax._src.backend import runtime
from xjax._src.primitives.lax import lax
from xjax._src.libraries.random.counter_prng import (hash_primitive, rotate_left,
                                                     stored_key_functions)

_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_PARITY = np.uint32(0x1BD11BDA)


def _threefry2x32_rounds(k1, k2, x1, x2):
  """Threefry-2x32 with 20 rounds, on uint32 counters of one shape (keys of any shape that
  broadcasts to it).  For CPU the five groups
  of four rounds are a loop, as JAX lowers it there: XLA compiles programs drawing many
  random numbers far faster, and fuses the arithmetic around them as it does JAX's."""
  ks = [k1, k2, lax.bitwise_xor(lax.bitwise_xor(k1, k2), _PARITY)]
  x = [lax.add(x1, ks[0]), lax.add(x2, ks[1])]
  if runtime.default_backend() != "cpu":
    for i in range(5):
      x = _group(x, _ROTATIONS[i % 2], [ks[(i + 1) % 3], ks[(i + 2) % 3]], np.uint32(i + 1))
    return x

  def step(i, state):
    x, ks, rotations = state
    x = _group(x, [rotations[0][j] for j in range(4)], ks[1:],
               lax.convert_element_type(lax.add(i, 1), np.uint32))
    return x, ks[1:] + ks[:1], rotations[1:] + rotations[:1]
  rotations = [np.array(r, np.uint32) for r in _ROTATIONS]
  return lax.fori_loop(0, 5, step, (x, ks, rotations))[0]


def _group(x, rotations, ks, count):
  """Four rounds, then the key schedule's injection (two key words and the group count)."""
  x1, x2 = x
  for r in rotations:
    x1 = lax.add(x1, x2)
    x2 = lax.bitwise_xor(x1, rotate_left(x2, r))
  return [lax.add(x1, ks[0]), lax.add(lax.add(x2, ks[1]), count)]


threefry2x32_p = hash_primitive("threefry2x32", _threefry2x32_rounds, 4, 2, num_unbroadcast=2)

_ZERO = np.uint32(0)
seed, split, random_bits, fold_in = stored_key_functions(
    seed=lambda high, low: (high, low),
    split=lambda k, high, low: threefry2x32_p.bind(*k, high, low),
    fold_in=lambda k, msg: threefry2x32_p.bind(*k, _ZERO, msg),
    bits=lambda k, high, low: threefry2x32_p.bind(*k, high, low))
