"""Applying functions over axes: apply_along_axis (via vmap) and apply_over_axes."""
from __future__ import annotations

from xjax._src.core.values import get_aval
from xjax._src.numpy.creation import asarray
from xjax._src.numpy.util import canonical_axis


def apply_along_axis(func1d, axis: int, arr, *args, **kwargs):
  """``func1d`` applied to each 1-D slice of ``arr`` along ``axis`` (vmapped)."""
  from xjax._src.api import vmap
  arr = asarray(arr)
  nd = get_aval(arr).ndim
  axis = canonical_axis(axis, nd)
  fn = lambda x: func1d(x, *args, **kwargs)
  for i in range(1, nd - axis):
    fn = vmap(fn, in_axes=i, out_axes=-1)
  for _ in range(axis):
    fn = vmap(fn, in_axes=0, out_axes=0)
  return fn(arr)


def apply_over_axes(func, a, axes):
  """``func(a, axis)`` applied for each axis in turn, keeping the dimension count."""
  from xjax._src.numpy.shaping import expand_dims
  a = asarray(a)
  nd = get_aval(a).ndim
  for axis in ([axes] if isinstance(axes, int) else axes):
    b = func(a, axis)
    if get_aval(b).ndim == get_aval(a).ndim:
      a = b
    elif get_aval(b).ndim == get_aval(a).ndim - 1:
      a = expand_dims(b, canonical_axis(axis, nd))
    else:
      raise ValueError("function is not returning an array of the correct shape")
  return a
