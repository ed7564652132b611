"""``map_coordinates``: sampling an N-d array at fractional coordinates by nearest-neighbour
(order 0) or linear (order 1) interpolation, with SciPy's boundary modes."""
from __future__ import annotations

import functools
import itertools
import operator

from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax.rounding import round as lax_round
from xjax._src.libraries.numpy import namespace as jnp

def _mirror(index, size):
  s = size - 1  # a triangular wave of half-period s
  return jnp.abs((index + s) % (2 * s) - s)


_INDEX_FIXERS = {
    "constant": lambda index, size: index,  # (out-of-range entries are masked to cval)
    "nearest": lambda index, size: jnp.clip(index, 0, size - 1),
    "wrap": lambda index, size: index % size,
    "mirror": _mirror,
    "reflect": lambda index, size: jnp.floor_divide(_mirror(2 * index + 1, 2 * size + 1) - 1, 2),
}


def _round_half_away(a):
  return a if jnp.issubdtype(a.dtype, jnp.integer) else lax_round(a)


def _weights(coordinate, order):
  """[(integer index, weight)] contributions along one axis."""
  if order == 0:
    return [(_round_half_away(coordinate).astype(jnp.int32), coordinate.dtype.type(1))]
  lower = jnp.floor(coordinate)
  upper_weight = coordinate - lower
  index = lower.astype(jnp.int32)
  return [(index, 1 - upper_weight), (index + 1, upper_weight)]


def map_coordinates(input, coordinates, order, mode="constant", cval=0.0):
  """``input`` sampled at ``coordinates`` (a sequence of ``input.ndim`` arrays), each
  corner's weight the product over axes, rounded half away from zero for integer input,
  as JAX's (one compiled program when eager)."""
  return _map_coordinates(input, coordinates, order, mode, cval)


@compiled_when_eager(static_argnames=("order", "mode", "cval"))
def _map_coordinates(input, coordinates, order, mode, cval):
  input_arr = jnp.asarray(input)
  coordinates = [jnp.asarray(c) for c in coordinates]
  cval = jnp.asarray(cval, input_arr.dtype)
  if len(coordinates) != input_arr.ndim:
    raise ValueError("coordinates must be a sequence of length input.ndim, but "
                     f"{len(coordinates)} != {input_arr.ndim}")
  fix = _INDEX_FIXERS.get(mode)
  if fix is None:
    raise NotImplementedError(f"jax.scipy.ndimage.map_coordinates does not yet support mode "
                              f"{mode}. Currently supported modes are {set(_INDEX_FIXERS)}.")
  if order not in (0, 1):
    raise NotImplementedError("jax.scipy.ndimage.map_coordinates currently requires "
                              "order<=1")
  per_axis = [[(fix(i, size), ((0 <= i) & (i < size)) if mode == "constant" else True, w)
               for i, w in _weights(c, order)]
              for c, size in zip(coordinates, input_arr.shape)]
  outputs = []
  for corner in itertools.product(*per_axis):
    indices, valid, weights = zip(*corner)
    if all(v is True for v in valid):
      contribution = input_arr[indices]
    else:
      contribution = jnp.where(functools.reduce(operator.and_, valid), input_arr[indices], cval)
    outputs.append(functools.reduce(operator.mul, weights) * contribution)
  result = functools.reduce(operator.add, outputs)
  if jnp.issubdtype(input_arr.dtype, jnp.integer):
    result = _round_half_away(result)
  return result.astype(input_arr.dtype)
