"""Sorting: sort, argsort, lexsort, searchsorted; order statistics via sort."""
from __future__ import annotations

import numpy as np

from xjax._src import dtypes
from xjax._src.core.values import get_aval
from xjax._src.lax import lax
from xjax._src.lax import sorting as lax_sorting
from xjax._src.numpy.creation import asarray
from xjax._src.numpy.shaping import ravel
from xjax._src.numpy.util import canonical_axis, check_arraylike


def _prepare(name, a, axis):
  check_arraylike(name, a)
  a = asarray(a)
  if axis is None:
    return ravel(a), 0
  aval = get_aval(a)
  if aval.ndim == 0:
    raise ValueError(f"axis {axis} is out of bounds for array of dimension 0")
  return a, canonical_axis(axis, aval.ndim)


def sort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False):
  """Sorted copy along ``axis`` (flattened if None); NaNs sort last."""
  if order is not None:
    raise ValueError("The 'order' argument to sort is not supported.")
  a, axis = _prepare("sort", a, axis)
  out = lax_sorting.sort(a, dimension=axis, is_stable=stable)
  return lax.rev(out, (axis,)) if descending else out


def argsort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False):
  """Indices that sort ``a`` along ``axis`` (stable by default)."""
  if order is not None:
    raise ValueError("The 'order' argument to argsort is not supported.")
  a, axis = _prepare("argsort", a, axis)
  aval = get_aval(a)
  idx_dt = dtypes.default_int_dtype()
  iota = lax.broadcasted_iota(idx_dt, aval.shape, axis)
  if descending:
    _, idx = lax_sorting.sort((lax.rev(a, (axis,)), iota), dimension=axis,
                              is_stable=stable, num_keys=1)
    n = np.asarray(aval.shape[axis] - 1, idx_dt)[()]
    return lax.sub(n, lax.rev(idx, (axis,)))
  _, idx = lax_sorting.sort((a, iota), dimension=axis, is_stable=stable, num_keys=1)
  return idx


def lexsort(keys, axis=-1):
  """Indices sorting by the last key first, then the previous ones."""
  keys = [asarray(k) for k in keys]
  if not keys:
    raise TypeError("need sequence of keys with len > 0 in lexsort")
  shape = get_aval(keys[0]).shape
  axis = canonical_axis(axis, len(shape))
  iota = lax.broadcasted_iota(dtypes.default_int_dtype(), shape, axis)
  outs = lax_sorting.sort(tuple(reversed(keys)) + (iota,), dimension=axis,
                          num_keys=len(keys))
  return outs[-1]


def _less(x, y):
  """x < y with NaN ordered last, as in sorting."""
  if dtypes.is_inexact(get_aval(x).dtype):
    return lax.bitwise_or(lax.lt(x, y), lax.bitwise_and(lax.ne(y, y), lax.eq(x, x)))
  return lax.lt(x, y)


def searchsorted(a, v, side="left", sorter=None, *, method=None):
  """Insertion indices of ``v`` into sorted 1-D ``a`` keeping it sorted."""
  from xjax._src.numpy.util import promote_dtypes
  check_arraylike("searchsorted", a, v)
  if side not in ("left", "right"):
    raise ValueError(f"{side!r} is an invalid value for keyword 'side'. Expected one of "
                     "['left', 'right']")
  a, v = asarray(a), asarray(v)
  if get_aval(a).ndim != 1:
    raise ValueError("a should be 1-dimensional")
  if sorter is not None:
    from xjax._src.numpy.rearrange import _take_along
    a = _take_along(a, lax.convert_element_type(asarray(sorter), np.int32), 0)
  a, v = promote_dtypes(a, v)
  n = get_aval(a).shape[0]
  vs = get_aval(v).shape
  big = vs + (n,)
  ab = lax.broadcast_in_dim(a, big, (len(vs),))
  vb = lax.broadcast_in_dim(v, big, tuple(range(len(vs))))
  before = _less(ab, vb) if side == "left" else lax.bitwise_not(_less(vb, ab))
  # int32 indices even in x64 mode, as in JAX
  idt = np.int32 if n < 2**31 else dtypes.default_int_dtype()
  return lax.reduce_sum(lax.convert_element_type(before, idt), (len(vs),))


def _kth(name, kth, n):
  kth = int(kth)
  if not -n <= kth < n:
    raise ValueError(f"{name}: kth {kth} is out of bounds for an axis of size {n}")
  return kth


def partition(a, kth, axis=-1):
  """A partition of ``a`` around its ``kth`` element along ``axis`` (here: a full sort)."""
  a, axis = _prepare("partition", a, axis)
  _kth("partition", kth, get_aval(a).shape[axis])
  return sort(a, axis)


def argpartition(a, kth, axis=-1):
  """Indices that partition ``a`` around its ``kth`` element (here: a stable argsort)."""
  a, axis = _prepare("argpartition", a, axis)
  _kth("argpartition", kth, get_aval(a).shape[axis])
  return argsort(a, axis)


def sort_complex(a):
  """Sorted copy of ``a`` (by real, then imaginary part) as a complex array."""
  a = sort(a)
  return lax.convert_element_type(a, dtypes.to_complex_dtype(get_aval(a).dtype))
