"""Making, splitting and inspecting PRNG keys (``jax.random.key``, ``split``, ...).

Two kinds of key reach these functions: typed keys (``random.key``; a scalar of dtype
``key<fry>``) and legacy keys (``random.PRNGKey``; a ``uint32[2]`` array). Legacy keys are
wrapped into typed keys on the way in and unwrapped on the way out, so a function returns
the kind of key it was given, as in JAX.
"""
from __future__ import annotations

import warnings

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.foundations.config import config
from xjax._src.core.concrete import canonicalize_shape
from xjax._src.libraries.numpy import namespace as jnp
# Importing rbg, philox and threefry4x32 registers their PRNGs.
from xjax._src.libraries.random import philox, prng, rbg, threefry4x32  # noqa: F401
from xjax._src.libraries.random.prng import KeyTy, PRNGImpl, is_key
from xjax._src.libraries.random.out_sharding import with_out_sharding


def default_prng_impl() -> PRNGImpl:
  return prng.prngs[config._read("jax_default_prng_impl")]


def resolve_prng_impl(spec) -> PRNGImpl:
  """The implementation named by ``impl=``/``dtype=``: None (the default), a name, a key
  dtype or an implementation."""
  if spec is None:
    return default_prng_impl()
  if isinstance(spec, PRNGImpl):
    return spec
  if isinstance(spec, KeyTy):
    return spec._impl
  if isinstance(spec, str):
    if spec in prng.prngs:
      return prng.prngs[spec]
    names = ", ".join(f'"{n}"' for n in prng.prngs)
    raise ValueError(f'unrecognized PRNG implementation "{spec}". Did you mean one of: '
                     f"{names}?")
  raise TypeError(f"unrecognized type {type(spec)} for specifying PRNG implementation.")


def key_dtype(impl_spec=None) -> KeyTy:
  """The key dtype of a PRNG implementation (the default one when ``impl_spec`` is None)."""
  return KeyTy(resolve_prng_impl(impl_spec))


# ---------------------------------------------------------------------------------------
# Checking keys

_HOW_TO_MAKE = "Make keys with xjax.random.key(seed) (or the legacy random.PRNGKey(seed))."


def check_prng_key(name: str, key, *, allow_batched: bool = False):
  """(typed key, was_legacy): the key a random function was given, as a typed key."""
  if is_key(key):
    typed, wrapped = key, False
  else:
    typed, wrapped = wrap_key_data(key, impl=default_prng_impl()), True
    _legacy_key_used()
  if not allow_batched and typed.ndim:
    raise ValueError(f"{name} accepts a single key, but was given a key array of shape "
                     f"{np.shape(key)} != (). Use jax.vmap for batching.")
  return typed, wrapped


def _check_key_data(impl: PRNGImpl, data) -> None:
  if not all(hasattr(data, a) for a in ("ndim", "shape", "dtype")):
    raise TypeError(f"xjax got invalid PRNG key data {data!r}: a key is an array. "
                    f"{_HOW_TO_MAKE}")
  n = len(impl.key_shape)
  if data.ndim < n or tuple(data.shape[data.ndim - n:]) != impl.key_shape:
    raise TypeError("xjax got invalid PRNG key data: expected key_data.shape to end with "
                    f"{impl.key_shape}; got shape={tuple(data.shape)} for impl={impl.name}. "
                    f"{_HOW_TO_MAKE}")
  if data.dtype != np.uint32:
    raise TypeError("xjax got invalid PRNG key data: expected key_data.dtype = uint32; got "
                    f"dtype={data.dtype}. {_HOW_TO_MAKE}")


_LEGACY_MESSAGE = ("Legacy uint32 key array passed as key to xjax.random function. Please "
                   "create keys using xjax.random.key(). If use of a raw key array was "
                   'intended, set jax_legacy_prng_key="allow".')


def _legacy_key_used() -> None:
  """What ``jax_legacy_prng_key`` (allow/warn/error) and ``jax_enable_custom_prng`` say
  about a raw uint32 key."""
  mode = config._read("jax_legacy_prng_key")
  if mode == "error":
    raise ValueError(_LEGACY_MESSAGE)
  if mode == "warn":
    warnings.warn(_LEGACY_MESSAGE, stacklevel=3)
  elif config._read("jax_enable_custom_prng"):
    warnings.warn("Raw arrays as random keys to xjax.random functions are deprecated. "
                  "Assuming valid threefry2x32 key for now.", FutureWarning, stacklevel=3)


def _returned(wrapped: bool, keys):
  """Keys in the kind the caller gave: legacy uint32 data if it gave legacy keys (typed
  keys always under ``jax_enable_custom_prng``)."""
  if wrapped and not config._read("jax_enable_custom_prng"):
    return prng.random_unwrap_p.bind(keys)
  return keys


# ---------------------------------------------------------------------------------------
# Public functions

def _seed_keys(ctor: str, seed, impl: PRNGImpl):
  if is_key(seed):
    raise TypeError(f"{ctor} accepts a scalar seed, but was given a PRNG key.")
  if np.ndim(seed):
    raise TypeError(f"{ctor} accepts a scalar seed, but was given an array of shape "
                    f"{np.shape(seed)} != (). Use jax.vmap for batching")
  if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
    dt = getattr(seed, "dtype", None) or dtypes.dtype(seed)
    if not dtypes.is_integer(dt):
      raise TypeError(f"PRNG key seed must be an integer; got {seed!r} of dtype {dt}.")
  if isinstance(seed, int):
    # Python ints go through int64 (wrapping to 32 bits without x64), so hashes and other
    # large seeds work: ints beyond int64 raise OverflowError, as in JAX.
    seed = jnp.asarray(np.int64(seed))
  else:
    seed = jnp.asarray(seed)
  offset = config._read("jax_random_seed_offset")
  if offset:
    seed = seed + offset
  return prng.random_seed_p.bind(seed, impl=impl)


def key(seed, *, impl=None, dtype=None):
  """A typed PRNG key (a scalar of dtype ``key<fry>``) from an integer seed."""
  if dtype is not None:
    if impl is not None:
      raise ValueError("Cannot specify both `impl` and `dtype` arguments to "
                       "xjax.random.key")
    impl = dtype
  return _seed_keys("key", seed, resolve_prng_impl(impl))


def PRNGKey(seed, *, impl=None):
  """A legacy PRNG key: the ``uint32[2]`` data of ``key(seed)``."""
  return _returned(True, _seed_keys("PRNGKey", seed, resolve_prng_impl(impl)))


def _shape_arg(name: str, shape) -> tuple:
  dims = canonicalize_shape(shape)
  if any(d < 0 for d in dims):
    raise TypeError(f"{name}: shapes must have non-negative dimensions, got {dims}.")
  return dims


def split(key, num: int | tuple = 2):
  """``num`` new keys (a leading axis; or a tuple: that shape of keys) from one key."""
  typed, wrapped = check_prng_key("split", key)
  shape = _shape_arg("split", num)
  return _returned(wrapped, prng.random_split_p.bind(typed, shape=shape))


def fold_in(key, data):
  """A new key that depends on ``key`` and the 32-bit integer ``data``."""
  typed, wrapped = check_prng_key("fold_in", key)
  if np.ndim(data):
    raise TypeError("fold_in accepts a scalar, but was given an array of shape "
                    f"{np.shape(data)} != (). Use jax.vmap for batching.")
  msg = jnp.asarray(data, dtype=np.uint32)
  return _returned(wrapped, prng.random_fold_in_p.bind(typed, msg))


def random_bits(key, bit_width: int, shape: tuple):
  """Unsigned integers of ``bit_width`` bits from a typed key."""
  return prng.random_bits_p.bind(key, bit_width=bit_width, shape=tuple(shape))


@with_out_sharding
def bits(key, shape=(), dtype=None):
  """Uniformly random bits as unsigned integers (uint32, or uint64 under x64)."""
  typed, _ = check_prng_key("bits", key)
  if dtype is None:
    dt = dtypes.default_uint_dtype()
  else:
    dt = dtypes.check_user_dtype_supported(dtype)
  if not dtypes.is_unsigned(dt):
    raise ValueError(f"dtype argument to `bits` must be an unsigned int dtype, got {dt}")
  return random_bits(typed, np.dtype(dt).itemsize * 8, _shape_arg("bits", shape))


def key_data(keys):
  """The uint32 array a key array is stored as (legacy keys are returned as they are)."""
  typed, _ = check_prng_key("key_data", keys, allow_batched=True)
  return prng.random_unwrap_p.bind(typed)


def wrap_key_data(key_bits_array, *, impl=None, dtype=None):
  """Typed keys from their uint32 data (the inverse of ``key_data``)."""
  if dtype is not None:
    if impl is not None:
      raise ValueError("Cannot specify both `impl` and `dtype` arguments to "
                       "xjax.random.wrap_key_data")
    impl = dtype
  impl = resolve_prng_impl(impl)
  if isinstance(key_bits_array, (list, tuple, np.ndarray)):
    key_bits_array = jnp.asarray(key_bits_array)
  _check_key_data(impl, key_bits_array)
  return prng.random_wrap_p.bind(key_bits_array, impl=impl)


def key_impl(keys) -> str:
  """The name of the PRNG implementation of a key array."""
  typed, _ = check_prng_key("key_impl", keys, allow_batched=True)
  return typed.dtype._impl.name


def clone(key):
  """A copy of a key (for ``jax.experimental.key_reuse`` checks; the same value)."""
  return key
