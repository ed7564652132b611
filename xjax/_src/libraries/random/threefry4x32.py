"""The threefry4x32 hash and the PRNG built on it: ``"threefry4x32"``
(``random.key(0, impl="threefry4x32")`` or ``jax_default_prng_impl="threefry4x32"``).

Threefry-4x32 (Salmon et al. 2011, Random123) runs 20 rounds of additions, rotations and
xors over four counter words, mixing words (0, 1), (2, 3) in even rounds and (0, 3), (2, 1)
in odd ones, and injects the four-word key (plus a parity word) every four rounds. A key
is four words: the hash of a seed's two 32-bit halves used as the key. An element's 64-bit
counter (high, low) takes counter words 0-1 for bits and 2-3 for splits; fold_in's message
is word 3. 64-bit draws xor words 0 and 2 into the high half, 1 and 3 into the low.
"""
from __future__ import annotations

import functools

import numpy as np

from xjax._src.primitives.lax.elementwise import add, bitwise_xor
from xjax._src.libraries.random.counter_prng import (hash_primitive, rotate_left,
                                                     stored_key_functions)
from xjax._src.libraries.random.prng import PRNGImpl, register_prng

# Rotation distances of Threefry-4x32 for rounds 0-7 (repeating), one per mixed pair.
_ROTATIONS = ((10, 26), (11, 21), (13, 27), (23, 5), (6, 20), (17, 11), (25, 10), (18, 20))
_PAIRS = (((0, 1), (2, 3)), ((0, 3), (2, 1)))
_PARITY = np.uint32(0x1BD11BDA)
_ZERO = np.uint32(0)


def _threefry4x32_rounds(*words):
  """Threefry-4x32 with 20 rounds: four key words, then four counter words."""
  ks = [*words[:4], bitwise_xor(functools.reduce(bitwise_xor, words[:4]), _PARITY)]
  x = [add(w, k) for w, k in zip(words[4:], ks)]
  for group in range(5):
    for r in range(4 * group, 4 * group + 4):
      for (i, j), d in zip(_PAIRS[r % 2], _ROTATIONS[r % 8]):
        x[i] = add(x[i], x[j])
        x[j] = bitwise_xor(x[i], rotate_left(x[j], d))
    x = [add(w, ks[(group + 1 + n) % 5]) for n, w in enumerate(x)]
    x[3] = add(x[3], np.uint32(group + 1))
  return x


threefry4x32_p = hash_primitive("threefry4x32", _threefry4x32_rounds, 8, 4)

threefry4x32_prng_impl = PRNGImpl(
    key_shape=(4,), name="threefry4x32", tag="fry4", **stored_key_functions(
        seed=lambda high, low: threefry4x32_p.bind(high, low, *[_ZERO] * 6),
        split=lambda k, high, low: threefry4x32_p.bind(*k, _ZERO, _ZERO, high, low),
        fold_in=lambda k, msg: threefry4x32_p.bind(*k, _ZERO, _ZERO, _ZERO, msg),
        bits=lambda k, high, low: threefry4x32_p.bind(*k, high, low, _ZERO, _ZERO),
        wide=lambda outs: (bitwise_xor(outs[0], outs[2]),
                           bitwise_xor(outs[1], outs[3])))._asdict())

register_prng(threefry4x32_prng_impl)
