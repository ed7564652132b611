"""Neural-network layers as (init_fun, apply_fun) pairs, as `jax.example_libraries.stax`.

``init_fun(rng, input_shape) -> (output_shape, params)``;
``apply_fun(params, inputs, **kwargs) -> outputs`` (``rng=`` for stochastic layers).
Parameters are initialised with the same keys and initialisers as JAX, so a network built
here starts from the same numbers.
"""
import functools
import operator as _operator

import numpy as _np

import xjax.numpy as jnp
from xjax import lax, random
from xjax.nn import (elu, gelu, leaky_relu, log_softmax, relu, selu, sigmoid, softmax,
                     softplus, standardize)
from xjax.nn.initializers import glorot_normal, normal, ones, zeros

# JAX's older names for these.
glorot = glorot_normal
randn = normal
logsoftmax = log_softmax

# ---- parameterised layers ----


def Dense(out_dim, W_init=glorot_normal(), b_init=normal()):
  """Fully-connected layer: ``inputs @ W + b``."""
  def init_fun(rng, input_shape):
    output_shape = input_shape[:-1] + (out_dim,)
    k1, k2 = random.split(rng)
    return output_shape, (W_init(k1, (input_shape[-1], out_dim)), b_init(k2, (out_dim,)))

  def apply_fun(params, inputs, **kwargs):
    W, b = params
    return jnp.dot(inputs, W) + b
  return init_fun, apply_fun


def GeneralConv(dimension_numbers, out_chan, filter_shape, strides=None, padding="VALID",
                W_init=None, b_init=normal(1e-6)):
  """Convolution with the layouts ``dimension_numbers = (lhs, rhs, out)`` (e.g. NHWC)."""
  lhs_spec, rhs_spec, out_spec = dimension_numbers
  one = (1,) * len(filter_shape)
  strides = strides or one
  W_init = W_init or glorot_normal(rhs_spec.index("I"), rhs_spec.index("O"))

  def init_fun(rng, input_shape):
    spatial = iter(filter_shape)
    kernel_shape = [out_chan if c == "O" else
                    input_shape[lhs_spec.index("C")] if c == "I" else next(spatial)
                    for c in rhs_spec]
    output_shape = lax.conv_general_shape_tuple(input_shape, kernel_shape, strides, padding,
                                                dimension_numbers)
    bias_shape = [out_chan if c == "C" else 1 for c in out_spec]
    k1, k2 = random.split(rng)
    return output_shape, (W_init(k1, kernel_shape), b_init(k2, bias_shape))

  def apply_fun(params, inputs, **kwargs):
    W, b = params
    return lax.conv_general_dilated(inputs, W, strides, padding, one, one,
                                    dimension_numbers=dimension_numbers) + b
  return init_fun, apply_fun


Conv = functools.partial(GeneralConv, ("NHWC", "HWIO", "NHWC"))


def GeneralConvTranspose(dimension_numbers, out_chan, filter_shape, strides=None,
                         padding="VALID", W_init=None, b_init=normal(1e-6)):
  """Transposed convolution with the layouts ``dimension_numbers``."""
  lhs_spec, rhs_spec, out_spec = dimension_numbers
  one = (1,) * len(filter_shape)
  strides = strides or one
  W_init = W_init or glorot_normal(rhs_spec.index("I"), rhs_spec.index("O"))

  def init_fun(rng, input_shape):
    spatial = iter(filter_shape)
    kernel_shape = [out_chan if c == "O" else
                    input_shape[lhs_spec.index("C")] if c == "I" else next(spatial)
                    for c in rhs_spec]
    output_shape = lax.conv_transpose_shape_tuple(input_shape, kernel_shape, strides,
                                                  padding, dimension_numbers)
    bias_shape = [out_chan if c == "C" else 1 for c in out_spec]
    k1, k2 = random.split(rng)
    return output_shape, (W_init(k1, kernel_shape), b_init(k2, bias_shape))

  def apply_fun(params, inputs, **kwargs):
    W, b = params
    return lax.conv_transpose(inputs, W, strides, padding,
                              dimension_numbers=dimension_numbers) + b
  return init_fun, apply_fun


Conv1DTranspose = functools.partial(GeneralConvTranspose, ("NHC", "HIO", "NHC"))
ConvTranspose = functools.partial(GeneralConvTranspose, ("NHWC", "HWIO", "NHWC"))


def BatchNorm(axis=(0, 1, 2), epsilon=1e-5, center=True, scale=True, beta_init=zeros,
              gamma_init=ones):
  """Normalises over ``axis`` with the batch's statistics, then scales and shifts."""
  axis = (axis,) if _np.isscalar(axis) else axis

  def init_fun(rng, input_shape):
    shape = tuple(d for i, d in enumerate(input_shape) if i not in axis)
    k1, k2 = random.split(rng)
    beta = beta_init(k1, shape) if center else ()
    gamma = gamma_init(k2, shape) if scale else ()
    return input_shape, (beta, gamma)

  def apply_fun(params, x, **kwargs):
    beta, gamma = params
    keep = tuple(None if i in axis else slice(None) for i in range(jnp.ndim(x)))
    z = standardize(x, axis, epsilon=epsilon)
    if center and scale:
      return gamma[keep] * z + beta[keep]
    if center:
      return z + beta[keep]
    if scale:
      return gamma[keep] * z
    return z
  return init_fun, apply_fun


# ---- parameter-free layers ----

def elementwise(fun, **fun_kwargs):
  """A layer applying ``fun(inputs, **fun_kwargs)``."""
  init_fun = lambda rng, input_shape: (input_shape, ())
  apply_fun = lambda params, inputs, **kwargs: fun(inputs, **fun_kwargs)
  return init_fun, apply_fun


Tanh = elementwise(jnp.tanh)
Relu = elementwise(relu)
Exp = elementwise(jnp.exp)
LogSoftmax = elementwise(log_softmax, axis=-1)
Softmax = elementwise(softmax, axis=-1)
Softplus = elementwise(softplus)
Sigmoid = elementwise(sigmoid)
Elu = elementwise(elu)
LeakyRelu = elementwise(leaky_relu)
Selu = elementwise(selu)
Gelu = elementwise(gelu)


def _with_unit_axes(shape, spec, ndim_spatial):
  """``shape`` (spatial only) with 1s inserted at the batch and channel axes."""
  axes = (0, ndim_spatial + 1) if spec is None else (spec.index("N"), spec.index("C"))
  shape = tuple(shape)
  for i in sorted(axes):
    shape = shape[:i] + (1,) + shape[i:]
  return shape, axes


def _pooling_layer(reducer, init_val, average=False):
  def PoolingLayer(window_shape, strides=None, padding="VALID", spec=None):
    spatial_strides = strides or (1,) * len(window_shape)
    dims, _ = _with_unit_axes(window_shape, spec, len(window_shape))
    full_strides, _ = _with_unit_axes(spatial_strides, spec, len(window_shape))

    def init_fun(rng, input_shape):
      pads = lax.padtype_to_pads(input_shape, dims, full_strides, padding)
      ones_ = (1,) * len(dims)
      return lax.reduce_window_shape_tuple(input_shape, dims, full_strides, pads, ones_,
                                           ones_), ()

    def apply_fun(params, inputs, **kwargs):
      out = lax.reduce_window(inputs, init_val, reducer, dims, full_strides, padding)
      if not average:
        return out
      _, axes = _with_unit_axes(window_shape, spec, len(window_shape))
      spatial = tuple(d for i, d in enumerate(inputs.shape) if i not in axes)
      counts = lax.reduce_window(jnp.ones(spatial, inputs.dtype), 0., lax.add,
                                 tuple(window_shape), tuple(spatial_strides), padding)
      for i in sorted(axes):
        counts = jnp.expand_dims(counts, i)
      return out / counts
    return init_fun, apply_fun
  return PoolingLayer


MaxPool = _pooling_layer(lax.max, -jnp.inf)
SumPool = _pooling_layer(lax.add, 0.)
AvgPool = _pooling_layer(lax.add, 0., average=True)


def Flatten():
  """Flattens all but the leading (batch) dimension."""
  init_fun = lambda rng, input_shape: ((input_shape[0],
                                        functools.reduce(_operator.mul, input_shape[1:], 1)), ())
  apply_fun = lambda params, inputs, **kwargs: jnp.reshape(inputs, (inputs.shape[0], -1))
  return init_fun, apply_fun


Flatten = Flatten()


def Identity():
  """Passes inputs through."""
  return (lambda rng, input_shape: (input_shape, ()),
          lambda params, inputs, **kwargs: inputs)


Identity = Identity()


def FanOut(num):
  """Copies the input ``num`` times (for ``parallel``)."""
  return (lambda rng, input_shape: ([input_shape] * num, ()),
          lambda params, inputs, **kwargs: [inputs] * num)


def FanInSum():
  """Sums a list of inputs."""
  return (lambda rng, input_shape: (input_shape[0], ()),
          lambda params, inputs, **kwargs: sum(inputs))


FanInSum = FanInSum()


def FanInConcat(axis=-1):
  """Concatenates a list of inputs along ``axis``."""
  def init_fun(rng, input_shape):
    ax = axis % len(input_shape[0])
    size = sum(shape[ax] for shape in input_shape)
    return input_shape[0][:ax] + (size,) + input_shape[0][ax + 1:], ()
  apply_fun = lambda params, inputs, **kwargs: jnp.concatenate(inputs, axis)
  return init_fun, apply_fun


def Dropout(rate, mode="train"):
  """Keeps each input with probability ``rate`` (scaled by ``1/rate``) in ``'train'`` mode;
  needs ``rng=`` when applied."""
  def init_fun(rng, input_shape):
    return input_shape, ()

  def apply_fun(params, inputs, **kwargs):
    rng = kwargs.get("rng")
    if rng is None:
      raise ValueError("Dropout layer requires apply_fun to be called with a PRNG key "
                       "argument. That is, instead of `apply_fun(params, inputs)`, call it "
                       "like `apply_fun(params, inputs, rng)` where `rng` is a PRNG key "
                       "(e.g. from `xjax.random.key`).")
    if mode != "train":
      return inputs
    keep = random.bernoulli(rng, rate, inputs.shape)
    return jnp.where(keep, inputs / rate, 0)
  return init_fun, apply_fun


# ---- combinators ----

def serial(*layers):
  """Layers applied one after another."""
  init_funs, apply_funs = zip(*layers) if layers else ((), ())

  def init_fun(rng, input_shape):
    params = []
    for init in init_funs:
      rng, layer_rng = random.split(rng)
      input_shape, param = init(layer_rng, input_shape)
      params.append(param)
    return input_shape, params

  def apply_fun(params, inputs, **kwargs):
    rng = kwargs.pop("rng", None)
    rngs = random.split(rng, len(layers)) if rng is not None else (None,) * len(layers)
    for fun, param, r in zip(apply_funs, params, rngs):
      inputs = fun(param, inputs, rng=r, **kwargs)
    return inputs
  return init_fun, apply_fun


def parallel(*layers):
  """Layers applied to the matching elements of a list of inputs (see ``FanOut``)."""
  init_funs, apply_funs = zip(*layers) if layers else ((), ())

  def init_fun(rng, input_shape):
    rngs = random.split(rng, len(layers))
    return zip(*[init(r, shape) for init, r, shape in zip(init_funs, rngs, input_shape)])

  def apply_fun(params, inputs, **kwargs):
    rng = kwargs.pop("rng", None)
    rngs = random.split(rng, len(layers)) if rng is not None else (None,) * len(layers)
    return [f(p, x, rng=r, **kwargs) for f, p, x, r in zip(apply_funs, params, inputs, rngs)]
  return init_fun, apply_fun


def shape_dependent(make_layer):
  """A layer built from the input's shape by ``make_layer(shape) -> (init_fun, apply_fun)``."""
  def init_fun(rng, input_shape):
    return make_layer(input_shape)[0](rng, input_shape)

  def apply_fun(params, inputs, **kwargs):
    return make_layer(inputs.shape)[1](params, inputs, **kwargs)
  return init_fun, apply_fun
