"""PRNG key arrays: the key dtype and the primitives that make and consume keys.

A key array has an extended dtype (``key<fry>``) and a logical shape; it is stored as a
uint32 array with the implementation's key shape appended (``(2,)`` for threefry). The
primitives below are what jaxprs show (``random_seed``, ``random_split``, ...); each lowers
through the implementation's functions on the stored uint32 arrays.
"""
from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.foundations.sharding import typed_sharding
from xjax._src.core.avals import ShapedArray, spec_of
from xjax._src.interpreters import ad, batching
from xjax._src.primitives.lax.shapes import full as lax_full
from xjax._src.primitives.lax.elementwise import broadcasting_sharding_rule, elementwise_batch
from xjax._src.primitives.lax.operand_checks import broadcasting_shape
from xjax._src.primitives.lax.primitive_builders import lowering_from, standard_primitive
from xjax._src.libraries.random import threefry


class PRNGImpl(NamedTuple):
  """A PRNG: functions on stored keys (uint32 arrays ending in ``key_shape``)."""
  key_shape: tuple
  seed: Callable        # integer seeds -> stored keys
  split: Callable       # (stored keys, shape) -> stored keys of keys_shape + shape
  random_bits: Callable  # (stored keys, bit_width, shape) -> unsigned ints
  fold_in: Callable     # (stored keys, uint32 messages) -> stored keys
  name: str
  tag: str

  def __str__(self) -> str:  # how jaxprs print it: random_wrap[impl=fry]
    return self.tag

  def __repr__(self) -> str:
    return f"PRNGImpl({self.name})"

  def __reduce_ex__(self, protocol):
    # A registered implementation pickles by name: its functions may be closures.
    if prngs.get(self.name) is self:
      return registered_prng, (self.name,)
    return object.__reduce_ex__(self, protocol)


prngs: dict[str, PRNGImpl] = {}


def registered_prng(name: str) -> PRNGImpl:
  return prngs[name]


def register_prng(impl: PRNGImpl) -> None:
  if impl.name in prngs:
    raise ValueError(f"PRNG with name {impl.name} already registered: {impl}")
  prngs[impl.name] = impl


threefry_prng_impl = PRNGImpl(key_shape=(2,), seed=threefry.seed, split=threefry.split,
                              random_bits=threefry.random_bits, fold_in=threefry.fold_in,
                              name="threefry2x32", tag="fry")
register_prng(threefry_prng_impl)


class KeyTy(dtypes.ExtendedDType):
  """The dtype of keys of one PRNG implementation, printed ``key<fry>``."""
  type = dtypes.prng_key
  physical_dtype = np.dtype(np.uint32)

  def __init__(self, impl: PRNGImpl) -> None:
    self._impl = impl
    self.name = f"key<{impl.tag}>"
    self.physical_shape = impl.key_shape

  def __eq__(self, other) -> bool:
    return type(other) is KeyTy and self._impl == other._impl

  def __hash__(self) -> int:
    return hash((KeyTy, self._impl.name))

  def full(self, shape: tuple, fill_value):
    """Keys whose stored data is ``fill_value`` (JAX fills key arrays this way too)."""
    data = lax_full((*shape, *self.physical_shape), fill_value, self.physical_dtype)
    return random_wrap_p.bind(data, impl=self._impl)


def is_key(x) -> bool:
  return isinstance(getattr(x, "dtype", None), KeyTy)


def _key_aval(impl: PRNGImpl, shape: tuple) -> ShapedArray:
  return ShapedArray(shape, KeyTy(impl))


def _resplit(aval: ShapedArray, ndim: int):
  """The type sharding of a result whose leading dimensions are ``aval``'s first ``ndim``
  (split as they are) and whose others are unsplit: keys and their data, split keys and
  their bits."""
  if aval._sharding is None:
    return None
  spec = spec_of(aval)[:ndim]
  return typed_sharding(aval._sharding.mesh, spec + (None,) * (ndim - len(spec)))


def _impl_of(aval: ShapedArray) -> PRNGImpl:
  if not isinstance(aval.dtype, KeyTy):
    raise TypeError(f"expected an array of PRNG keys, got an array of dtype {aval.dtype}")
  return aval.dtype._impl


def _keys_first(axis, args, dims):
  """Batched operands with their batch axis first (broadcast where unbatched)."""
  return [batching.bdim_to_front(x, d, axis.size) for x, d in zip(args, dims)]


# ---------------------------------------------------------------------------------------
# random_seed: integer seeds -> keys

def _seed_abstract_eval(seeds, *, impl):
  if not dtypes.is_integer(seeds.dtype):
    raise TypeError(f"PRNG key seed must be an integer; got an array of dtype {seeds.dtype}")
  return _key_aval(impl, seeds.shape)


random_seed_p = standard_primitive(
    "random_seed", _seed_abstract_eval,
    lowering_from(lambda seeds, *, impl: impl.seed(seeds)))
ad.zero_jvp(random_seed_p)
random_seed_p.sharding_rule = lambda seeds, *, impl: seeds._sharding
random_seed_p.batch = lambda axis, args, dims, *, impl: (
    random_seed_p.bind(*args, impl=impl), dims[0])


# ---------------------------------------------------------------------------------------
# random_wrap / random_unwrap: stored uint32 data <-> keys (no computation)

def _wrap_abstract_eval(data, *, impl):
  n = len(impl.key_shape)
  if data.dtype != np.uint32 or data.shape[data.ndim - n:] != impl.key_shape:
    raise TypeError(f"random_wrap needs uint32 data ending in {impl.key_shape}, got "
                    f"{data.str_short(short_dtypes=False)}")
  return _key_aval(impl, data.shape[:data.ndim - n])


def _wrap_batch(axis, args, dims, *, impl):
  (data,), (d,) = args, dims
  return random_wrap_p.bind(batching.moveaxis(data, d, 0), impl=impl), 0


random_wrap_p = standard_primitive("random_wrap", _wrap_abstract_eval,
                                   lambda ctx, data, *, impl: data)
ad.zero_jvp(random_wrap_p)
random_wrap_p.batch = _wrap_batch
random_wrap_p.sharding_rule = lambda data, *, impl: _resplit(data, data.ndim - len(impl.key_shape))


def _unwrap_abstract_eval(keys):
  impl = _impl_of(keys)
  return ShapedArray(keys.shape + impl.key_shape, np.uint32)


random_unwrap_p = standard_primitive("random_unwrap", _unwrap_abstract_eval,
                                     lambda ctx, keys: keys)
ad.zero_jvp(random_unwrap_p)
random_unwrap_p.sharding_rule = lambda keys: _resplit(
    keys, keys.ndim + len(_impl_of(keys).key_shape))
random_unwrap_p.batch = lambda axis, args, dims: (random_unwrap_p.bind(*args), dims[0])


# ---------------------------------------------------------------------------------------
# random_split, random_bits: one key -> many keys / many bits (per key of a key array)

def _split_abstract_eval(keys, *, shape):
  return _key_aval(_impl_of(keys), keys.shape + tuple(shape))


random_split_p = standard_primitive(
    "random_split", _split_abstract_eval,
    lambda ctx, keys, *, shape: lowering_from(
        lambda k: _impl_of(ctx.avals_in[0]).split(k, shape))(ctx, keys))
ad.zero_jvp(random_split_p)
random_split_p.sharding_rule = lambda keys, *, shape: _resplit(keys, keys.ndim + len(shape))
random_split_p.batch = lambda axis, args, dims, *, shape: (
    random_split_p.bind(*_keys_first(axis, args, dims), shape=shape), 0)


def _bits_abstract_eval(keys, *, bit_width, shape):
  _impl_of(keys)
  if bit_width not in (8, 16, 32, 64):
    raise TypeError("random_bits requires 8-, 16-, 32- or 64-bit field width.")
  return ShapedArray(keys.shape + tuple(shape), np.dtype(f"uint{bit_width}"))


random_bits_p = standard_primitive(
    "random_bits", _bits_abstract_eval,
    lambda ctx, keys, *, bit_width, shape: lowering_from(
        lambda k: _impl_of(ctx.avals_in[0]).random_bits(k, bit_width, shape))(ctx, keys))
ad.zero_jvp(random_bits_p)
random_bits_p.sharding_rule = lambda keys, *, bit_width, shape: _resplit(
    keys, keys.ndim + len(shape))
random_bits_p.batch = lambda axis, args, dims, **params: (
    random_bits_p.bind(*_keys_first(axis, args, dims), **params), 0)


# ---------------------------------------------------------------------------------------
# random_fold_in: keys and uint32 messages, broadcast together

def _fold_in_abstract_eval(keys, msgs):
  _impl_of(keys)
  if msgs.dtype != np.uint32:
    raise TypeError(f"random_fold_in needs uint32 messages, got {msgs.dtype}")
  return ShapedArray(broadcasting_shape("random_fold_in", [keys.shape, msgs.shape]), keys.dtype)


random_fold_in_p = standard_primitive(
    "random_fold_in", _fold_in_abstract_eval,
    lambda ctx, keys, msgs: lowering_from(
        lambda k, m: _impl_of(ctx.avals_in[0]).fold_in(k, m))(ctx, keys, msgs))
ad.zero_jvp(random_fold_in_p)
random_fold_in_p.sharding_rule = broadcasting_sharding_rule("random_fold_in")
random_fold_in_p.batch = elementwise_batch(random_fold_in_p)  # scalars stay unbatched, as JAX
