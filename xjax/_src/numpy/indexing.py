"""NumPy indexing on Arrays and tracers (basic indexing; gather-based advanced indexing
and ``.at[]`` updates are added by the indexing work)."""
from __future__ import annotations

import operator

import numpy as np

from xjax._src.core.values import get_aval
from xjax._src.lax import lax


def getitem(x, idx):
  """``x[idx]`` for ints, slices (any step), None and Ellipsis."""
  aval = get_aval(x)
  if not isinstance(idx, tuple):
    idx = (idx,)
  n_real = sum(1 for i in idx if i is not None and i is not Ellipsis)
  if sum(1 for i in idx if i is Ellipsis) > 1:
    raise IndexError("an index can only have a single ellipsis ('...')")
  if n_real > aval.ndim:
    raise IndexError(f"Too many indices: {aval.ndim}-dimensional array indexed with "
                     f"{n_real} regular indices.")
  if Ellipsis in [i for i in idx if i is Ellipsis]:
    pos = next(k for k, i in enumerate(idx) if i is Ellipsis)
    idx = idx[:pos] + (slice(None),) * (aval.ndim - n_real) + idx[pos + 1:]
  else:
    idx = idx + (slice(None),) * (aval.ndim - n_real)
  starts, limits, strides, out_shape, flips, squeeze_dims = [], [], [], [], [], []
  new_axes = []
  dim = 0
  out_pos = 0
  for i in idx:
    if i is None:
      new_axes.append(out_pos)
      out_pos += 1
      continue
    size = aval.shape[dim]
    if isinstance(i, slice):
      start, stop, step = i.indices(size)
      if step > 0:
        n = max(0, (stop - start + step - 1) // step)
        starts.append(start)
        limits.append(start + (n - 1) * step + 1 if n else start)
        strides.append(step)
      else:
        n = max(0, (start - stop - step - 1) // (-step))
        last = start + (n - 1) * step if n else start
        starts.append(last if n else 0)
        limits.append(start + 1 if n else 0)
        strides.append(-step)
        flips.append(dim)
      out_pos += 1
    else:
      try:
        k = operator.index(i)
      except TypeError:
        raise TypeError(_unsupported_index_message(i)) from None
      if not -size <= k < size:
        raise IndexError(f"index {k} is out of bounds for axis {dim} with size {size}")
      k %= size
      starts.append(k)
      limits.append(k + 1)
      strides.append(1)
      squeeze_dims.append(dim)
    dim += 1
  out = lax.slice(x, starts, limits, strides)
  if flips:
    out = lax.rev(out, flips)
  if squeeze_dims:
    out = lax.squeeze(out, squeeze_dims)
  if new_axes:
    out = lax.expand_dims(out, new_axes)
  return out


def _unsupported_index_message(i) -> str:
  return (f"Indexing with {type(i).__name__} is not supported here: use integers, slices, "
          "None or Ellipsis; for traced integer indices use lax.dynamic_slice or "
          "lax.dynamic_index_in_dim.")


class IndexUpdateHelper:
  """``x.at[idx]``: functional updates (JAX arrays are immutable)."""
  __slots__ = ("array",)

  def __init__(self, array) -> None:
    self.array = array

  def __getitem__(self, idx):
    return IndexUpdateRef(self.array, idx)


class IndexUpdateRef:
  __slots__ = ("array", "index")

  def __init__(self, array, index) -> None:
    self.array = array
    self.index = index

  def get(self, **kwargs):
    return getitem(self.array, self.index)

  def set(self, values, **kwargs):
    return _update_basic(self.array, self.index, values, None)

  def add(self, values, **kwargs):
    return _update_basic(self.array, self.index, values, lax.add)


def _update_basic(x, idx, values, combine):
  """Updates at an integer index along the leading axes (dynamic_update_slice)."""
  aval = get_aval(x)
  idx = idx if isinstance(idx, tuple) else (idx,)
  if not all(isinstance(i, (int, np.integer)) for i in idx):
    raise NotImplementedError("this index form of .at[] is provided by the indexing work")
  starts = [operator.index(i) % aval.shape[d] for d, i in enumerate(idx)]
  starts += [0] * (aval.ndim - len(starts))
  sizes = [1] * len(idx) + list(aval.shape[len(idx):])
  from xjax._src.numpy.creation import asarray
  v = lax.convert_element_type(asarray(values), aval.dtype)
  from xjax._src.numpy.shaping import broadcast_to
  v = lax.reshape(broadcast_to(v, tuple(aval.shape[len(idx):])), tuple(sizes))
  if combine is not None:
    v = combine(lax.dynamic_slice(x, starts, sizes), v)
  return lax.dynamic_update_slice(x, v, starts)
