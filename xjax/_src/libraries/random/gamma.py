"""The gamma family: the ``random_gamma`` primitive and the samplers built on it (gamma,
loggamma, beta, dirichlet, chisquare, t, f, generalized_normal, ball).

``random_gamma`` draws one Gamma(a) sample per element of ``a`` with Marsaglia and Tsang's
rejection method: each element gets its own key and its own ``while_loop``, vmapped over
the elements for threefry keys and mapped one by one for the others, as JAX does (a vmapped
RngBitGenerator would draw from the first key only), so the same key gives the same numbers. Its derivative in ``a``
comes from implicit differentiation of the CDF (``lax.random_gamma_grad``).
"""
from __future__ import annotations

import math
import operator
from functools import partial

import numpy as np

from xjax._src.backend import clients
from xjax._src.foundations import dtypes
from xjax._src.api.transformations import vmap
from xjax._src.core.concrete import concrete_or_error
from xjax._src.interpreters import ad, batching
from xjax._src.api.jit import jit
from xjax._src.primitives.lax.control_flow.loops import map as lax_map, while_loop
from xjax._src.primitives.lax.elementwise import (add, bitwise_and, bitwise_or,
                                                  convert_element_type, div, eq, exp, ge, le, log,
                                                  max as lax_max, mul, neg, pow as lax_pow, select,
                                                  sqrt, sub)
from xjax._src.primitives.lax.shapes import full_like, reshape
from xjax._src.primitives.lax.special import random_gamma_grad
from xjax._src.primitives.lax.primitive_builders import lowering_from, standard_primitive
from xjax._src.libraries.nn.softmax import softmax
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.random import keys, prng
from xjax._src.libraries.random.continuous import (_exponential, _normal, _sampler_with_params,
                                                   _uniform)
from xjax._src.libraries.random.sampler_args import (check_shape, const, float_dtype, shape_arg,
                                                     single_key)
from xjax._src.libraries.random.out_sharding import with_out_sharding


# ---------------------------------------------------------------------------------------
# random_gamma: (keys, a) -> one Gamma(a) sample per element of a

def _gamma_one(key, alpha, log_space: bool):
  """One Gamma(alpha) sample (or its log) by Marsaglia and Tsang's method. For alpha < 1
  it samples Gamma(alpha + 1) and scales by ``U ** (1 / alpha)``."""
  dtype = alpha.dtype
  zero, one = const(dtype, 0), const(dtype, 1)
  third, squeeze = const(dtype, 1. / 3.), const(dtype, 0.0331)
  boosted = ge(alpha, one)
  alpha_orig = alpha
  alpha = select(boosted, alpha, add(alpha, one))
  d = sub(alpha, third)
  c = div(third, sqrt(d))

  def rejected(state):
    _, x2, v, u = state
    return bitwise_and(
        ge(u, sub(one, mul(squeeze, mul(x2, x2)))),
        ge(log(u), add(mul(x2, const(dtype, 0.5)),
                                   mul(d, add(sub(one, v), log(v))))))

  def next_normal(state):
    key, subkey = keys.split(state[0])
    x = _normal(subkey, (), dtype)
    return key, x, add(one, mul(x, c))

  def propose(state):
    key, x_key, u_key = keys.split(state[0], 3)
    _, x, v = while_loop(lambda s: le(s[2], zero), next_normal,
                             (x_key, zero, const(dtype, -1)))
    u = _uniform(u_key, 0., 1., (), dtype)
    return key, mul(x, x), mul(mul(v, v), v), u

  key, subkey = keys.split(key)
  # the initial state is rejected, so the loop draws at least once
  _, _, v, _ = while_loop(rejected, propose, (key, zero, one, const(dtype, 2)))
  if log_space:
    log_u = neg(_exponential(subkey, (), dtype))
    log_boost = select(bitwise_or(boosted, eq(log_u, zero)), zero,
                           mul(log_u, div(one, alpha_orig)))
    return add(add(log(d), log(v)), log_boost)
  u = sub(one, _uniform(subkey, 0., 1., (), dtype))
  boost = select(boosted, one, lax_pow(u, div(one, alpha_orig)))
  return mul(mul(d, v), boost)


def _gamma_samples(key_data, a, *, impl, log_space: bool):
  """Each key of ``key_data`` (stored uint32 keys) split into one key per element of the
  trailing dims of ``a``; one sample per element."""
  key_ndim = key_data.ndim - len(impl.key_shape)
  num_keys, per_key = math.prod(a.shape[:key_ndim]), math.prod(a.shape[key_ndim:])
  flat = reshape(key_data, (num_keys, *impl.key_shape))
  subkeys = reshape(impl.split(flat, (per_key,)), (a.size, *impl.key_shape))
  subkeys = prng.random_wrap_p.bind(subkeys, impl=impl)
  one = partial(_gamma_one, log_space=log_space)
  alphas = reshape(a, (a.size,))
  if impl is prng.threefry_prng_impl:
    samples = vmap(one)(subkeys, alphas)
  else:
    samples = lax_map(lambda args: one(*args), (subkeys, alphas))
  return reshape(samples, a.shape)


def _gamma_abstract_eval(key, a, *, log_space):
  if not prng.is_key(key):
    raise TypeError(f"random_gamma requires a PRNG key array, got dtype {key.dtype}")
  if not dtypes.is_float(a.dtype):
    raise TypeError(f"random_gamma requires a floating-point a, got dtype {a.dtype}")
  if a.shape[:key.ndim] != key.shape:
    raise TypeError(f"random_gamma: the key shape {key.shape} must be a prefix of the "
                    f"shape of a {a.shape}")
  return a


def _gamma_lowering(ctx, key, a, *, log_space):
  impl = ctx.avals_in[0].dtype._impl
  return lowering_from(partial(_gamma_samples, impl=impl, log_space=log_space))(ctx, key, a)


def _gamma_batch(axis, args, dims, *, log_space):
  key, a = (batching.bdim_to_front(x, d, axis.size) for x, d in zip(args, dims))
  return random_gamma_p.bind(key, a, log_space=log_space), 0


def _gamma_grad(sample, a, log_space: bool):
  """d sample / d a by implicit differentiation (of log(sample) when ``log_space``), one
  element at a time on CPU and vmapped elsewhere, as JAX computes it."""
  samples, alphas = reshape(sample, (sample.size,)), reshape(a, (a.size,))
  if log_space:
    # exp(log sample) may round to zero: use the smallest normal number instead
    samples = exp(samples)
    samples = select(eq(samples, const(samples.dtype, 0)),
                     full_like(samples, dtypes.finfo(samples.dtype).tiny), samples)
    grad = lambda alpha, sample: div(random_gamma_grad(alpha, sample), sample)
  else:
    grad = random_gamma_grad
  if clients.default_backend() == "cpu":
    grads = lax_map(lambda args: grad(*args), (alphas, samples))
  else:
    grads = vmap(grad)(alphas, samples)
  return reshape(grads, a.shape)


random_gamma_p = standard_primitive("random_gamma", _gamma_abstract_eval, _gamma_lowering)
random_gamma_p.batch = _gamma_batch
ad.defjvp2(random_gamma_p, None,
           lambda t, out, key, a, *, log_space: mul(t, _gamma_grad(out, a, log_space)))


# ---------------------------------------------------------------------------------------
# Samplers

@with_out_sharding
def gamma(key, a, shape=None, dtype=None):
  """Gamma(a) samples with unit scale (divide by a rate, or multiply by a scale)."""
  key = single_key("gamma", key)
  dtype = float_dtype("gamma", dtype)
  shape = None if shape is None else shape_arg("gamma", shape)
  return _gamma(key, a, shape, dtype, False)


@partial(with_out_sharding, unsplit_without_shape=False)
def loggamma(key, a, shape=None, dtype=None):
  """The logs of Gamma(a) samples, computed in log space: accurate for small ``a``, where
  the samples themselves round to zero."""
  key = single_key("loggamma", key)
  dtype = float_dtype("gamma", dtype)  # JAX's message names gamma
  shape = None if shape is None else shape_arg("loggamma", shape)
  return _gamma(key, a, shape, dtype, True)


@partial(jit, static_argnums=(2, 3, 4))
def _gamma(key, a, shape, dtype, log_space):
  if shape is None:
    shape = np.shape(a)
  else:
    check_shape("gamma", shape, np.shape(a))
  a = convert_element_type(a, dtype)
  if np.shape(a) != shape:
    a = jnp.broadcast_to(a, shape)
  return random_gamma_p.bind(key, a, log_space=log_space)


@partial(with_out_sharding, shape_from=("a", "b",))
def beta(key, a, b, shape=None, dtype=None):
  """Beta(a, b) samples, as the ratio of two gamma samples drawn in log space."""
  key = single_key("beta", key)
  shape, dtype = _sampler_with_params("beta", shape, dtype, a, b)
  return _beta(key, a, b, shape, dtype)


@partial(jit, static_argnums=(3, 4))
def _beta(key, a, b, shape, dtype):
  key_a, key_b = keys.split(key)
  a, b = (jnp.broadcast_to(convert_element_type(v, dtype), shape) for v in (a, b))
  log_a = _gamma(key_a, a, shape, dtype, True)
  log_b = _gamma(key_b, b, shape, dtype, True)
  # gamma_a / (gamma_a + gamma_b), scaled by the larger so that neither underflows
  log_max = lax_max(log_a, log_b)
  scaled_a, scaled_b = exp(sub(log_a, log_max)), exp(sub(log_b, log_max))
  return div(scaled_a, add(scaled_a, scaled_b))


@with_out_sharding
def dirichlet(key, alpha, shape=None, dtype=None):
  """Dirichlet(alpha) samples over the last axis of ``alpha``; ``shape`` is the batch
  shape (the result's shape without that last axis)."""
  key = single_key("dirichlet", key)
  dtype = float_dtype("dirichlet", dtype)
  shape = None if shape is None else shape_arg("dirichlet", shape)
  return _dirichlet(key, alpha, shape, dtype)


@partial(jit, static_argnums=(2, 3))
def _dirichlet(key, alpha, shape, dtype):
  if np.ndim(alpha) < 1:
    raise ValueError(f"dirichlet requires alpha.ndim >= 1, got alpha.ndim == "
                     f"{np.ndim(alpha)}")
  if shape is None:
    shape = np.shape(alpha)[:-1]
  else:
    check_shape("dirichlet", shape, np.shape(alpha)[:-1])
  alpha = convert_element_type(alpha, dtype)
  log_samples = _gamma(key, alpha, (*shape, np.shape(alpha)[-1]), dtype, True)
  return softmax(log_samples, -1)


@partial(with_out_sharding, shape_from=("df",))
def chisquare(key, df, shape=None, dtype=None):
  """Chi-square samples with ``df`` degrees of freedom: twice a Gamma(df / 2) sample."""
  key = single_key("chisquare", key)
  shape, dtype = _sampler_with_params("chisquare", shape, dtype, df)
  return _chisquare(key, df, shape, dtype)


@partial(jit, static_argnums=(2, 3))
def _chisquare(key, df, shape, dtype):
  df = convert_element_type(df, dtype)
  two = const(dtype, 2)
  log_g = _gamma(key, div(df, two), shape, dtype, True)
  return mul(exp(log_g), two)


@partial(with_out_sharding, shape_from=("df",))
def t(key, df, shape=None, dtype=None):
  """Student's t samples with ``df`` degrees of freedom."""
  key = single_key("t", key)
  shape, dtype = _sampler_with_params("t", shape, dtype, df)
  return _t(key, df, shape, dtype)


@partial(jit, static_argnums=(2, 3))
def _t(key, df, shape, dtype):
  df = convert_element_type(df, dtype)
  key_n, key_g = keys.split(key)
  n = _normal(key_n, shape, dtype)
  half_df = div(df, const(dtype, 2))
  g = _gamma(key_g, half_df, shape, dtype, False)
  return n * jnp.sqrt(half_df / g)


@partial(with_out_sharding, shape_from=("dfnum", "dfden",))
def f(key, dfnum, dfden, shape=None, dtype=None):
  """F-distribution samples: a ratio of chi-square samples, each over its ``df``."""
  key = single_key("f", key)
  shape, dtype = _sampler_with_params("f", shape, dtype, dfnum, dfden)
  return _f(key, dfnum, dfden, shape, dtype)


@partial(jit, static_argnums=(3, 4))
def _f(key, dfnum, dfden, shape, dtype):
  dfnum = convert_element_type(dfnum, dtype)
  dfden = convert_element_type(dfden, dtype)
  key_den, key_num = keys.split(key)
  num = div(_chisquare(key_num, dfnum, shape, dtype), dfnum)
  den = div(_chisquare(key_den, dfden, shape, dtype), dfden)
  return div(num, den)


@with_out_sharding
def generalized_normal(key, p, shape=(), dtype=None):
  """Samples with density proportional to ``exp(-|x| ** p)``."""
  shape = shape_arg("generalized_normal", shape)
  key = single_key("generalized_normal", key)
  dtype = dtypes.check_user_dtype_supported(float if dtype is None else dtype)
  return _generalized_normal(key, p, shape, dtype)


@partial(jit, static_argnums=(2, 3))
def _generalized_normal(key, p, shape, dtype):
  key_g, key_sign = keys.split(key)
  g = gamma(key_g, 1 / p, shape, dtype)
  # a Rademacher sign, drawn as random.rademacher draws it (a default-float uniform < 1/2)
  coin = _uniform(key_sign, 0., 1., shape, dtypes.default_float_dtype()) < 0.5
  sign = (2 * coin.astype(dtype) - 1).astype(dtype)
  return sign * g ** (1 / p)


@partial(with_out_sharding, unsplit_without_shape=False)
def ball(key, d, p=2, shape=(), dtype=None):
  """Samples uniform in the unit L``p`` ball of dimension ``d``: shape ``(*shape, d)``."""
  shape = shape_arg("ball", shape)
  key = single_key("ball", key)
  dtype = dtypes.check_user_dtype_supported(float if dtype is None else dtype)
  d = operator.index(concrete_or_error(d, "`d` (of xjax.random.ball)"))
  return _ball(key, p, d, shape, dtype)


@partial(jit, static_argnums=(2, 3, 4))
def _ball(key, p, d, shape, dtype):
  key_g, key_e = keys.split(key)
  g = generalized_normal(key_g, p, (*shape, d), dtype)
  e = _exponential(key_e, shape, dtype)
  return g / (((jnp.abs(g) ** p).sum(-1) + e) ** (1 / p))[..., None]
