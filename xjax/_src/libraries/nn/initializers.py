"""Weight initializers (``jax.nn.initializers``): functions ``init(key, shape, dtype)``
giving the reference's values for the same key, shape and dtype."""
from __future__ import annotations

import math
import types
from typing import Any, Literal, Protocol, Sequence, runtime_checkable

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.random import continuous, multivariate
from xjax._src.libraries.random.keys import split
from xjax._src.libraries.random.sampler_args import shape_arg
from xjax._src.execution.basearray import Array

# The names of JAX's annotations, which signatures show (fiddle prints them): as loose as
# JAX's own.
ArrayLike = RealNumeric = DTypeLikeInexact = OutShardingType = Any
core = types.SimpleNamespace(Shape=Sequence[int])


@runtime_checkable
class Initializer(Protocol):
  """What every initializer is: ``init(key, shape, dtype=None, out_sharding=None)``."""

  def __call__(self, key, shape, dtype=None, out_sharding=None):
    raise NotImplementedError


def _no_sharding(name: str, out_sharding) -> None:
  """JAX's orthogonal initializers take no ``out_sharding`` (a bare NotImplementedError there)."""
  if out_sharding is not None:
    raise NotImplementedError(f"nn.initializers.{name}: out_sharding is not supported (as in "
                              "JAX); reshard the result (jax.sharding.reshard) instead.")


def _dtype(dtype):
  return dtypes.default_float_dtype() if dtype is None else dtype


def zeros(key: Array, shape: core.Shape, dtype: DTypeLikeInexact | None = None,
          out_sharding: OutShardingType = None) -> Array:
  """Zeros (the key is ignored)."""
  return jnp.zeros(shape, _dtype(dtype), out_sharding=out_sharding)


def ones(key: Array, shape: core.Shape, dtype: DTypeLikeInexact | None = None,
         out_sharding: OutShardingType = None) -> Array:
  """Ones (the key is ignored)."""
  return jnp.ones(shape, _dtype(dtype), out_sharding=out_sharding)


def constant(value: ArrayLike, dtype: DTypeLikeInexact | None = None) -> Initializer:
  """An initializer filling arrays with ``value``."""
  def init(key: Array, shape: core.Shape, dtype: DTypeLikeInexact | None = dtype,
           out_sharding: OutShardingType = None) -> Array:
    return jnp.full(shape, value, dtype=_dtype(dtype), out_sharding=out_sharding)
  return init


def uniform(scale: RealNumeric = 1e-2, dtype: DTypeLikeInexact | None = None) -> Initializer:
  """An initializer drawing uniformly from ``[0, scale)``."""
  def init(key: Array, shape: core.Shape, dtype: DTypeLikeInexact | None = dtype,
           out_sharding: OutShardingType = None) -> Array:
    dtype = _dtype(dtype)
    return (continuous.uniform(key, shape, dtype, out_sharding=out_sharding)
            * jnp.array(scale, dtype))
  return init


def normal(stddev: RealNumeric = 1e-2, dtype: DTypeLikeInexact | None = None) -> Initializer:
  """An initializer drawing from N(0, stddev**2)."""
  def init(key: Array, shape: core.Shape, dtype: DTypeLikeInexact | None = dtype,
           out_sharding: OutShardingType = None) -> Array:
    dtype = _dtype(dtype)
    return (continuous.normal(key, shape, dtype, out_sharding=out_sharding)
            * jnp.array(stddev, dtype))
  return init


def truncated_normal(stddev: RealNumeric = 1e-2, dtype: DTypeLikeInexact | None = None,
                     lower: RealNumeric = -2.0, upper: RealNumeric = 2.0) -> Initializer:
  """An initializer drawing ``stddev`` times a standard normal truncated to
  ``(lower, upper)`` (no variance correction)."""
  def init(key: Array, shape: core.Shape, dtype: DTypeLikeInexact | None = dtype,
           out_sharding: OutShardingType = None) -> Array:
    dtype = _dtype(dtype)
    return (continuous.truncated_normal(key, lower, upper, shape, dtype,
                                        out_sharding=out_sharding) * jnp.array(stddev, dtype))
  return init


def _axis_size(shape: tuple, axes) -> int:
  return shape[axes] if isinstance(axes, int) else math.prod(shape[i] for i in axes)


def _compute_fans(shape: Sequence[int], in_axis=-2, out_axis=-1, batch_axis=()):
  """(fan_in, fan_out) of a dense or convolution kernel: the input/output sizes times the
  receptive field (the axes that are neither input, output nor batch)."""
  if isinstance(in_axis, int) and in_axis == -2 and len(shape) <= 1:
    raise ValueError(f"Can't compute input and output sizes of a {len(shape)}-dimensional "
                     "weights tensor with default in_axis. Must be at least 2D or specify "
                     "in_axis explicitly.")
  in_size, out_size = _axis_size(shape, in_axis), _axis_size(shape, out_axis)
  receptive_field = math.prod(shape) / in_size / out_size / _axis_size(shape, batch_axis)
  return in_size * receptive_field, out_size * receptive_field


def _complex_uniform(key, shape, dtype):
  """Uniform on the complex disk with unit variance."""
  key_r, key_theta = split(key)
  real = np.array(0, dtype).real.dtype
  dtype = dtypes.to_complex_dtype(real)
  r = jnp.sqrt(2 * continuous.uniform(key_r, shape, real)).astype(dtype)
  theta = 2 * np.pi * continuous.uniform(key_theta, shape, real).astype(dtype)
  return r * jnp.exp(1j * theta)


def _complex_truncated_normal(key, upper, shape, dtype):
  """A complex normal whose modulus is truncated to ``upper`` (unit variance before)."""
  key_r, key_theta = split(key)
  real = np.array(0, dtype).real.dtype
  dtype = dtypes.to_complex_dtype(real)
  t = ((1 - jnp.exp(jnp.array(-(upper ** 2), dtype)))
       * continuous.uniform(key_r, shape, real).astype(dtype))
  r = jnp.sqrt(-jnp.log(1 - t))
  theta = 2 * np.pi * continuous.uniform(key_theta, shape, real).astype(dtype)
  return r * jnp.exp(1j * theta)


_DENOMINATORS = {
    "fan_in": lambda fan_in, fan_out: fan_in,
    "fan_out": lambda fan_in, fan_out: fan_out,
    "fan_avg": lambda fan_in, fan_out: (fan_in + fan_out) / 2,
    "fan_geo_avg": lambda fan_in, fan_out: (fan_in * fan_out) ** 0.5,
}
# Standard deviation of a unit normal truncated to (-2, 2), real and complex.
_TRUNCATED_STDDEV = {False: 0.8796256610342398, True: 0.9531116438049121}


def variance_scaling(scale: RealNumeric,
                     mode: Literal["fan_in"] | Literal["fan_out"] | Literal["fan_avg"]
                     | Literal["fan_geo_avg"],
                     distribution: Literal["truncated_normal"] | Literal["normal"]
                     | Literal["uniform"],
                     in_axis: int | Sequence[int] = -2, out_axis: int | Sequence[int] = -1,
                     batch_axis: int | Sequence[int] = (),
                     dtype: DTypeLikeInexact | None = None) -> Initializer:
  """An initializer with variance ``scale / n``, ``n`` the fan given by ``mode``, drawn from
  a truncated normal, a normal or a uniform ``distribution`` (disks for complex dtypes)."""
  def init(key: Array, shape: core.Shape, dtype: DTypeLikeInexact | None = dtype,
           out_sharding: OutShardingType = None) -> Array:
    shape = shape_arg("variance_scaling", shape)
    dtype = _dtype(dtype)
    fan_in, fan_out = _compute_fans(shape, in_axis, out_axis, batch_axis)
    if mode not in _DENOMINATORS:
      raise ValueError(f"invalid mode for variance scaling initializer: {mode}")
    variance = jnp.array(scale / _DENOMINATORS[mode](fan_in, fan_out), dtype=dtype)
    is_complex = not dtypes.issubdtype(dtype, np.floating)  # (drawn unsplit, as JAX's)
    if distribution == "truncated_normal":
      stddev = jnp.sqrt(variance) / jnp.array(_TRUNCATED_STDDEV[is_complex], dtype)
      if is_complex:
        return _complex_truncated_normal(key, 2, shape, dtype) * stddev
      return continuous.truncated_normal(key, -2, 2, shape, dtype,
                                         out_sharding=out_sharding) * stddev
    if distribution == "normal":
      return continuous.normal(key, shape, dtype, out_sharding=out_sharding) * jnp.sqrt(variance)
    if distribution == "uniform":
      if is_complex:
        return _complex_uniform(key, shape, dtype) * jnp.sqrt(variance)
      return (continuous.uniform(key, shape, dtype, -1, out_sharding=out_sharding)
              * jnp.sqrt(3 * variance))
    raise ValueError(f"invalid distribution for variance scaling initializer: {distribution}")
  return init


def _variance_scaling_family(scale: float, mode: str, distribution: str, name: str, doc: str):
  def make(in_axis: int | Sequence[int] = -2, out_axis: int | Sequence[int] = -1,
           batch_axis: int | Sequence[int] = (),
           dtype: DTypeLikeInexact | None = None) -> Initializer:
    return variance_scaling(scale, mode, distribution, in_axis=in_axis, out_axis=out_axis,
                            batch_axis=batch_axis, dtype=dtype)
  make.__name__ = make.__qualname__ = name
  make.__doc__ = doc
  return make


glorot_uniform = _variance_scaling_family(1.0, "fan_avg", "uniform", "glorot_uniform",
                                          "Glorot/Xavier uniform: variance 1/fan_avg.")
glorot_normal = _variance_scaling_family(1.0, "fan_avg", "truncated_normal", "glorot_normal",
                                         "Glorot/Xavier truncated normal: variance 1/fan_avg.")
lecun_uniform = _variance_scaling_family(1.0, "fan_in", "uniform", "lecun_uniform",
                                         "LeCun uniform: variance 1/fan_in.")
lecun_normal = _variance_scaling_family(1.0, "fan_in", "truncated_normal", "lecun_normal",
                                        "LeCun truncated normal: variance 1/fan_in.")
he_uniform = _variance_scaling_family(2.0, "fan_in", "uniform", "he_uniform",
                                      "He/Kaiming uniform: variance 2/fan_in.")
he_normal = _variance_scaling_family(2.0, "fan_in", "truncated_normal", "he_normal",
                                     "He/Kaiming truncated normal: variance 2/fan_in.")
xavier_uniform, xavier_normal = glorot_uniform, glorot_normal
kaiming_uniform, kaiming_normal = he_uniform, he_normal


def orthogonal(scale: RealNumeric = 1.0, column_axis: int = -1,
               dtype: DTypeLikeInexact | None = None) -> Initializer:
  """An initializer of (scaled) random orthogonal matrices: orthonormal columns along
  ``column_axis``, or rows when there are more columns than the other axes hold."""
  def init(key: Array, shape: core.Shape, dtype: DTypeLikeInexact | None = dtype,
           out_sharding: OutShardingType = None) -> Array:
    _no_sharding("orthogonal", out_sharding)
    shape = shape_arg("orthogonal", shape)
    dtype = _dtype(dtype)
    if len(shape) < 2:
      raise ValueError("orthogonal initializer requires at least a 2D shape")
    if 0 in shape:
      return jnp.zeros(shape, dtype=dtype)
    n_cols = shape[column_axis]
    n_rows = math.prod(shape) // n_cols
    q = multivariate.orthogonal(key, n_rows, (), dtype, n_cols)
    q = jnp.reshape(q, tuple(np.delete(shape, column_axis)) + (n_cols,))
    return jnp.array(scale, dtype) * jnp.moveaxis(q, -1, column_axis)
  return init


def delta_orthogonal(scale: RealNumeric = 1.0, column_axis: int = -1,
                     dtype: DTypeLikeInexact | None = None) -> Initializer:
  """An initializer of convolution kernels (3-D to 5-D) that are zero except for an
  orthogonal matrix at the spatial centre (Xiao et al., 2018)."""
  def init(key: Array, shape: core.Shape, dtype: DTypeLikeInexact | None = dtype,
           out_sharding: OutShardingType = None) -> Array:
    _no_sharding("delta_orthogonal", out_sharding)
    shape = shape_arg("delta_orthogonal", shape)
    dtype = _dtype(dtype)
    if len(shape) not in (3, 4, 5):
      raise ValueError("Delta orthogonal initializer requires a 3D, 4D or 5D shape.")
    if shape[-1] < shape[-2]:
      raise ValueError("`fan_in` must be less or equal than `fan_out`. ")
    matrix = orthogonal(scale=scale, column_axis=column_axis, dtype=dtype)(key, shape[-2:])
    centre = tuple((k - 1) // 2 for k in shape[:-2])
    return jnp.zeros(shape, dtype=dtype).at[centre].set(matrix)
  return init
