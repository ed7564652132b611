"""Continuous samplers built on uniform bits: uniform, normal and their transforms.

Each sampler checks its arguments in the user's terms, then calls a jitted body (one
compiled program per shape/dtype when called eagerly, a nested ``jit`` when traced), whose
arithmetic follows JAX's so that the same key gives the same numbers.
"""
from __future__ import annotations

from functools import partial

import numpy as np


from xjax._src.foundations import dtypes
from xjax._src.foundations.config import config
from xjax._src.api.jit import jit
from xjax._src.primitives.lax.bit_conversions import bitcast_convert_type
from xjax._src.primitives.lax.elementwise import (abs as lax_abs, add, bitwise_and, bitwise_not,
                                                  bitwise_or, clz, convert_element_type, div, erf,
                                                  erf_inv, exp, integer_pow, le, log, log1p,
                                                  max as lax_max, mul, neg, nextafter, select,
                                                  shift_left, shift_right_logical, sign as lax_sign,
                                                  sqrt, sub, tan)
from xjax._src.primitives.lax.reductions import reduce_sum
from xjax._src.primitives.lax.shapes import broadcast_to_rank, full_like, reshape
from xjax._src.primitives.lax.stop_gradient import stop_gradient
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.random import keys
from xjax._src.libraries.random.sampler_args import (broadcast_shapes_or_shape, const, float_dtype,
                                                     shape_arg, single_key)
from xjax._src.libraries.random.out_sharding import with_out_sharding

_UINT = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


@with_out_sharding
def uniform(key, shape=(), dtype=None, minval=0., maxval=1.):
  """Uniform floats in ``[minval, maxval)``."""
  key = single_key("uniform", key)
  dtype = float_dtype("uniform", dtype)
  return _uniform(key, minval, maxval, shape_arg("uniform", shape), dtype)


@partial(jit, static_argnums=(3, 4))
def _uniform(key, minval, maxval, shape, dtype):
  """As JAX computes it: bounds of higher rank than ``shape`` (one element per draw) give
  their own shape (``uniform(key, (), minval=zeros(1))`` has shape (1,)); bounds that do not
  broadcast raise lax's TypeError."""
  minval, maxval = (convert_element_type(v, dtype) for v in (minval, maxval))
  minval, maxval = (broadcast_to_rank(v, len(shape)) for v in (minval, maxval))
  out = add(mul(unit_floats(key, shape, dtype), sub(maxval, minval)), minval)
  return lax_max(minval, reshape(out, shape))


def unit_floats(key, shape: tuple, dtype):
  """Floats in [0, 1): random mantissa bits under the exponent of 1.0, minus 1."""
  info = dtypes.finfo(dtype)
  nbits, nmant = info.bits, info.nmant
  rng_bits = max(nbits, 8) if nmant >= 8 else 8
  uint = np.dtype(_UINT[nbits])
  bits = keys.random_bits(key, rng_bits, shape)
  if rng_bits != nbits:
    bits = convert_element_type(bits, uint)
  bits = shift_right_logical(bits, const(uint, rng_bits - nmant))
  bits = bitwise_or(bits, np.array(1.0, dtype).view(uint)[()])
  return sub(bitcast_convert_type(bits, dtype), const(dtype, 1.0))


@with_out_sharding
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
    re = convert_element_type(_normal_real(key_re, shape, real), dtype)
    im = convert_element_type(_normal_real(key_im, shape, real), dtype)
    return div(add(re, mul(const(dtype, 1j), im)), const(dtype, np.sqrt(2)))
  return _normal_real(key, shape, dtype)


@partial(jit, static_argnums=(1, 2))
def _normal_real(key, shape, dtype):
  lo = np.nextafter(np.array(-1., dtype), np.array(0., dtype), dtype=dtype)
  u = _uniform(key, lo, np.array(1., dtype), shape, dtype)
  return mul(const(dtype, np.sqrt(2)), erf_inv(u))


@partial(with_out_sharding, unsplit_without_shape=False)
def truncated_normal(key, lower, upper, shape=None, dtype=None):
  """Standard normal samples conditioned on ``lower < x < upper``."""
  key = single_key("truncated_normal", key)
  dtype = float_dtype("truncated_normal", dtype)
  shape = broadcast_shapes_or_shape("truncated_normal", shape, lower, upper)
  return _truncated_normal(key, lower, upper, shape, dtype)


@partial(jit, static_argnums=(3, 4))
def _truncated_normal(key, lower, upper, shape, dtype):
  sqrt2 = const(dtype, np.sqrt(2))
  lower = convert_element_type(lower, dtype)
  upper = convert_element_type(upper, dtype)
  a = erf(div(lower, sqrt2))
  b = erf(div(upper, sqrt2))
  out = mul(sqrt2, erf_inv(_uniform(key, a, b, shape, dtype)))
  above = nextafter(stop_gradient(lower), full_like(lower, np.inf))
  below = nextafter(stop_gradient(upper), full_like(upper, -np.inf))
  return jnp.clip(out, above, below)


def _simple(name: str, body):
  """A sampler of ``(key, shape=(), dtype=None)`` whose body transforms uniforms."""
  jitted = jit(body, static_argnums=(1, 2))

  def sampler(key, shape=(), dtype=None):
    key = single_key(name, key)
    return jitted(key, shape_arg(name, shape), float_dtype(name, dtype))
  sampler.__name__ = sampler.__qualname__ = name
  sampler.__doc__ = body.__doc__
  return sampler


def _exponential(key, shape, dtype):
  """Exponential samples with rate 1."""
  u = _uniform(key, 0., 1., shape, dtype)
  return neg(log1p(neg(u)))


def _laplace(key, shape, dtype):
  """Laplace samples with location 0 and scale 1."""
  u = _uniform(key, -1. + dtypes.finfo(dtype).epsneg, 1., shape, dtype)
  return mul(lax_sign(u), log1p(neg(lax_abs(u))))


def _logistic(key, shape, dtype):
  """Logistic samples with location 0 and scale 1."""
  x = _uniform(key, dtypes.finfo(dtype).tiny, 1., shape, dtype)
  return sub(log(x), log1p(neg(x)))


def _cauchy(key, shape, dtype):
  """Standard Cauchy samples."""
  u = _uniform(key, dtypes.finfo(dtype).eps, 1., shape, dtype)
  return tan(mul(const(dtype, np.pi), sub(u, const(dtype, 0.5))))


def _maxwell(key, shape, dtype):
  """Maxwell samples with scale 1: the length of a standard normal 3-vector."""
  z = _normal(key, (*shape, 3), dtype)
  # as jnp.linalg.norm: half-precision squares are summed in float32
  squares = convert_element_type(mul(z, z), np.promote_types(dtype, np.float32))
  return sqrt(convert_element_type(reduce_sum(squares, (len(shape),)), dtype))


exponential = with_out_sharding(_simple("exponential", _exponential))
laplace = with_out_sharding(_simple("laplace", _laplace))
logistic = with_out_sharding(_simple("logistic", _logistic))
cauchy = with_out_sharding(_simple("cauchy", _cauchy))
maxwell = with_out_sharding(_simple("maxwell", _maxwell))


@with_out_sharding
def gumbel(key, shape=(), dtype=None, mode=None):
  """Standard Gumbel samples. ``mode="high"`` spends two uniforms per sample to reach
  further into the upper tail; ``"highest"`` (float32) uses 64 random bits."""
  key = single_key("gumbel", key)
  dtype = float_dtype("gumbel", dtype)
  shape = shape_arg("gumbel", shape)
  if mode is None:
    mode = "high" if config._read("jax_high_dynamic_range_gumbel") else "low"
  if mode not in ("highest", "high", "low"):
    raise ValueError(f"Must provide valid mode for gumbel got: {mode}")
  return _gumbel(key, shape, dtype, mode)


@partial(jit, static_argnums=(1, 2, 3))
def _gumbel(key, shape, dtype, mode):
  info = dtypes.finfo(dtype)
  if mode == "highest" and dtype == np.float32:
    return _gumbel_from_64_bits(key, shape)
  if mode in ("high", "highest"):
    high, low = _uniform(key, minval=0., maxval=1., shape=(2, *shape), dtype=dtype)
    x = jnp.where(high >= 0.5, high, high + 2 ** -info.nmant * low + info.tiny)
    return -jnp.log(-jnp.log1p(-x))
  return -jnp.log(-jnp.log(_uniform(key, minval=info.tiny, maxval=1., shape=shape,
                                     dtype=dtype)))


def _gumbel_from_64_bits(key, shape):
  """float32 Gumbel samples from 64-bit uniforms: the side of 1/2 a uniform falls on picks
  which tail formula keeps full precision."""
  bits = keys.random_bits(key, 32, (2, *shape))
  flipped = bitwise_not(bits)
  low_word = flipped[1]
  carry = (low_word == np.uint32(0xFFFFFFFF)).astype(np.uint32)
  flipped = flipped + jnp.stack([carry, jnp.ones_like(low_word)])
  keep = bits[0] < np.uint32(1 << 31)
  x = _u64_to_unit_float32(jnp.where(keep, bits, flipped))
  return jnp.where(keep, -jnp.log(-jnp.log1p(-x)), -jnp.log(-jnp.log(x)))


def _u64_to_unit_float32(bits):
  """float32 in (0, 1) from two uint32 words (high, low) read as a 64-bit fraction, keeping
  every leading zero as exponent (so tiny values keep 24 bits of mantissa)."""
  info = dtypes.finfo(np.float32)
  hi, lo = bits[0], bits[1]
  hiclz, loclz = clz(hi), clz(lo)
  mantissa = bitwise_or(
      shift_left(hi, hiclz),
      jnp.where(hiclz == 32, shift_left(lo, loclz),
                shift_right_logical(lo, np.uint32(32) - hiclz)))
  mantissa = shift_right_logical(mantissa, np.uint32(32 - info.nmant - 1))
  mantissa = bitwise_and(mantissa, np.uint32((1 << info.nmant) - 1))
  exponent = shift_left(np.uint32(-info.minexp) - jnp.where(hiclz == 32, 32 + loclz, hiclz),
                            np.uint32(info.nmant))
  exponent = bitwise_and(exponent, np.uint32((1 << 30) - (1 << (info.nmant - 1))))
  return bitcast_convert_type(bitwise_or(exponent, mantissa), np.float32)


def _check_castable(name: str, dtype, *args) -> None:
  """Parameters must convert to the sample dtype without losing their kind (as JAX)."""
  for arg in args:
    if dtypes.is_weakly_typed(arg) or not hasattr(arg, "dtype"):
      continue
    if dtypes.result_type(arg, dtype) != dtype:
      raise dtypes.TypePromotionError(
          f"In arguments to {name}, cannot safely cast argument of type {arg.dtype} to {dtype}")


def _sampler_with_params(name: str, shape, dtype, *params):
  """(shape, dtype) of a sampler with array parameters, checked as JAX checks them."""
  dtype = float_dtype(name, dtype)
  shape = broadcast_shapes_or_shape(name, shape, *params)
  _check_castable(name, dtype, *params)
  return shape, dtype


@partial(with_out_sharding, shape_from=("b",))
def pareto(key, b, shape=None, dtype=None):
  """Pareto samples with shape parameter ``b`` (scale 1)."""
  key = single_key("pareto", key)
  shape, dtype = _sampler_with_params("pareto", shape, dtype, b)
  return _pareto(key, b, shape, dtype)


@partial(jit, static_argnums=(2, 3))
def _pareto(key, b, shape, dtype):
  b = convert_element_type(b, dtype)
  return exp(div(_exponential(key, shape, dtype), b))


@partial(with_out_sharding, shape_from=("scale",))
def rayleigh(key, scale, shape=None, dtype=None):
  """Rayleigh samples with the given scale."""
  key = single_key("rayleigh", key)
  shape, dtype = _sampler_with_params("rayleigh", shape, dtype, scale)
  return _rayleigh(key, scale, shape, dtype)


@partial(jit, static_argnums=(2, 3))
def _rayleigh(key, scale, shape, dtype):
  u = _uniform(key, 0., 1., shape, dtype)
  scale = jnp.broadcast_to(jnp.asarray(scale).astype(dtype), shape)
  return mul(scale, sqrt(mul(log(u), const(dtype, -2))))


@partial(with_out_sharding, unsplit_without_shape=False)
def wald(key, mean, shape=None, dtype=None):
  """Wald (inverse Gaussian) samples with the given mean and scale 1."""
  key = single_key("wald", key)
  shape, dtype = _sampler_with_params("wald", shape, dtype, mean)
  return _wald(key, mean, shape, dtype)


@partial(jit, static_argnums=(2, 3))
def _wald(key, mean, shape, dtype):
  k1, k2 = keys.split(key)
  mean = jnp.broadcast_to(jnp.asarray(mean).astype(dtype), shape)
  v = _normal(k1, shape, dtype)
  z = _uniform(k2, 0., 1., shape, dtype)
  y = integer_pow(v, 2)
  y_sq = integer_pow(y, 2)
  mean_sq = integer_pow(mean, 2)
  sqrt_term = sqrt(4 * mean * y + mean_sq * y_sq)
  x = mean + mean_sq * y / 2 - mean / 2 * sqrt_term
  return select(le(z, mean / (mean + x)), x, mean_sq / x)


@partial(with_out_sharding, unsplit_without_shape=False)
def lognormal(key, sigma=np.float32(1), shape=None, dtype=None):
  """Log-normal samples: ``exp(sigma * normal)``."""
  key = single_key("lognormal", key)
  dt = dtypes.check_user_dtype_supported(float if dtype is None else dtype)
  if not dtypes.is_inexact(dt):
    raise ValueError(f"dtype argument to `lognormal` must be a float or complex dtype, "
                     f"got {dt}")
  shape = broadcast_shapes_or_shape("lognormal", shape, sigma)
  _check_castable("lognormal", dt, sigma)
  return _lognormal(key, sigma, shape, dt)


@partial(jit, static_argnums=(2, 3))
def _lognormal(key, sigma, shape, dtype):
  sigma = convert_element_type(sigma, dtype)
  return exp(_normal(key, shape, dtype) * sigma)


@partial(with_out_sharding, shape_from=("left", "mode", "right",))
def triangular(key, left, mode, right, shape=None, dtype=None):
  """Triangular samples on ``[left, right]`` with the given mode."""
  key = single_key("triangular", key)
  shape, dtype = _sampler_with_params("triangular", shape, dtype, left, mode, right)
  return _triangular(key, left, mode, right, shape, dtype)


@partial(jit, static_argnums=(4, 5))
def _triangular(key, left, mode, right, shape, dtype):
  left, right, mode = (jnp.broadcast_to(convert_element_type(v, dtype), shape)
                       for v in (left, right, mode))
  fc = (mode - left) / (right - left)
  u = _uniform(key, 0., 1., shape, dtype)
  out1 = left + sqrt(u * (right - left) * (mode - left))
  out2 = right - sqrt((1 - u) * (right - left) * (right - mode))
  return select(u < fc, out1, out2)


def weibull_min(key, scale, concentration, shape=(), dtype=None):
  """Weibull samples with the given scale and concentration."""
  key = single_key("weibull_min", key)
  dtype = float_dtype("weibull_min", dtype)
  return _weibull_min(key, scale, concentration, shape_arg("weibull_min", shape), dtype)


@partial(jit, static_argnums=(3, 4))
def _weibull_min(key, scale, concentration, shape, dtype):
  u = _uniform(key, 0, 1, shape, dtype)
  return jnp.power(-jnp.log1p(-u), 1.0 / concentration) * scale


def double_sided_maxwell(key, loc, scale, shape=(), dtype=None):
  """Double-sided Maxwell samples: a Maxwell magnitude with a random sign."""
  key = single_key("double_sided_maxwell", key)
  dtype = float_dtype("double_sided_maxwell", dtype)
  return _double_sided_maxwell(key, loc, scale, shape_arg("double_sided_maxwell", shape),
                               dtype)


@partial(jit, static_argnums=(3, 4))
def _double_sided_maxwell(key, loc, scale, shape, dtype):
  params_shape = np.broadcast_shapes(np.shape(loc), np.shape(scale))
  shape = (*(shape or params_shape), *params_shape)
  maxwell_key, sign_key = keys.split(key)
  magnitude = _maxwell(maxwell_key, shape, dtype)
  # a Rademacher sign, drawn as random.rademacher draws it (a default-float uniform < 1/2)
  coin = _uniform(sign_key, 0., 1., shape, dtypes.default_float_dtype()) < 0.5
  sign = (2 * coin - 1).astype(dtype)
  return sign * magnitude * scale + loc
