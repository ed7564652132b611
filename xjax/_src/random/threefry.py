"""The threefry2x32 hash and the PRNG built on it (JAX's default ``"threefry2x32"``).

``threefry2x32`` is a primitive lowered to 32-bit integer additions, rotations and xors
(20 rounds of Threefry-2x32, as in Salmon et al. 2011), so random bits never leave the
device. The functions below act on *stored* keys: uint32 arrays whose last axis holds a
key's two words. They use the counter scheme of ``jax_threefry_partitionable`` (on by
default since JAX 0.5): element ``i`` of a result hashes the 64-bit counter ``i``.
"""
from __future__ import annotations

import math

import numpy as np

from xjax._src.core.avals import ShapedArray
from xjax._src.core.values import get_aval
from xjax._src.lax import lax
from xjax._src.lax.elementwise import elementwise_batch
from xjax._src.lax.utils import broadcasting_shape, lowering_from, standard_primitive
from xjax._src.interpreters import ad
from xjax._src.backend.lowering import i64_array

_U32 = np.dtype(np.uint32)
_U64 = np.dtype(np.uint64)
_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_PARITY = np.uint32(0x1BD11BDA)


def _rotate_left(x, d: int):
  return lax.bitwise_or(lax.shift_left(x, np.uint32(d)),
                        lax.shift_right_logical(x, np.uint32(32 - d)))


def _threefry2x32_rounds(k1, k2, x1, x2):
  """Threefry-2x32 with 20 rounds, on uint32 arrays of one shape."""
  ks = (k1, k2, lax.bitwise_xor(lax.bitwise_xor(k1, k2), _PARITY))
  x1, x2 = lax.add(x1, ks[0]), lax.add(x2, ks[1])
  for i in range(5):
    for r in _ROTATIONS[i % 2]:
      x1 = lax.add(x1, x2)
      x2 = lax.bitwise_xor(x1, _rotate_left(x2, r))
    x1 = lax.add(x1, ks[(i + 1) % 3])
    x2 = lax.add(lax.add(x2, ks[(i + 2) % 3]), np.uint32(i + 1))
  return [x1, x2]


def _threefry2x32_abstract_eval(*avals):
  if any(a.dtype != _U32 for a in avals):
    raise TypeError("Arguments to threefry2x32 must have uint32 type, got "
                    f"{', '.join(str(a.dtype) for a in avals)}")
  aval = ShapedArray(broadcasting_shape("threefry2x32", [a.shape for a in avals]), _U32)
  return [aval, aval]


def _threefry2x32_lowering(*words):
  shape = broadcasting_shape("threefry2x32", [get_aval(v).shape for v in words])
  return _threefry2x32_rounds(*(_broadcast(v, shape) for v in words))


def _broadcast(x, shape: tuple):
  """``x`` (of rank 0 or of ``shape``'s rank, with unit dims) broadcast to ``shape``."""
  aval = get_aval(x)
  if aval.shape == shape:
    return x
  if aval.ndim == 0:
    return lax.broadcast_in_dim(x, shape, ())
  keep = tuple(i for i, d in enumerate(aval.shape) if d == shape[i])
  return lax.broadcast_in_dim(lax.reshape(x, tuple(aval.shape[i] for i in keep)), shape, keep)


threefry2x32_p = standard_primitive("threefry2x32", _threefry2x32_abstract_eval,
                                    lowering_from(_threefry2x32_lowering),
                                    multiple_results=True)
threefry2x32_p.batch = elementwise_batch(threefry2x32_p)
ad.zero_jvp(threefry2x32_p)


# ---------------------------------------------------------------------------------------
# Counters: the row-major position of each element as a 64-bit number in two words

def _iota_2x32_abstract_eval(*, shape):
  aval = ShapedArray(shape, _U32)
  return [aval, aval]


def _iota_2x32_lowering(ctx, *, shape):
  wide = ShapedArray(shape, _U64)
  total = None
  stride = 1
  for dim in reversed(range(len(shape))):
    iota = ctx.op("stablehlo.iota", [], wide, {"iota_dimension": f"{dim} : i64"})
    if stride != 1:
      iota = ctx.op("stablehlo.multiply", [iota, ctx.op(
          "stablehlo.broadcast_in_dim", [ctx.constant(np.uint64(stride), ShapedArray((), _U64))],
          wide, {"broadcast_dimensions": i64_array(())})], wide)
    total = iota if total is None else ctx.op("stablehlo.add", [total, iota], wide)
    stride *= shape[dim]
  if total is None:  # a scalar: counter 0
    total = ctx.constant(np.uint64(0), wide)
  shift = ctx.op("stablehlo.broadcast_in_dim",
                 [ctx.constant(np.uint64(32), ShapedArray((), _U64))], wide,
                 {"broadcast_dimensions": i64_array(())})
  high = ctx.op("stablehlo.shift_right_logical", [total, shift], wide)
  narrow = ShapedArray(shape, _U32)
  return [ctx.op("stablehlo.convert", [high], narrow), ctx.op("stablehlo.convert", [total], narrow)]


iota_2x32_shape_p = standard_primitive("iota_2x32_shape", _iota_2x32_abstract_eval,
                                       _iota_2x32_lowering, multiple_results=True)


def iota_2x32_shape(shape: tuple):
  """(high, low) words of ``arange(prod(shape)).reshape(shape)`` as 64-bit counters."""
  return iota_2x32_shape_p.bind(shape=tuple(shape))


# ---------------------------------------------------------------------------------------
# The PRNG on stored keys (uint32 arrays with a trailing axis of 2)

def _words(keys):
  """The two words of each stored key: two arrays of the keys' logical shape."""
  return keys[..., 0], keys[..., 1]


def _stack_words(w1, w2):
  """Stored keys from their two words."""
  return lax.concatenate([lax.expand_dims(w, (w.ndim,)) for w in (w1, w2)], w1.ndim)


def _hash_counters(keys, shape: tuple):
  """threefry2x32 of each key with the counters of ``shape``: two arrays of
  ``keys_shape + shape``."""
  out_shape = (*keys.shape[:-1], *shape)
  k1, k2 = (_broadcast(lax.expand_dims(k, tuple(range(k.ndim, len(out_shape)))), out_shape)
            for k in _words(keys))
  hi, lo = (_broadcast(lax.broadcast_to_rank(c, len(out_shape)), out_shape)
            for c in iota_2x32_shape(shape))
  return threefry2x32_p.bind(k1, k2, hi, lo)


def seed(seeds):
  """Stored keys from integer seeds: the seed's 64 bits as (high word, low word)."""
  high = lax.shift_right_logical(seeds, lax.full((), 32, seeds.dtype))
  return _stack_words(*(lax.convert_element_type(w, _U32) for w in (high, seeds)))


def split(keys, shape: tuple):
  """``keys_shape + shape`` new keys from each key: the hash of each counter."""
  return _stack_words(*_hash_counters(keys, shape))


def fold_in(keys, msgs):
  """Keys mixed with uint32 messages (broadcast together): the hash of (0, msg)."""
  shape = np.broadcast_shapes(keys.shape[:-1], msgs.shape)
  k1, k2 = (_broadcast(lax.broadcast_to_rank(k, len(shape)), shape) for k in _words(keys))
  msgs = _broadcast(lax.broadcast_to_rank(lax.convert_element_type(msgs, _U32), len(shape)),
                    shape)
  return _stack_words(*threefry2x32_p.bind(k1, k2, lax.full(shape, 0, _U32), msgs))


_UINT = {8: np.dtype(np.uint8), 16: np.dtype(np.uint16), 32: _U32, 64: _U64}


def random_bits(keys, bit_width: int, shape: tuple):
  """``keys_shape + shape`` unsigned integers of ``bit_width`` bits from each key."""
  if math.prod(shape) > 2 ** 64:
    raise NotImplementedError("random bits array of size exceeding 2 ** 64")
  b1, b2 = _hash_counters(keys, shape)
  dtype = _UINT[bit_width]
  if bit_width == 64:
    high = lax.convert_element_type(b1, dtype)
    return lax.bitwise_or(lax.shift_left(high, np.uint64(32)), lax.convert_element_type(b2, dtype))
  bits = lax.bitwise_xor(b1, b2)
  return bits if bit_width == 32 else lax.convert_element_type(bits, dtype)
