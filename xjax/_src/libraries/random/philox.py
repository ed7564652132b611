"""The Philox hashes and the PRNGs built on them: ``"philox2x32"`` and ``"philox4x32"``
(``random.key(0, impl="philox4x32")`` or ``jax_default_prng_impl="philox4x32"``).

Philox (Salmon et al. 2011, Random123) mixes a counter with 32x32->64-bit products: each
of its 10 rounds multiplies counter words by fixed odd constants and xors the high halves
with the other words and the round key, which is bumped by a Weyl constant between rounds.
Philox-2x32 has a one-word key and a two-word counter; Philox-4x32 a two-word key and a
four-word counter. A seed's 64 bits go through the hash as counter words (key zero); an
element's 64-bit counter (high, low) takes counter words 0-1 for bits, and the last two
for splits (in Philox-2x32, both); fold_in's message is the last counter word.
"""
from __future__ import annotations

import numpy as np

from xjax._src.primitives.lax.elementwise import add, bitwise_xor, mul, mulhi
from xjax._src.libraries.random.counter_prng import hash_primitive, stored_key_functions
from xjax._src.libraries.random.prng import PRNGImpl, register_prng

_ROUNDS = 10
_WEYL = (np.uint32(0x9E3779B9), np.uint32(0xBB67AE85))
_ZERO = np.uint32(0)


def _multiply(m: np.uint32, x):
  """(low, high) words of the 64-bit product ``m * x``."""
  return mul(x, m), mulhi(x, m)


def _philox2x32_rounds(k, x0, x1):
  for r in range(_ROUNDS):
    if r:
      k = add(k, _WEYL[0])
    low, high = _multiply(np.uint32(0xD256D193), x0)
    x0, x1 = bitwise_xor(bitwise_xor(high, x1), k), low
  return [x0, x1]


def _philox4x32_rounds(k0, k1, x0, x1, x2, x3):
  for r in range(_ROUNDS):
    if r:
      k0, k1 = add(k0, _WEYL[0]), add(k1, _WEYL[1])
    low0, high0 = _multiply(np.uint32(0xD2511F53), x0)
    low1, high1 = _multiply(np.uint32(0xCD9E8D57), x2)
    x0, x1, x2, x3 = (bitwise_xor(bitwise_xor(high1, x1), k0), low1,
                      bitwise_xor(bitwise_xor(high0, x3), k1), low0)
  return [x0, x1, x2, x3]


philox2x32_p = hash_primitive("philox2x32", _philox2x32_rounds, 3, 2)
philox4x32_p = hash_primitive("philox4x32", _philox4x32_rounds, 6, 4)

philox2x32_prng_impl = PRNGImpl(
    key_shape=(1,), name="philox2x32", tag="phx2", **stored_key_functions(
        seed=lambda high, low: philox2x32_p.bind(_ZERO, high, low)[:1],
        split=lambda k, high, low: philox2x32_p.bind(*k, high, low)[:1],
        fold_in=lambda k, msg: philox2x32_p.bind(*k, _ZERO, msg)[:1],
        bits=lambda k, high, low: philox2x32_p.bind(*k, high, low))._asdict())

philox4x32_prng_impl = PRNGImpl(
    key_shape=(2,), name="philox4x32", tag="phx4", **stored_key_functions(
        seed=lambda high, low: philox4x32_p.bind(_ZERO, _ZERO, high, low, _ZERO, _ZERO)[:2],
        split=lambda k, high, low: philox4x32_p.bind(*k, _ZERO, _ZERO, high, low)[:2],
        fold_in=lambda k, msg: philox4x32_p.bind(*k, _ZERO, _ZERO, _ZERO, msg)[:2],
        bits=lambda k, high, low: philox4x32_p.bind(*k, high, low, _ZERO, _ZERO))._asdict())

register_prng(philox2x32_prng_impl)
register_prng(philox4x32_prng_impl)
