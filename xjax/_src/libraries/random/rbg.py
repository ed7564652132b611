"""PRNG implementations defined one key at a time, and the two built on XLA's
RngBitGenerator: ``rbg`` and ``unsafe_rbg`` (``random.key(0, impl="rbg")`` or
``jax_default_prng_impl="rbg"``).

An rbg key is four uint32 words: two threefry keys.  Splitting and folding in hash each
half with threefry (so derived keys are as independent as threefry's); the bits come from
``lax.rng_bit_generator``.  ``unsafe_rbg`` also splits and folds with the generator, which
is faster but gives no guarantee of independence.
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from xjax._src.api.transformations import vmap
from xjax._src.primitives.lax.elementwise import bitwise_xor
from xjax._src.primitives.lax.shapes import concatenate, reshape
from xjax._src.primitives.lax.rng import rng_bit_generator
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.random import threefry
from xjax._src.libraries.random.prng import PRNGImpl, register_prng

_U32 = np.dtype(np.uint32)


def per_key_impl(*, key_shape: tuple, seed: Callable, split: Callable,
                 random_bits: Callable, fold_in: Callable, name: str, tag: str) -> PRNGImpl:
  """A PRNGImpl from functions on one key (an array of ``key_shape``) and one seed:
  ``seed(s)``, ``split(key, shape)``, ``random_bits(key, bit_width, shape)``,
  ``fold_in(key, uint32)``; arrays of keys are mapped over with vmap."""
  key_shape = tuple(key_shape)

  def over_keys(fn, keys):
    for _ in range(keys.ndim - len(key_shape)):
      fn = vmap(fn)
    return fn(keys)

  def fold_in_all(keys, msgs):
    # As JAX: a scalar message is folded into every key as it is (not broadcast first).
    if msgs.ndim == 0:
      return over_keys(lambda k: fold_in(k, msgs), keys)
    shape = np.broadcast_shapes(keys.shape[:keys.ndim - len(key_shape)], msgs.shape)
    fn = fold_in
    for _ in range(len(shape)):
      fn = vmap(fn)
    return fn(jnp.broadcast_to(keys, shape + key_shape), jnp.broadcast_to(msgs, shape))

  def seed_all(seeds):
    fn = seed
    for _ in range(seeds.ndim):
      fn = vmap(fn)
    return fn(seeds)

  return PRNGImpl(
      key_shape=key_shape, seed=seed_all,
      split=lambda keys, shape: over_keys(lambda k: split(k, tuple(shape)), keys),
      random_bits=lambda keys, bit_width, shape: over_keys(
          lambda k: random_bits(k, bit_width, tuple(shape)), keys),
      fold_in=fold_in_all, name=name, tag=tag)


def _seed(seed):
  half = threefry.seed(seed)
  return concatenate([half, half], 0)


def _halves(key):
  return reshape(key, (2, 2))


def _split(key, shape: tuple):
  keys = threefry.split(_halves(key), shape)  # (2, *shape, 2)
  return reshape(jnp.moveaxis(keys, 0, len(shape)), (*shape, 4))


def _fold_in(key, msg):
  return reshape(threefry.fold_in(_halves(key), msg), (4,))


def _random_bits(key, bit_width: int, shape: tuple):
  return rng_bit_generator(key, shape, dtype=np.dtype(f"uint{bit_width}"))[1]


def _unsafe_split(key, shape: tuple):
  # Ten draws of the generator per new key serve as a hash.
  _, draws = rng_bit_generator(key, (10 * math.prod(shape), 4), dtype=_U32)
  return reshape(draws[::10], (*shape, 4))


def _unsafe_fold_in(key, msg):
  _, draws = rng_bit_generator(_seed(msg), (10, 4), dtype=_U32)
  return bitwise_xor(key, draws[-1])


rbg_prng_impl = per_key_impl(key_shape=(4,), seed=_seed, split=_split,
                             random_bits=_random_bits, fold_in=_fold_in, name="rbg", tag="rbg")
unsafe_rbg_prng_impl = per_key_impl(key_shape=(4,), seed=_seed, split=_unsafe_split,
                                    random_bits=_random_bits, fold_in=_unsafe_fold_in,
                                    name="unsafe_rbg", tag="urbg")
register_prng(rbg_prng_impl)
register_prng(unsafe_rbg_prng_impl)
