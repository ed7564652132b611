"""The threefry2x32 hash and the PRNG built on it (JAX's default ``"threefry2x32"``).

``threefry2x32`` is a primitive lowered to 32-bit integer additions, rotations and xors
(20 rounds of Threefry-2x32, as in Salmon et al. 2011). A key is two words: a seed's two
32-bit halves as they are; the functions below act on stored keys (see ``counter_prng``).

``split`` and ``random_bits`` follow ``jax_threefry_partitionable``: when it is on (JAX's
default) element ``i`` hashes its own 64-bit counter; when off, JAX's original scheme: the
``n`` words wanted hash the counters ``0 .. n-1`` (padded with a zero to an even count) as
two halves, the first half's counters as the first word and the second's as the second,
and the words come out as the first outputs followed by the second ones.
"""
from __future__ import annotations

import math

import numpy as np

from xjax._src.backend import clients
from xjax._src.foundations.config import config
from xjax._src.primitives.lax.control_flow.loops import fori_loop
from xjax._src.primitives.lax.elementwise import (add, bitwise_or, bitwise_xor,
                                                  convert_element_type, mul, shift_left,
                                                  shift_right_logical)
from xjax._src.primitives.lax.shapes import (broadcast_in_dim, concatenate, expand_dims,
                                             full as lax_full, index_in_dim, iota, reshape,
                                             slice as lax_slice, slice_in_dim)
from xjax._src.libraries.random.counter_prng import (UINT_DTYPES, hash_primitive,
                                                     rotate_left, stored_key_functions)

_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_PARITY = np.uint32(0x1BD11BDA)


def _threefry2x32_rounds(k1, k2, x1, x2):
  """Threefry-2x32 with 20 rounds, on uint32 counters of one shape (keys of any shape that
  broadcasts to it).  For CPU the five groups
  of four rounds are a loop, as JAX lowers it there: XLA compiles programs drawing many
  random numbers far faster, and fuses the arithmetic around them as it does JAX's."""
  ks = [k1, k2, bitwise_xor(bitwise_xor(k1, k2), _PARITY)]
  x = [add(x1, ks[0]), add(x2, ks[1])]
  if clients.default_backend() != "cpu":
    for i in range(5):
      x = _group(x, _ROTATIONS[i % 2], [ks[(i + 1) % 3], ks[(i + 2) % 3]], np.uint32(i + 1))
    return x

  def step(i, state):
    x, ks, rotations = state
    x = _group(x, [rotations[0][j] for j in range(4)], ks[1:],
               convert_element_type(add(i, 1), np.uint32))
    return x, ks[1:] + ks[:1], rotations[1:] + rotations[:1]
  rotations = [np.array(r, np.uint32) for r in _ROTATIONS]
  return fori_loop(0, 5, step, (x, ks, rotations))[0]


def _group(x, rotations, ks, count):
  """Four rounds, then the key schedule's injection (two key words and the group count)."""
  x1, x2 = x
  for r in rotations:
    x1 = add(x1, x2)
    x2 = bitwise_xor(x1, rotate_left(x2, r))
  return [add(x1, ks[0]), add(add(x2, ks[1]), count)]


threefry2x32_p = hash_primitive("threefry2x32", _threefry2x32_rounds, 4, 2, num_unbroadcast=2)

_ZERO = np.uint32(0)
seed, _split_partitionable, _random_bits_partitionable, fold_in = stored_key_functions(
    seed=lambda high, low: (high, low),
    split=lambda k, high, low: threefry2x32_p.bind(*k, high, low),
    fold_in=lambda k, msg: threefry2x32_p.bind(*k, _ZERO, msg),
    bits=lambda k, high, low: threefry2x32_p.bind(*k, high, low))

_MAX_COUNT = np.iinfo(np.uint32).max  # the most words one key hashes in the original scheme


def _hash_counts(keys, count: int):
  """Original scheme: the ``count`` words each stored key hashes from counters
  ``0 .. count-1``, of shape ``keys.shape[:-1] + (count,)``."""
  half = (count + 1) // 2
  rank = keys.ndim
  first = iota(np.uint32, half)
  second = add(first, np.uint32(half))
  if count % 2:  # the padding counter is zero
    second = concatenate([lax_slice(second, (0,), (half - 1,)),
                              lax_full((1,), 0, np.uint32)], 0)
  out_shape = (*keys.shape[:-1], half)
  words = [expand_dims(keys[..., i], (rank - 1,)) for i in range(2)]
  counters = [broadcast_in_dim(c, out_shape, (rank - 1,)) for c in (first, second)]
  outs = threefry2x32_p.bind(*words, *counters)
  return slice_in_dim(concatenate(list(outs), rank - 1), 0, count, axis=rank - 1)


def _split_original(keys, shape: tuple):
  words = _hash_counts(keys, 2 * math.prod(shape))
  return reshape(words, (*keys.shape[:-1], *shape, 2))


def _random_bits_original(keys, bit_width: int, shape: tuple):
  size = math.prod(shape)
  count = -(-bit_width * size // 32)
  batch = keys.shape[:-1]
  blocks, rem = divmod(count, _MAX_COUNT)
  if blocks:  # beyond one key's counters: one key per block, split from the key
    subkeys = _split_original(keys, (blocks + 1,))
    full = _hash_counts(slice_in_dim(subkeys, 0, blocks, axis=len(batch)), _MAX_COUNT)
    last = _hash_counts(index_in_dim(subkeys, blocks, len(batch), keepdims=False), rem)
    words = concatenate([reshape(full, (*batch, blocks * _MAX_COUNT)), last],
                            len(batch))
  else:
    words = _hash_counts(keys, rem)
  dtype = UINT_DTYPES[bit_width]
  if bit_width == 64:
    high, low = (convert_element_type(slice_in_dim(words, start, start + size,
                                                           axis=len(batch)), dtype)
                 for start in (0, size))
    bits = bitwise_or(shift_left(high, np.uint64(32)), low)
  elif bit_width == 32:
    bits = words
  else:  # each word's bytes (or 16-bit halves), least significant first
    per_word = 32 // bit_width
    shifts = mul(iota(np.uint32, per_word), np.uint32(bit_width))
    parts = shift_right_logical(
        expand_dims(words, (len(batch) + 1,)),
        broadcast_in_dim(shifts, (*batch, count, per_word), (len(batch) + 1,)))
    parts = reshape(parts, (*batch, count * per_word))
    bits = convert_element_type(slice_in_dim(parts, 0, size, axis=len(batch)), dtype)
  return reshape(bits, (*batch, *shape))


def split(keys, shape: tuple):
  """New stored keys of ``shape`` from each of ``keys``."""
  if config._read("jax_threefry_partitionable"):
    return _split_partitionable(keys, shape)
  return _split_original(keys, shape)


def random_bits(keys, bit_width: int, shape: tuple):
  """Unsigned ``bit_width``-bit integers of ``shape`` from each of ``keys``."""
  if config._read("jax_threefry_partitionable"):
    return _random_bits_partitionable(keys, bit_width, shape)
  return _random_bits_original(keys, bit_width, shape)
