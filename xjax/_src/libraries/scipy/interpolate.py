"""``RegularGridInterpolator``: linear or nearest interpolation on a rectilinear grid."""
from __future__ import annotations

import itertools

import numpy as np

from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.numpy.arguments import arraylike
from xjax._src.libraries.numpy.promotion import promote_dtypes_inexact
from xjax._src.foundations.tree_util import register_pytree_node


class RegularGridInterpolator:
  """Interpolates ``values`` given on the grid ``points`` (one increasing 1-D array per
  dimension).  ``method`` is "linear" or "nearest"; points outside the grid get
  ``fill_value`` (None extrapolates); ``bounds_error`` is not supported."""

  def __init__(self, points, values, method="linear", bounds_error=False,
               fill_value=np.nan):
    if method not in ("linear", "nearest"):
      raise ValueError(f"method {method!r} is not defined")
    if bounds_error:
      raise NotImplementedError("`bounds_error` takes no effect under JIT")
    values, = arraylike("RegularGridInterpolator", values)
    if len(points) > jnp.ndim(values):
      raise ValueError(f"there are {len(points)} point arrays, but values has "
                       f"{jnp.ndim(values)} dimensions")
    values, = promote_dtypes_inexact(jnp.asarray(values))
    if fill_value is not None:
      fill_value, = arraylike("RegularGridInterpolator", fill_value)
      fill_value = jnp.asarray(fill_value)
      if not np.can_cast(fill_value.dtype, values.dtype, casting="same_kind"):
        raise ValueError("fill_value must be either 'None' or of a type compatible with "
                         "values")
    self.method = method
    self.bounds_error = bounds_error
    self.fill_value = fill_value
    self.grid = tuple(jnp.asarray(p) for p in points)
    self.values = values

  def __call__(self, xi, method=None):
    method = self.method if method is None else method
    if method not in ("linear", "nearest"):
      raise ValueError(f"method {method!r} is not defined")
    ndim = len(self.grid)
    xi = jnp.asarray(xi)
    if xi.shape[-1] != ndim:
      raise ValueError(f"the requested sample points xi have dimension {xi.shape[-1]}, but "
                       f"this RegularGridInterpolator has dimension {ndim}")
    shape = xi.shape
    xi = jnp.reshape(xi, (-1, ndim))
    indices, norm_distances, outside = [], [], jnp.zeros(xi.shape[0], bool)
    for x, grid in zip(xi.T, self.grid):
      i = jnp.clip(jnp.searchsorted(grid, x) - 1, 0, grid.shape[0] - 2)
      indices.append(i)
      norm_distances.append((x - grid[i]) / (grid[i + 1] - grid[i]))
      outside = outside | (x < grid[0]) | (x > grid[-1])
    if method == "linear":
      out = 0
      for corner in itertools.product((0, 1), repeat=ndim):
        weight = 1
        for c, y in zip(corner, norm_distances):
          weight = weight * (y if c else 1 - y)
        idx = tuple(i + c for i, c in zip(indices, corner))
        w = jnp.reshape(weight, weight.shape + (1,) * (self.values.ndim - ndim))
        out = out + self.values[idx] * w
    else:
      idx = tuple(jnp.where(y <= 0.5, i, i + 1) for i, y in zip(indices, norm_distances))
      out = self.values[idx]
    if self.fill_value is not None:
      mask = jnp.reshape(outside, outside.shape + (1,) * (self.values.ndim - ndim))
      out = jnp.where(mask, self.fill_value, out)
    # (the values' and the points' dtypes promoted: float64 points give float64 results)
    return jnp.reshape(jnp.asarray(out), shape[:-1] + self.values.shape[ndim:])


register_pytree_node(
    RegularGridInterpolator,
    lambda obj: ((obj.grid, obj.values, obj.fill_value), (obj.method, obj.bounds_error)),
    lambda aux, children: _rebuild(aux, children))


def _rebuild(aux, children):
  obj = object.__new__(RegularGridInterpolator)
  obj.method, obj.bounds_error = aux
  obj.grid, obj.values, obj.fill_value = children
  return obj
