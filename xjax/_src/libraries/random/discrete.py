"""Discrete samplers: integers, booleans, categories, permutations and counts.

As in continuous.py, each sampler checks its arguments in the user's terms, then calls a
jitted body whose arithmetic and key splitting follow JAX's, so that the same key gives the
same integers (and the same counts from poisson/binomial/multinomial/geometric).
"""
from __future__ import annotations

import math
from functools import partial
from typing import Sequence

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.api.jit import jit
from xjax._src.primitives.lax.control_flow.loops import scan, while_loop
from xjax._src.primitives.lax.cumulative import cumsum
from xjax._src.primitives.lax.elementwise import (_const, add, clamp, convert_element_type, div,
                                                  floor, gt, lgamma, log, log1p, mul, rem, select,
                                                  sqrt)
from xjax._src.primitives.lax.shapes import broadcast_to_rank, expand_dims, full_like, reshape
from xjax._src.primitives.lax.sorting import sort_key_val, top_k
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.numpy.arguments import canonical_axis, arraylike
from xjax._src.libraries.numpy.promotion import promote_dtypes_inexact
from xjax._src.libraries.random import keys
from xjax._src.libraries.random.continuous import _uniform, gumbel, uniform
from xjax._src.libraries.random.sampler_args import (broadcast_shapes_or_shape, check_shape, const,
                                                     int_dtype, shape_arg, single_key)
from xjax._src.libraries.random.out_sharding import with_out_sharding


# ---------------------------------------------------------------------------------------
# randint

@with_out_sharding
def randint(key, shape, minval, maxval, dtype=None):
  """Uniform integers in ``[minval, maxval)``; bounds beyond ``dtype`` are clipped to it,
  and where ``maxval <= minval`` the result is ``minval``."""
  key = single_key("randint", key)
  dtype = dtypes.check_user_dtype_supported(int if dtype is None else dtype)
  shape = shape_arg("randint", shape)
  if not dtypes.is_integer(dtype):
    raise TypeError(f"randint only accepts integer dtypes, got {dtype}")
  minval, maxval = arraylike("randint", minval, maxval)
  info = dtypes.iinfo(dtype)
  sampled = dtype
  if info.bits < 32:  # narrow integers are drawn as int32 (less modulo bias), then cast
    sampled = np.dtype(np.int32)
    minval = jnp.asarray(minval).astype(sampled).clip(int(info.min), int(info.max))
    maxval = jnp.asarray(maxval).astype(sampled).clip(int(info.min), int(info.max) + 1)
  return _randint(key, minval, maxval, shape, sampled).astype(dtype)


def _clip_to(val, dtype):
  """Integer ``val`` converted to the integer ``dtype``, saturating instead of wrapping (the
  bounds are weak where ``val`` is a weak scalar, as JAX's)."""
  have, want = dtypes.iinfo(val.dtype), dtypes.iinfo(dtype)
  lo = _const(val, max(want.min, have.min))
  hi = _const(val, min(want.max, have.max))
  return jnp.clip(val, lo, hi).astype(dtype)


@partial(jit, static_argnums=(3, 4))
def _randint(key, minval, maxval, shape, dtype):
  check_shape("randint", shape, np.shape(minval), np.shape(maxval))
  minval, maxval = (v if dtypes.is_integer(v.dtype) else v.astype(int)
                    for v in (jnp.asarray(minval), jnp.asarray(maxval)))
  # maxval one past the dtype's largest value (randint(k, s, 0, 256, uint8)) widens the span
  dtype_max = _clip_to(jnp.array(dtypes.iinfo(dtype).max, dtype), maxval.dtype)
  maxval_beyond = gt(maxval, dtype_max)
  minval = _clip_to(minval, dtype)
  maxval = _clip_to(maxval, dtype)
  minval, maxval = (broadcast_to_rank(v, len(shape)) for v in (minval, maxval))
  nbits = dtypes.iinfo(dtype).bits
  uint = np.dtype(f"uint{nbits}")
  # 2 * nbits random bits per value, reduced modulo the span (wrapping to 0 = the full range)
  k1, k2 = keys.split(key)
  high, low = keys.random_bits(k1, nbits, shape), keys.random_bits(k2, nbits, shape)
  span = convert_element_type(maxval - minval, uint)
  span = select(maxval <= minval, full_like(span, 1), span)
  span = select(maxval_beyond & (maxval > minval), add(span, const(uint, 1)), span)
  # (high * 2**nbits + low) % span, without overflow: 2**nbits % span = (2**(nbits/2))**2 % span
  multiplier = rem(const(uint, 2 ** (nbits // 2)), span)
  multiplier = rem(mul(multiplier, multiplier), span)
  offset = add(mul(rem(high, span), multiplier), rem(low, span))
  offset = rem(offset, span)
  return add(minval, convert_element_type(offset, dtype))


# ---------------------------------------------------------------------------------------
# bernoulli, rademacher

@partial(with_out_sharding, unsplit_without_shape=False)
def bernoulli(key, p=0.5, shape=None, mode="low"):
  """Booleans that are True with probability ``p``. ``mode="high"`` spends two uniforms
  per sample so that tiny ``p`` (below the float's resolution) is still honoured."""
  if shape is not None:
    shape = shape_arg("bernoulli", shape)
  if mode not in ("high", "low"):
    raise ValueError(f"got {mode=}, expected 'high' or 'low'")
  key = single_key("bernoulli", key)
  p, = arraylike("bernoulli", p)
  dtype = dtypes.dtype(p, canonicalize=True)
  if not dtypes.is_float(dtype):
    raise TypeError(f"bernoulli probability `p` must have a floating dtype, got {dtype}.")
  if shape is None:
    shape = np.shape(p)
  else:
    check_shape("bernoulli", shape, np.shape(p))
  return _bernoulli(key, convert_element_type(p, dtype), shape, mode)


@partial(jit, static_argnums=(2, 3))
def _bernoulli(key, p, shape, mode):
  dtype = p.dtype
  if mode == "high":
    u = _uniform(key, 0., 1., (2, *shape), dtype)
    fine = u[1] * 2 ** -dtypes.finfo(dtype).nmant  # the bits below u[0]'s resolution
    return fine < p - u[0]
  return _uniform(key, 0., 1., shape, dtype) < p


@with_out_sharding
def rademacher(key, shape=(), dtype=None):
  """Random signs: -1 or 1 with equal probability."""
  key = single_key("rademacher", key)
  dtype = dtypes.check_user_dtype_supported(int if dtype is None else dtype)
  return _rademacher(key, shape_arg("rademacher", shape), dtype)


@partial(jit, static_argnums=(1, 2))
def _rademacher(key, shape, dtype):
  coin = bernoulli(key, 0.5, shape).astype(dtype)
  return (2 * coin - 1).astype(dtype)


# ---------------------------------------------------------------------------------------
# categorical, choice, permutation

@partial(with_out_sharding, unsplit_without_shape=False)
def categorical(key, logits, axis=-1, shape=None, replace=True, mode=None):
  """Category indices drawn with probabilities ``softmax(logits, axis)``: the Gumbel-max
  trick with replacement, Gumbel top-k without."""
  key = single_key("categorical", key)
  logits, = arraylike("categorical", logits)
  logits = jnp.asarray(logits)
  batch_shape = tuple(int(d) for d in np.delete(logits.shape, axis))
  if shape is None:
    shape = batch_shape
  else:
    shape = shape_arg("categorical", shape)
    check_shape("categorical", shape, batch_shape)
  if not replace:
    draws, classes = math.prod(shape[:len(shape) - len(batch_shape)]), logits.shape[axis]
    if draws > classes:
      raise ValueError(f"Number of samples without replacement ({draws}) cannot exceed "
                       f"number of categories ({classes}).")
  return _categorical(key, logits, shape, batch_shape, axis, replace, mode)


def _categorical(key, logits, shape, batch_shape, axis, replace, mode):
  prefix = shape[:len(shape) - len(batch_shape)]
  if replace:
    axis = axis - logits.ndim if axis >= 0 else axis
    noise_shape = list(shape[len(prefix):])
    noise_shape.insert(axis % logits.ndim, logits.shape[axis])
    noise = gumbel(key, (*prefix, *noise_shape), logits.dtype, mode=mode)
    return jnp.argmax(noise + expand_dims(logits, tuple(range(len(prefix)))), axis=axis)
  logits = logits + gumbel(key, logits.shape, logits.dtype, mode=mode)
  _, indices = top_k(jnp.moveaxis(logits, axis, -1), math.prod(prefix))
  # indices: batch_shape + (draws,) -> the draws first, then the batch
  return reshape(indices, shape, (indices.ndim - 1, *range(indices.ndim - 1)))


def choice(key, a, shape=(), replace=True, p=None, axis=0, mode=None):
  """A sample of ``shape`` from the entries of ``a`` along ``axis`` (or from
  ``arange(a)`` for an integer ``a``), optionally weighted by ``p``."""
  key = single_key("choice", key)
  if not isinstance(shape, Sequence):
    raise TypeError(f"shape argument of xjax.random.choice must be a sequence, got {shape}")
  shape = shape_arg("choice", shape)
  a, = arraylike("choice", a)
  arr = jnp.asarray(a)
  if arr.ndim == 0:
    n_inputs = int(a)
  else:
    axis = canonical_axis(axis, arr.ndim)
    n_inputs = arr.shape[axis]
  n_draws = math.prod(shape)
  if n_draws == 0:
    return jnp.zeros(shape, dtype=arr.dtype)
  if n_inputs <= 0:
    raise ValueError("a must be greater than 0 unless no samples are taken")
  if not replace and n_draws > n_inputs:
    raise ValueError(f"Cannot take a larger sample (size {n_draws}) than population (size "
                     f"{n_inputs}) when 'replace=False'")
  if p is None and not replace:
    picked = permutation(key, n_inputs if arr.ndim == 0 else arr, axis)
    result = picked[(slice(None),) * axis + (slice(n_draws),)]
  else:
    if p is None:
      index = randint(key, shape, 0, n_inputs)
    else:
      p, = arraylike("choice", p)
      p, = promote_dtypes_inexact(p)
      if np.shape(p) != (n_inputs,):
        raise ValueError("p must be None or a 1D vector with the same size as a.shape[axis]. "
                         f"p has shape {np.shape(p)} and a.shape[axis] is {n_inputs}.")
      index = _weighted_choice(key, p, shape, replace, mode)
    result = index if arr.ndim == 0 else jnp.take(arr, index, axis)
  return result.reshape(shape if arr.ndim == 0 else
                        arr.shape[:axis] + shape + arr.shape[axis + 1:])


@partial(jit, static_argnums=(2, 3, 4))
def _weighted_choice(key, p, shape, replace, mode):
  """Indices drawn with weights ``p``: inverting the cumulative weights with replacement,
  Gumbel top-k without."""
  if replace:
    cumulative = jnp.cumsum(p)
    u = uniform(key, shape, dtype=cumulative.dtype)
    return jnp.searchsorted(cumulative, cumulative[-1] * (1 - u)).astype(int)
  scores = gumbel(key, p.shape, dtype=p.dtype, mode=mode) + jnp.log(p)
  return top_k(scores, math.prod(shape))[1].astype(int)


@partial(with_out_sharding, unsplit_without_shape=False)
def permutation(key, x, axis=0, independent=False):
  """A random permutation of ``x`` along ``axis`` (of ``arange(x)`` for an integer ``x``);
  ``independent=True`` shuffles each slice along ``axis`` separately."""
  key = single_key("permutation", key)
  x, = arraylike("permutation", x)
  axis = canonical_axis(axis, np.ndim(x) or 1)
  if not np.ndim(x):
    if not dtypes.is_integer(dtypes.dtype(x)):
      raise TypeError("x must be an integer or at least 1-dimensional")
    return _shuffle(key, jnp.arange(int(x)), axis)
  return _permutation(key, x, axis, independent)


@partial(jit, static_argnums=(2, 3))
def _permutation(key, x, axis, independent):
  if independent or x.ndim == 1:
    return _shuffle(key, x, axis)
  order = _shuffle(key, jnp.arange(x.shape[axis]), 0)
  return jnp.take(x, order, axis, unique_indices=True)


@partial(jit, static_argnums=(2,))
def _shuffle(key, x, axis):
  """``x`` sorted along ``axis`` by random 32-bit keys, in enough rounds (fresh keys each)
  that ties between sort keys are negligible."""
  rounds = int(np.ceil(3 * np.log(max(1, x.size)) / np.log(np.iinfo(np.uint32).max)))
  for _ in range(rounds):
    key, subkey = keys.split(key)
    _, x = sort_key_val(keys.random_bits(subkey, 32, x.shape), x, axis)
  return x


# ---------------------------------------------------------------------------------------
# poisson

@partial(with_out_sharding, shape_from=("lam",))
def poisson(key, lam, shape=None, dtype=None):
  """Poisson counts with rate ``lam`` (Knuth's method below 10, Hormann's transformed
  rejection above; lam < 0 or NaN gives -1)."""
  key = single_key("poisson", key)
  dtype = int_dtype("poisson", dtype)
  if key.dtype._impl.name != "threefry2x32":  # as JAX: its algorithm assumes threefry keys
    raise NotImplementedError("`poisson` is only implemented for the threefry2x32 RNG, not "
                              f"{key.dtype._impl}")
  lam, = arraylike("poisson", lam)
  shape = broadcast_shapes_or_shape("poisson", shape, lam)
  lam = convert_element_type(jnp.broadcast_to(lam, shape), np.float32)
  return _poisson(key, lam, shape, dtype)


@partial(jit, static_argnums=(2, 3))
def _poisson(key, lam, shape, dtype):
  use_knuth = (lam != lam) | (lam < 10)
  lam_knuth = select(use_knuth, lam, full_like(lam, 0.0))
  lam_rejection = select(use_knuth, full_like(lam, 1e5), lam)
  max_iters = dtype.type(dtypes.iinfo(dtype).max)
  counts = select(use_knuth, _poisson_knuth(key, lam_knuth, shape, dtype, max_iters),
                      _poisson_rejection(key, lam_rejection, shape, dtype, max_iters))
  return select(lam == 0, jnp.zeros_like(counts), counts)


def _poisson_knuth(key, lam, shape, dtype, max_iters):
  """Count uniforms until their product falls below exp(-lam) (as a sum of logs)."""
  def body(carry):
    i, k, key, log_prod = carry
    key, subkey = keys.split(key)
    k = select(log_prod > -lam, k + 1, k)
    u = _uniform(subkey, 0., 1., shape, np.dtype(np.float32))
    return i + 1, k, key, log_prod + jnp.log(u)

  def cond(carry):
    i, log_prod = carry[0], carry[3]
    return (log_prod > -lam).any() & (i < max_iters)

  init = (0, full_like(lam, 0, dtype, shape), key,
          full_like(lam, 0, np.float32, shape))
  k = while_loop(cond, body, init)[1]
  return (k - 1).astype(dtype)


def _poisson_rejection(key, lam, shape, dtype, max_iters):
  """Hormann's transformed rejection (PTRS) for lam >= 10."""
  log_lam = log(lam)
  b = 0.931 + 2.53 * sqrt(lam)
  a = -0.059 + 0.02483 * b
  inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
  v_r = 0.9277 - 3.6224 / (b - 2)

  def body(carry):
    i, k_out, accepted, key = carry
    key, subkey_u, subkey_v = keys.split(key, 3)
    u = _uniform(subkey_u, 0., 1., shape, lam.dtype) - 0.5
    v = _uniform(subkey_v, 0., 1., shape, lam.dtype)
    u_shifted = 0.5 - abs(u)
    k = floor((2 * a / u_shifted + b) * u + lam + 0.43)
    s = log(v * inv_alpha / (a / (u_shifted * u_shifted) + b))
    t = -lam + k * log_lam - lgamma(k + 1)
    accept_fast = (u_shifted >= 0.07) & (v <= v_r)
    reject = (k < 0) | ((u_shifted < 0.013) & (v > u_shifted))
    accept = accept_fast | (~reject & (s <= t))
    return i + 1, select(accept, k, k_out), accepted | accept, key

  def cond(carry):
    i, accepted = carry[0], carry[2]
    return (~accepted).any() & (i < max_iters)

  init = (0, full_like(lam, -1, lam.dtype, shape),
          full_like(lam, False, np.dtype(np.bool_), shape), key)
  return while_loop(cond, body, init)[1].astype(dtype)


# ---------------------------------------------------------------------------------------
# binomial, multinomial

def binomial(key, n, p, shape=None, dtype=None):
  """Binomial counts (as floats) of ``n`` trials with success probability ``p``: inversion
  when ``n * min(p, 1-p) <= 10``, else the BTRS transformed rejection. Invalid ``n`` or
  ``p`` give NaN, an infinite ``n`` gives inf."""
  key = single_key("binomial", key)
  n, p = arraylike("binomial", n, p)
  dtype = dtypes.check_user_dtype_supported(float if dtype is None else dtype)
  if not dtypes.is_float(dtype):
    raise ValueError(f"dtype argument to `binomial` must be a float dtype, got {dtype}")
  shape = broadcast_shapes_or_shape("binomial", shape, n, p)
  # the arithmetic is in p's (inexact) dtype; arrays of `shape` share one compiled body
  prob, = promote_dtypes_inexact(jnp.asarray(p))
  count, prob = (jnp.broadcast_to(convert_element_type(v, prob.dtype), shape)
                 for v in (n, prob))
  return _binomial(key, count, prob, shape, dtype)


@partial(jit, static_argnums=(3, 4))
def _binomial(key, count, prob, shape, dtype):
  p_lt_half = prob < 0.5
  q = select(p_lt_half, prob, 1.0 - prob)  # sample the rarer outcome, flip at the end
  count_nan_or_neg = (count != count) | (count < 0.0)
  count_inf = jnp.isinf(count)
  q_is_nan = q != q
  q_below_0 = q < 0.0
  q = select(q_is_nan | q_below_0, full_like(q, 0.01), q)
  use_inversion = count_nan_or_neg | (count * q <= 10.0)
  count = jnp.floor(count)  # as NumPy does for a float n
  count_inv = select(use_inversion, count, full_like(count, 0.0))
  count_btrs = select(use_inversion, full_like(count, 1e4), count)
  q_btrs = select(use_inversion, full_like(q, 0.5), q)
  max_iters = dtype.type(dtypes.finfo(dtype).max)
  samples = select(use_inversion,
                       _binomial_inversion(key, count_inv, q, shape, dtype, max_iters),
                       _btrs(key, count_btrs, q_btrs, shape, dtype, max_iters))
  invalid = q_below_0 | q_is_nan | count_nan_or_neg
  samples = select(invalid, jnp.full_like(samples, np.nan, dtype), samples)
  samples = select(count_inf & ~invalid, jnp.full_like(samples, np.inf, dtype), samples)
  return select(p_lt_half | count_nan_or_neg | q_is_nan | count_inf,
                    samples, count.astype(dtype) - samples)


def _binomial_inversion(key, count, prob, shape, dtype, max_iters):
  """The number of geometric waiting times that fit in ``count`` trials, minus one."""
  log1minusprob = jnp.log1p(-prob)

  def body(carry):
    i, num_geom, geom_sum, key = carry
    subkey, key = keys.split(key)
    num_geom_out = select(geom_sum <= count, num_geom + 1, num_geom)
    u = _uniform(subkey, 0., 1., shape, prob.dtype)
    geom = jnp.ceil(jnp.log(u) / log1minusprob)
    return i + 1, num_geom_out, geom_sum + geom, key

  def cond(carry):
    i, geom_sum = carry[0], carry[2]
    return (geom_sum <= count).any() & (i < max_iters)

  zeros = full_like(prob, 0, prob.dtype, shape)
  k = while_loop(cond, body, (0, zeros, zeros, key))[1]
  return (k - 1).astype(dtype)


# log(k!) minus its Stirling approximation, for k = 0..9 (the values TensorFlow tabulates)
_STIRLING_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                  0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                  0.0118967099458917, 0.0104112652619720, 0.00925546218271273,
                  0.00833056343336287)


def _stirling_approx_tail(k):
  """The Stirling series correction for log(k!): tabulated for k <= 9, else its first
  terms (evaluated, as JAX does, at k clamped to 9)."""
  table = jnp.array(_STIRLING_TAIL, dtype=k.dtype)
  use_table = k <= 9
  k = clamp(const(k.dtype, 0.0), k, const(k.dtype, 9.0))
  kp1sq = (k + 1) * (k + 1)
  approx = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)
  return select(use_table, table[jnp.asarray(jnp.floor(k), dtype=np.int32)], approx)


def _btrs(key, count, prob, shape, dtype, max_iters):
  """Hormann's BTRS transformed rejection for ``count * prob > 10``."""
  stddev = jnp.sqrt(count * prob * (1 - prob))
  b = 1.15 + 2.53 * stddev
  a = -0.0873 + 0.0248 * b + 0.01 * prob
  c = count * prob + 0.5
  v_r = 0.92 - 4.2 / b
  r = prob / (1 - prob)
  alpha = (2.83 + 5.1 / b) * stddev
  m = jnp.floor((count + 1) * prob)
  tail = _stirling_approx_tail

  def body(carry):
    i, k_out, accepted, key = carry
    key, subkey_u, subkey_v = keys.split(key, 3)
    u = _uniform(subkey_u, 0., 1., shape, prob.dtype) - 0.5
    v = _uniform(subkey_v, 0., 1., shape, prob.dtype)
    us = 0.5 - jnp.abs(u)
    accept_fast = (us >= 0.07) & (v <= v_r)
    k = jnp.floor((2 * a / us + b) * u + c)
    reject = (k < 0) | (k > count)
    log_v = jnp.log(v * alpha / (a / (us * us) + b))
    bound = ((m + 0.5) * jnp.log((m + 1) / (r * (count - m + 1)))
             + (count + 1) * jnp.log((count - m + 1) / (count - k + 1))
             + (k + 0.5) * jnp.log(r * (count - k + 1) / (k + 1))
             + tail(m) + tail(count - m) - tail(k) - tail(count - k))
    accept = accept_fast | (~reject & (log_v <= bound))
    return i + 1, select(accept, k, k_out), accepted | accept, key

  def cond(carry):
    i, accepted = carry[0], carry[2]
    return (~accepted).any() & (i < max_iters)

  init = (0, full_like(prob, -1, prob.dtype, shape), jnp.full(shape, False, bool), key)
  return while_loop(cond, body, init)[1].astype(dtype)


def multinomial(key, n, p, *, shape=None, dtype=None, unroll=1):
  """Counts (as floats) of ``n`` trials over the outcomes along ``p``'s last axis: a
  binomial draw per outcome from what the earlier outcomes left."""
  key = single_key("multinomial", key)
  n, p = arraylike("multinomial", n, p)
  n, p = promote_dtypes_inexact(n, p)
  dtype = dtypes.check_user_dtype_supported(float if dtype is None else dtype)
  shape = np.shape(p) if shape is None else shape_arg("multinomial", shape)
  check_shape("multinomial", shape, np.shape(p))
  if np.broadcast_shapes(shape[:-1], np.shape(n)) != shape[:-1]:
    raise ValueError(f"multinomial: n of shape {np.shape(n)} does not broadcast to the batch "
                     f"shape {shape[:-1]} (the shape of p without its last axis, "
                     f"{shape[-1]} outcomes)")
  n = jnp.broadcast_to(convert_element_type(n, p.dtype), shape[:-1])
  return _multinomial(key, n, jnp.broadcast_to(p, shape), unroll).astype(dtype)


@partial(jit, static_argnums=(3,))
def _multinomial(key, n, p, unroll):
  p = jnp.moveaxis(p, -1, 0)
  remaining = cumsum(p, 0, reverse=True)
  ratios = p / jnp.where(remaining == 0, 1, remaining)  # P(outcome j | not any before j)

  def draw(remainder, ratio_and_key):
    ratio, key = ratio_and_key
    count = binomial(key, remainder, ratio.clip(0, 1), dtype=remainder.dtype)
    return remainder - count, count

  _, counts = scan(draw, n, (ratios, keys.split(key, ratios.shape[0])), unroll=unroll)
  return jnp.moveaxis(counts, 0, -1)


# ---------------------------------------------------------------------------------------
# geometric

@partial(with_out_sharding, shape_from=("p",))
def geometric(key, p, shape=None, dtype=None):
  """The number of Bernoulli(p) trials up to and including the first success."""
  key = single_key("geometric", key)
  dtype = int_dtype("geometric", dtype)
  p, = arraylike("geometric", p)
  shape = broadcast_shapes_or_shape("geometric", shape, p)
  return _geometric(key, p, shape, dtype)


@partial(jit, static_argnums=(2, 3))
def _geometric(key, p, shape, dtype):
  p, = promote_dtypes_inexact(p)
  u = _uniform(key, 0., 1., shape, p.dtype)
  log_u = log(jnp.where(u == 0, 1, u))  # u = 0 counts as 1: no infinite log
  log_q = jnp.broadcast_to(log1p(-p), shape)
  return (floor(div(log_u, log_q)) + 1).astype(dtype)
