"""Argument handling shared by the samplers: keys, shapes and dtypes, checked in the user's
terms before anything is traced."""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.dim_expr import broadcast_shapes
from xjax._src.libraries.random.keys import _shape_arg, check_prng_key


def single_key(name: str, key):
  """The typed key a sampler was given (legacy uint32 keys are wrapped)."""
  return check_prng_key(name, key)[0]


def shape_arg(name: str, shape) -> tuple:
  """A shape argument as a tuple of non-negative Python ints."""
  return _shape_arg(name, shape)


def check_shape(name: str, shape: tuple, *param_shapes) -> None:
  """Parameters must broadcast to exactly ``shape`` (JAX's rule for ``shape=``)."""
  if param_shapes:
    try:
      broadcast = broadcast_shapes(shape, *param_shapes)
    except ValueError:
      broadcast = None
    if broadcast != tuple(shape):
      shapes = ", ".join(str(tuple(s)) for s in param_shapes)
      raise ValueError(
          f"{name} parameter shapes must be broadcast-compatible with shape argument, and "
          f"the result of broadcasting the shapes must equal the shape argument, but got "
          f"parameter shapes {shapes} for shape argument {tuple(shape)}.")


def broadcast_shapes_or_shape(name: str, shape, *params) -> tuple:
  """``shape`` if given (checked against the parameters), else the parameters' broadcast."""
  param_shapes = [np.shape(p) for p in params]
  if shape is None:
    try:
      return broadcast_shapes(*param_shapes) if param_shapes else ()
    except ValueError:
      raise ValueError(f"{name}: incompatible parameter shapes "
                       f"{', '.join(str(s) for s in param_shapes)}") from None
  shape = shape_arg(name, shape)
  check_shape(name, shape, *param_shapes)
  return shape


def float_dtype(name: str, dtype, allow_complex: bool = False) -> np.dtype:
  """The canonical float dtype a sampler returns (the default float when None)."""
  dt = dtypes.check_user_dtype_supported(float if dtype is None else dtype)
  ok = dtypes.is_inexact(dt) if allow_complex else dtypes.is_float(dt)
  if not ok:
    kind = "a float or complex" if allow_complex else "a float"
    raise ValueError(f"dtype argument to `{name}` must be {kind} dtype, got {dt}")
  return dt


def int_dtype(name: str, dtype) -> np.dtype:
  dt = dtypes.check_user_dtype_supported(int if dtype is None else dtype)
  if not dtypes.is_integer(dt):
    raise ValueError(f"dtype argument to `{name}` must be an int dtype, got {dt}")
  return dt


def const(dtype, value):
  """A NumPy scalar of ``dtype`` (a strongly typed constant for lax arithmetic)."""
  return np.array(value, dtype)[()]
