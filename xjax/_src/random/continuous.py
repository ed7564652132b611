"""Continuous samplers built on uniform bits: uniform, normal and their transforms.

Each sampler checks its arguments in the user's terms, then calls a jitted body (one
compiled program per shape/dtype when called eagerly, a nested ``jit`` when traced), whose
arithmetic follows JAX's so that the same key gives the same numbers.
"""
from __future__ import annotations

from functools import partial

import numpy as np

from xjax._src import dtypes
from xjax._src.jit import jit
from xjax._src.lax import lax
from xjax._src.random import keys
from xjax._src.random.sampler_args import (const, check_shape, float_dtype, shape_arg,
                                           single_key, to_rank)

_UINT = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


def uniform(key, shape=(), dtype=None, minval=0., maxval=1.):
  """Uniform floats in ``[minval, maxval)``."""
  key = single_key("uniform", key)
  dtype = float_dtype("uniform", dtype)
  return _uniform(key, minval, maxval, shape_arg("uniform", shape), dtype)


@partial(jit, static_argnums=(3, 4))
def _uniform(key, minval, maxval, shape, dtype):
  check_shape("uniform", shape, np.shape(minval), np.shape(maxval))
  minval, maxval = (to_rank(v, dtype, len(shape)) for v in (minval, maxval))
  return lax.max(minval, lax.add(lax.mul(unit_floats(key, shape, dtype),
                                         lax.sub(maxval, minval)), minval))


def unit_floats(key, shape: tuple, dtype):
  """Floats in [0, 1): random mantissa bits under the exponent of 1.0, minus 1."""
  info = dtypes.finfo(dtype)
  nbits, nmant = info.bits, info.nmant
  rng_bits = max(nbits, 8) if nmant >= 8 else 8
  uint = np.dtype(_UINT[nbits])
  bits = keys.random_bits(key, rng_bits, shape)
  if rng_bits != nbits:
    bits = lax.convert_element_type(bits, uint)
  bits = lax.shift_right_logical(bits, const(uint, rng_bits - nmant))
  bits = lax.bitwise_or(bits, np.array(1.0, dtype).view(uint)[()])
  return lax.sub(lax.bitcast_convert_type(bits, dtype), const(dtype, 1.0))


def normal(key, shape=(), dtype=None):
  """Standard normal samples (real, or complex with independent halves)."""
  key = single_key("normal", key)
  dtype = float_dtype("normal", dtype, allow_complex=True)
  return _normal(key, shape_arg("normal", shape), dtype)


@partial(jit, static_argnums=(1, 2))
def _normal(key, shape, dtype):
  if dtypes.is_complex(dtype):
    real = np.dtype(np.array(0, dtype).real.dtype)
    key_re, key_im = keys.split(key)
    re = lax.convert_element_type(_normal_real(key_re, shape, real), dtype)
    im = lax.convert_element_type(_normal_real(key_im, shape, real), dtype)
    return lax.div(lax.add(re, lax.mul(const(dtype, 1j), im)), const(dtype, np.sqrt(2)))
  return _normal_real(key, shape, dtype)


@partial(jit, static_argnums=(1, 2))
def _normal_real(key, shape, dtype):
  lo = np.nextafter(np.array(-1., dtype), np.array(0., dtype), dtype=dtype)
  u = _uniform(key, lo, np.array(1., dtype), shape, dtype)
  return lax.mul(const(dtype, np.sqrt(2)), lax.erf_inv(u))
