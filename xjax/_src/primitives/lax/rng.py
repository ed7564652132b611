"""XLA's own random number generators: ``rng_bit_generator`` (stateless, keyed by a
``uint32[4]``) and ``rng_uniform`` (stateful). ``xjax.random`` is the API for most uses;
these give direct access to the StableHLO ops."""
from __future__ import annotations

import enum

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.avals import ShapedArray
from xjax._src.interpreters import ad, batching
from xjax._src.primitives.lax.shapes import _shape_tuple, dynamic_update_index_in_dim, index_in_dim
from xjax._src.primitives.lax.operand_checks import dtype_name
from xjax._src.primitives.lax.primitive_builders import standard_primitive


class RandomAlgorithm(enum.IntEnum):
  """Which PRNG algorithm ``rng_bit_generator`` uses."""
  RNG_DEFAULT = 0   # the platform's default (Philox on CPU)
  RNG_THREE_FRY = 1
  RNG_PHILOX = 2

  def __str__(self) -> str:
    return self.name


_ALGORITHM_ATTR = {RandomAlgorithm.RNG_DEFAULT: "DEFAULT",
                   RandomAlgorithm.RNG_THREE_FRY: "THREE_FRY",
                   RandomAlgorithm.RNG_PHILOX: "PHILOX"}
_BIT_DTYPES = tuple(np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64))
_U32_KEY = ((4,), np.dtype(np.uint32))
_U64_KEY = ((2,), np.dtype(np.uint64))


# ---------------------------------------------------------------------------------------
# rng_bit_generator

def _rbg_abstract_eval(key, *, shape, dtype, algorithm, out_sharding=None):
  if (key.shape, key.dtype) not in (_U32_KEY, _U64_KEY):
    raise TypeError("rng_bit_generator: the key must be a uint32[4] array (or uint64[2]), "
                    f"got {key.str_short(short_dtypes=False)}. Build one with e.g. "
                    "jnp.array([0, 0, 0, seed], jnp.uint32).")
  return [key, ShapedArray(shape, dtype)]


def _rbg_lowering(ctx, key, *, shape, dtype, algorithm, out_sharding=None):
  key_aval, bits_aval = ctx.avals_out
  u64 = ShapedArray((2,), np.uint64)
  if key_aval.dtype == np.uint32:
    pairs = ctx.op("stablehlo.reshape", [key], ShapedArray((2, 2), np.uint32))
    key = ctx.op("stablehlo.bitcast_convert", [pairs], u64)
  attrs = {"rng_algorithm": f"#stablehlo<rng_algorithm {_ALGORITHM_ATTR[algorithm]}>"}
  new_key, bits = ctx.op("stablehlo.rng_bit_generator", [key], [u64, bits_aval], attrs)
  if key_aval.dtype == np.uint32:
    pairs = ctx.op("stablehlo.bitcast_convert", [new_key], ShapedArray((2, 2), np.uint32))
    new_key = ctx.op("stablehlo.reshape", [pairs], key_aval)
  return [new_key, bits]


def _rbg_batch(axis, args, dims, *, shape, **params):
  """As JAX 0.10.2: a batch of keys draws one ``(batch, *shape)`` block from the first key,
  which alone advances (the other keys come back unchanged)."""
  keys = batching.moveaxis(args[0], dims[0], 0)
  new_key, bits = rng_bit_generator_p.bind(index_in_dim(keys, 0, 0, keepdims=False),
                                           shape=(axis.size, *shape), **params)
  return [dynamic_update_index_in_dim(keys, new_key, 0, 0), bits], [0, 0]


rng_bit_generator_p = standard_primitive("rng_bit_generator", _rbg_abstract_eval,
                                         _rbg_lowering, multiple_results=True)
ad.zero_jvp(rng_bit_generator_p)
rng_bit_generator_p.batch = _rbg_batch


def rng_bit_generator(key, shape, dtype=np.uint32, algorithm=RandomAlgorithm.RNG_DEFAULT,
                      *, out_sharding=None):
  """``(new_key, bits)``: uniformly random bits of ``shape`` and an unsigned ``dtype`` from
  XLA's RngBitGenerator, keyed by a ``uint32[4]``. Prefer ``xjax.random``."""
  shape = _shape_tuple(shape, "rng_bit_generator")
  dtype = dtypes.check_user_dtype_supported(dtype, "rng_bit_generator")
  if dtype not in _BIT_DTYPES:
    raise TypeError(f"rng_bit_generator: unsupported dtype {dtype_name(dtype)}: use uint8, "
                    "uint16, uint32 or uint64.")
  if out_sharding is not None:
    raise NotImplementedError("rng_bit_generator: out_sharding is not supported by xjax; "
                              "place the result with jax.device_put or "
                              "lax.with_sharding_constraint.")
  return tuple(rng_bit_generator_p.bind(key, shape=shape, dtype=dtype,
                                        algorithm=RandomAlgorithm(algorithm),
                                        out_sharding=None))


# ---------------------------------------------------------------------------------------
# rng_uniform

def _uniform_abstract_eval(a, b, *, shape):
  if a.dtype != b.dtype:
    raise ValueError("Arguments to rng_uniform must have identical dtypes, got "
                     f"{dtype_name(a.dtype)} and {dtype_name(b.dtype)}.")
  if a.shape != () or b.shape != ():
    raise ValueError(f"Arguments to rng_uniform must be scalars; got shapes {a.shape} and "
                     f"{b.shape}.")
  dt = np.dtype(a.dtype)
  if not (dtypes.is_float(dt) or (dtypes.is_integer(dt) and dt.itemsize >= 4)):
    # XLA's CPU compiler aborts the process on the others
    raise TypeError(f"rng_uniform does not support dtype {dt.name}: use a floating dtype or "
                    "a 32- or 64-bit integer dtype.")
  return ShapedArray(shape, a.dtype, a.weak_type and b.weak_type)


def _uniform_lowering(ctx, a, b, *, shape):
  dims = ctx.constant(np.array(shape, np.int64), ShapedArray((len(shape),), np.int64))
  return ctx.op("stablehlo.rng", [a, b, dims], ctx.avals_out[0],
                {"rng_distribution": "#stablehlo<rng_distribution UNIFORM>"})


rng_uniform_p = standard_primitive("rng_uniform", _uniform_abstract_eval, _uniform_lowering)


def rng_uniform(a, b, shape):
  """Stateful uniform random numbers in ``[a, b)`` from XLA's RNG (each call differs;
  not reproducible). Prefer ``xjax.random.uniform``."""
  return rng_uniform_p.bind(a, b, shape=_shape_tuple(shape, "rng_uniform"))
