"""``jax.extend.random``: the PRNG primitive and implementations."""
from typing import Callable as _Callable

import numpy as _np

from xjax import lax as _lax
from xjax import numpy as _jnp
from xjax._src.libraries.random.keys import key as _key
from xjax._src.libraries.random.prng import threefry_prng_impl  # noqa: F401
from xjax._src.libraries.random.prng import PRNGImpl as _PRNGImpl, random_seed_p as _random_seed_p
from xjax._src.libraries.random.rbg import rbg_prng_impl, unsafe_rbg_prng_impl  # noqa: F401
from xjax._src.libraries.random.rbg import per_key_impl as _per_key_impl
from xjax._src.libraries.random.threefry import threefry2x32_p  # noqa: F401

_U32 = _np.dtype(_np.uint32)


def threefry_2x32(keypair, count):
  """The Threefry-2x32 hash of the uint32 array ``count`` under the key ``(k1, k2)``: the
  flattened counts, padded to even length, are hashed as (first half, second half) pairs."""
  k1, k2 = keypair
  got = [_np.dtype(k.dtype) if hasattr(k, "dtype") else _np.result_type(k)
         for k in (k1, k2, count)]
  if any(d != _U32 for d in got):
    raise TypeError(f"threefry_2x32 requires uint32 key words and counts, got "
                    f"{', '.join(map(str, got))}")
  count = _jnp.asarray(count)
  flat = count.ravel()
  odd = flat.size % 2
  if odd:
    flat = _jnp.concatenate([flat, _jnp.zeros((1,), _U32)])
  half = flat.size // 2
  shape = (half,)
  words = [_lax.broadcast_in_dim(_jnp.asarray(k), shape, ()) for k in (k1, k2)]
  hi, lo = threefry2x32_p.bind(*words, flat[:half], flat[half:])
  out = _jnp.concatenate([hi, lo])
  return (out[:-1] if odd else out).reshape(count.shape)


def define_prng_impl(*, key_shape: tuple, seed: _Callable, split: _Callable,
                     random_bits: _Callable, fold_in: _Callable, name: str = "<unnamed>",
                     tag: str = "?") -> _PRNGImpl:
  """A PRNG implementation from functions on one key (an array of ``key_shape``):
  ``seed(s)``, ``split(key, shape)``, ``random_bits(key, bit_width, shape)``,
  ``fold_in(key, uint32)``; pass it as ``impl=`` to ``random.key`` and friends."""
  return _per_key_impl(key_shape=key_shape, seed=seed, split=split, random_bits=random_bits,
                       fold_in=fold_in, name=name, tag=tag)


def seed_with_impl(impl: _PRNGImpl, seed):
  """A key of ``impl`` from an integer seed (``random.key(seed, impl=impl)``)."""
  return _key(seed, impl=impl)


def random_seed(seeds, impl: _PRNGImpl):
  """Keys of ``impl``, one per integer in ``seeds``."""
  return _random_seed_p.bind(_jnp.asarray(seeds), impl=impl)
