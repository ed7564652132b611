"""``map_coordinates``: sampling an N-d array at fractional coordinates by nearest-neighbour
(order 0) or linear (order 1) interpolation, with SciPy's boundary modes."""
from __future__ import annotations

import itertools
import operator

from xjax._src.libraries.numpy import namespace as jnp

_MODES = ("constant", "nearest", "wrap", "mirror", "reflect")


def _index(index, size, mode):
  """(in-range index, validity mask) for integer ``index`` along an axis of ``size``."""
  if mode == "constant":
    return jnp.clip(index, 0, size - 1), (index >= 0) & (index < size)
  if mode == "nearest":
    return jnp.clip(index, 0, size - 1), True
  if mode == "wrap":
    return jnp.mod(index, size), True
  if mode == "mirror":
    period = 2 * (size - 1) if size > 1 else 1
    i = jnp.mod(index, period)
    return jnp.where(i > size - 1, period - i, i), True
  period = 2 * size  # reflect
  i = jnp.mod(index, period)
  return jnp.where(i >= size, period - 1 - i, i), True


def _weights(coordinate, order):
  """[(integer index, weight)] contributions along one axis."""
  if order == 0:
    return [(jnp.round(coordinate).astype(jnp.int32), 1)]
  lower = jnp.floor(coordinate)
  upper_weight = coordinate - lower
  lower = lower.astype(jnp.int32)
  return [(lower, 1 - upper_weight), (lower + 1, upper_weight)]


def map_coordinates(input, coordinates, order, mode="constant", cval=0.0):
  """``input`` sampled at ``coordinates`` (a sequence of ``input.ndim`` arrays)."""
  input_arr = jnp.asarray(input)
  coordinates = [jnp.asarray(c) for c in coordinates]
  cval = jnp.asarray(cval, input_arr.dtype)
  if len(coordinates) != input_arr.ndim:
    raise ValueError("coordinates must be a sequence of length input.ndim, but "
                     f"{len(coordinates)} != {input_arr.ndim}")
  order = operator.index(order)
  if order not in (0, 1):
    raise NotImplementedError("jax.scipy.ndimage.map_coordinates currently requires "
                              "order<=1")
  if mode not in _MODES:
    raise NotImplementedError(f"jax.scipy.ndimage.map_coordinates does not support "
                              f"mode {mode!r}; supported: {', '.join(_MODES)}")
  per_axis = [[(*_index(i, size, mode), w) for i, w in _weights(c, order)]
              for c, size in zip(coordinates, input_arr.shape)]
  out = 0
  for corner in itertools.product(*per_axis):
    indices = tuple(i for i, _, _ in corner)
    valid = True
    weight = 1
    for _, ok, w in corner:
      valid = valid & ok
      weight = weight * w
    value = input_arr[indices]
    if mode == "constant":
      value = jnp.where(valid, value, cval)
    out = out + value * weight
  if jnp.issubdtype(input_arr.dtype, jnp.integer):
    out = jnp.round(out)
  return jnp.asarray(out).astype(input_arr.dtype)
