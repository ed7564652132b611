"""What the counter-based PRNGs (threefry, philox) share.

Each is a hash of uint32 words — a primitive built by ``hash_primitive`` from its rounds,
lowered to 32-bit integer arithmetic so random bits never leave the device — and a recipe
saying which hash inputs hold a key's words, an element's counter and fold_in's message.
``stored_key_functions`` turns the recipe into the functions of a ``PRNGImpl`` on *stored*
keys: uint32 arrays whose last axis holds a key's words. Element ``i`` (row-major) of a
split or a draw hashes the 64-bit counter ``i``, as two words (high, low): the scheme of
``jax_threefry_partitionable``, on by default since JAX 0.5 (threefry2x32 also has the
original scheme, see ``threefry``).
"""
from __future__ import annotations

import functools
import math
from typing import Callable, NamedTuple

import numpy as np

from xjax._src.backend.lowering import i64_array
from xjax._src.core.avals import ShapedArray
from xjax._src.core.values import get_aval
from xjax._src.interpreters import ad
from xjax._src.primitives.lax.elementwise import (bitwise_or, bitwise_xor, convert_element_type,
                                                  shift_left, shift_right_logical, sub)
from xjax._src.primitives.lax.shapes import (broadcast_in_dim, broadcast_to_rank, concatenate,
                                             expand_dims, full, reshape)
from xjax._src.primitives.lax.elementwise import elementwise_batch
from xjax._src.primitives.lax.operand_checks import broadcasting_shape
from xjax._src.primitives.lax.primitive_builders import lowering_from, standard_primitive

_U32 = np.dtype(np.uint32)
_U64 = np.dtype(np.uint64)
UINT_DTYPES = {8: np.dtype(np.uint8), 16: np.dtype(np.uint16), 32: _U32, 64: _U64}


def rotate_left(x, d):
  """``x`` (uint32) rotated left by ``d`` bits (an int, or a uint32 scalar)."""
  if isinstance(d, int):
    return bitwise_or(shift_left(x, np.uint32(d)),
                          shift_right_logical(x, np.uint32(32 - d)))
  return bitwise_or(shift_left(x, d),
                        shift_right_logical(x, sub(np.uint32(32), d)))


def broadcast(x, shape: tuple):
  """``x`` (of rank 0 or of ``shape``'s rank, with unit dims) broadcast to ``shape``."""
  aval = get_aval(x)
  if aval.shape == shape:
    return x
  if aval.ndim == 0:
    return broadcast_in_dim(x, shape, ())
  keep = tuple(i for i, d in enumerate(aval.shape) if d == shape[i])
  return broadcast_in_dim(reshape(x, tuple(aval.shape[i] for i in keep)), shape, keep)


# ---------------------------------------------------------------------------------------
# Hash primitives: uint32 words in, uint32 words out, elementwise

def hash_primitive(name: str, rounds: Callable, num_inputs: int, num_outputs: int,
                   num_unbroadcast: int = 0):
  """A primitive hashing ``num_inputs`` uint32 arrays, broadcast together as lax's
  elementwise operands, into ``num_outputs``; ``rounds`` (lax functions on arrays of one
  shape, except the first ``num_unbroadcast``, given as they are: key words, which lax's
  implicit broadcasting extends) is its lowering. Batched elementwise; its derivative is
  zero."""
  def abstract_eval(*avals):
    if len(avals) != num_inputs:
      raise TypeError(f"{name} expects {num_inputs} arguments, got {len(avals)}.")
    if any(a.dtype != _U32 for a in avals):
      raise TypeError(f"Arguments to {name} must have uint32 type, got "
                      f"{', '.join(str(a.dtype) for a in avals)}")
    return [ShapedArray(broadcasting_shape(name, [a.shape for a in avals]), _U32)] * num_outputs

  def lower(*words):
    shape = broadcasting_shape(name, [get_aval(w).shape for w in words])
    return list(rounds(*words[:num_unbroadcast],
                       *(broadcast(w, shape) for w in words[num_unbroadcast:])))

  prim = standard_primitive(name, abstract_eval, lowering_from(lower), multiple_results=True)
  prim.batch = elementwise_batch(prim)
  ad.zero_jvp(prim)
  return prim


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
# Functions on stored keys, from a recipe

def _key_words(keys) -> list:
  """The words of each stored key: arrays of the keys' logical shape."""
  return [keys[..., i] for i in range(keys.shape[-1])]


def _stack_words(words):
  """Stored keys from their words."""
  words = list(words)
  return concatenate([expand_dims(w, (w.ndim,)) for w in words], words[0].ndim)


def _with_counters(keys, shape: tuple):
  """Each key's words, of shape ``keys_shape`` followed by unit dimensions, and the counters
  of ``shape``, broadcast to ``keys_shape + shape`` (the hash broadcasts the words)."""
  out_shape = (*keys.shape[:-1], *shape)
  words = [expand_dims(k, tuple(range(k.ndim, len(out_shape)))) for k in _key_words(keys)]
  high, low = (broadcast(broadcast_to_rank(c, len(out_shape)), out_shape)
               for c in iota_2x32_shape(shape))
  return words, high, low


class StoredKeyFunctions(NamedTuple):
  """A PRNGImpl's functions on stored keys (see ``prng.PRNGImpl``)."""
  seed: Callable
  split: Callable
  random_bits: Callable
  fold_in: Callable


def stored_key_functions(*, seed: Callable, split: Callable, fold_in: Callable,
                         bits: Callable, wide: Callable = lambda outs: outs[:2]
                         ) -> StoredKeyFunctions:
  """The functions of a counter-based PRNG from its recipe, each on arrays of one shape:
  ``seed(high, low)``: a key's words from a seed's two 32-bit halves;
  ``split(words, high, low)``: a new key's words from a key's and a counter;
  ``fold_in(words, msg)``: a new key's words from a key's and a uint32 message;
  ``bits(words, high, low)``: the hash words of a counter (xor-ed together they make 32
  bits, truncated 8 or 16); ``wide(outs)``: the (high, low) words of 64 bits from them."""
  def seed_keys(seeds):
    high = shift_right_logical(seeds, full((), 32, seeds.dtype))
    return _stack_words(seed(*(convert_element_type(w, _U32) for w in (high, seeds))))

  def split_keys(keys, shape: tuple):
    return _stack_words(split(*_with_counters(keys, shape)))

  def fold_in_keys(keys, msgs):
    shape = np.broadcast_shapes(keys.shape[:-1], msgs.shape)
    to_shape = lambda x: broadcast(broadcast_to_rank(x, len(shape)), shape)
    return _stack_words(fold_in([to_shape(k) for k in _key_words(keys)], to_shape(msgs)))

  def random_bits(keys, bit_width: int, shape: tuple):
    if math.prod(shape) > 2 ** 64:
      raise NotImplementedError("random bits array of size exceeding 2 ** 64")
    outs = list(bits(*_with_counters(keys, shape)))
    dtype = UINT_DTYPES[bit_width]
    if bit_width == 64:
      high, low = (convert_element_type(w, dtype) for w in wide(outs))
      return bitwise_or(shift_left(high, np.uint64(32)), low)
    mixed = functools.reduce(bitwise_xor, outs)
    return mixed if bit_width == 32 else convert_element_type(mixed, dtype)

  return StoredKeyFunctions(seed_keys, split_keys, random_bits, fold_in_keys)
