"""Element picking and editing: choose, compress, extract, delete, insert, resize, rollaxis,
trim_zeros, fill_diagonal, put_along_axis, block and the ``*_indices_from`` helpers.

Where an output shape depends on values (delete/insert positions, trim_zeros, compress
without ``size=``) those values must be concrete.
"""
from __future__ import annotations

import math
import operator

import numpy as np

from xjax._src.foundations import dtypes

from xjax._src.core.concrete import concrete_or_error
from xjax._src.core.values import get_aval
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax.elementwise import convert_element_type, select_n
from xjax._src.libraries.numpy.arguments import canonical_axis, arraylike, check_arraylike
from xjax._src.libraries.numpy.composed_math import clip
from xjax._src.libraries.numpy.creation import (arange, array, asarray, full, ones, zeros,
                                                zeros_like)
from xjax._src.libraries.numpy.indexing import take
from xjax._src.libraries.numpy.nonzero import nonzero
from xjax._src.libraries.numpy.rearrange import diag_indices, tile, tril_indices, triu_indices
from xjax._src.libraries.numpy.setops import _compact
from xjax._src.libraries.numpy.shaping import (broadcast_arrays, broadcast_shapes, concatenate,
                                               moveaxis, ravel)
from xjax._src.libraries.numpy.sorting import argsort, sort
from xjax._src.libraries.numpy.ufuncs import mod
from xjax._src.libraries.numpy.where import where


def _host(x, what):
  return np.asarray(concrete_or_error(x, what))


def choose(a, choices, out=None, mode="raise"):
  """``choices[a]`` elementwise, all broadcast together; ``mode`` handles out-of-range
  ``a``: 'raise' (needs concrete ``a``), 'wrap' or 'clip'."""
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.choose is not supported.")
  check_arraylike("choose", a, *choices)
  a = asarray(a)
  if not dtypes.is_integer(get_aval(a).dtype):
    raise ValueError("`a` array must be integer typed")
  n = len(choices)
  if mode == "raise":
    host = _host(a, "a argument of jnp.choose with mode='raise'")
    if np.any((host < 0) | (host >= n)):
      raise ValueError("invalid entry in choice array")
  elif mode == "wrap":
    a = mod(a, n)
  elif mode == "clip":
    a = clip(a, 0, n - 1)
  else:
    raise ValueError(f"mode={mode!r} not understood. Must be 'raise', 'wrap', or 'clip'")
  a, *choices = broadcast_arrays(a, *choices)
  choices = broadcast_arrays(*[asarray(c) for c in choices]) if n > 1 else choices
  dt = dtypes.result_type(*choices)
  return select_n(convert_element_type(a, np.int32),
                      *[convert_element_type(c, dt) for c in choices])


def compress(condition, a, axis=None, *, size=None, fill_value=0, out=None):
  """Slices of ``a`` along ``axis`` where ``condition`` is true (``size=``: padded with
  ``fill_value`` or cut). Both are cut to the shorter length; without ``size``, true
  entries past the end of ``a`` are an error (checked with a Python ``if``, so under
  tracing it raises JAX's TracerBoolConversionError)."""
  condition, a, fill_value = arraylike("compress", condition, a, fill_value)
  cond, fill_value = asarray(condition).astype(bool), asarray(fill_value)
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.compress is not supported.")
  if get_aval(cond).ndim != 1:
    raise ValueError("condition must be a 1D array")
  a = ravel(a) if axis is None else moveaxis(a, axis, 0)
  cond, extra = cond[:get_aval(a).shape[0]], cond[get_aval(a).shape[0]:]
  n = get_aval(cond).shape[0]
  a = a[:n]
  if size is None:
    if extra.any():
      raise ValueError("condition contains entries that are out of bounds")
    result = a[cond]
  elif not 0 <= size <= n:
    raise ValueError("size must be positive and not greater than the size of the array axis;"
                     f" got {size=} for a.shape[axis]={n}")
  else:
    pos, valid = _compact(cond, operator.index(size))
    valid = valid.reshape((-1,) + (1,) * (get_aval(a).ndim - 1))
    result = where(valid, take(a, pos, axis=0, mode="clip"),
                   asarray(fill_value, get_aval(a).dtype))
  return result if axis is None else moveaxis(result, 0, axis)


def extract(condition, arr, *, size=None, fill_value=0):
  """Elements of flattened ``arr`` where flattened ``condition`` is true."""
  condition, arr, fill_value = arraylike("extract", condition, arr, fill_value)
  return compress(ravel(condition), ravel(arr), size=size, fill_value=fill_value)


def delete(arr, obj, axis=None, *, assume_unique_indices=False):
  """``arr`` without the entries at ``obj`` along ``axis``: an int, a slice, an int array
  (concrete, or traced with ``assume_unique_indices=True``) or a boolean mask."""
  arr, = arraylike("delete", arr)
  a = ravel(arr) if axis is None else asarray(arr)
  axis = canonical_axis(0 if axis is None else axis, get_aval(a).ndim)
  n = get_aval(a).shape[axis]
  before = (slice(None),) * axis
  try:
    index = operator.index(obj)
  except TypeError:
    pass
  else:  # one static position
    index = canonical_axis(index, n)
    return concatenate([a[before + (slice(0, index),)], a[before + (slice(index + 1, None),)]],
                       axis=axis)
  if isinstance(obj, slice):
    obj, assume_unique_indices = arange(n)[obj], True
  a, obj = arraylike("delete", a, obj)
  if dtypes.is_integer(dtypes.dtype(obj)) and assume_unique_indices:
    # the kept positions: each output slot i skips the deleted positions at or before it
    gone = ravel(asarray(obj))
    gone = clip(where(gone < 0, gone + n, gone), 0, n)
    gone = sort(gone)
    gone = gone - arange(get_aval(gone).shape[0], dtype=get_aval(gone).dtype)
    i = arange(n - get_aval(gone).size, dtype=get_aval(gone).dtype)
    i = i + (i[None, :] >= gone[:, None]).sum(0, dtype=get_aval(i).dtype)
    return a[before + (i,)]
  host = _host(obj, "'obj' array argument of jnp.delete()")
  if dtypes.is_integer(host.dtype):
    keep = np.ones(n, dtype=bool)
    keep[host] = False
  elif host.dtype == bool:
    if host.shape != (n,):
      raise ValueError("np.delete(arr, obj): for boolean indices, obj must be "
                       "one-dimensional with length matching specified axis.")
    keep = ~host
  else:
    raise ValueError(f"np.delete(arr, obj): got obj.dtype={host.dtype}; must be integer "
                     "or bool.")
  return a[before + (keep,)]


def insert(arr, obj, values, axis=None):
  """``arr`` with ``values`` inserted before the positions ``obj`` (a slice, or integer
  positions, which may be traced) along ``axis``; positions are clipped to the axis."""
  check_arraylike("insert", arr, 0 if isinstance(obj, slice) else obj, values)
  a = ravel(arr) if axis is None else asarray(arr)
  axis = canonical_axis(0 if axis is None else concrete_or_error(axis, "axis"),
                        get_aval(a).ndim)
  n = get_aval(a).shape[axis]
  indices = arange(*obj.indices(n)) if isinstance(obj, slice) else asarray(obj)
  if get_aval(indices).ndim > 1:
    raise ValueError("jnp.insert(): obj must be a slice, a one-dimensional array, or a "
                     f"scalar; got {obj}")
  if not dtypes.is_integer(get_aval(indices).dtype):
    if get_aval(indices).size == 0 and not hasattr(obj, "aval"):
      indices = indices.astype(int)
    else:
      raise ValueError(f"jnp.insert(): index array must be integer typed; got {obj}")
  # (as arrays first, as JAX's: a Python -1 inserted into uint8 wraps to 255)
  values = array(asarray(values), ndmin=get_aval(a).ndim, dtype=get_aval(a).dtype,
                 copy=False)
  if get_aval(indices).size == 1:
    index = ravel(indices)[0]
    if get_aval(indices).ndim == 0:
      values = moveaxis(values, 0, axis)
    indices = full(get_aval(values).shape[axis], index)
  k = broadcast_shapes(get_aval(indices).shape, (get_aval(values).shape[axis],))[0]
  out_shape = list(get_aval(a).shape)
  out_shape[axis] += k
  indices = clip(where(indices < 0, indices + n, indices), 0, n)
  values_at = indices.at[argsort(indices)].add(arange(k, dtype=get_aval(indices).dtype))
  kept_at = where(ones(n + k, dtype=bool).at[values_at].set(False), size=n)[0]
  before = (slice(None),) * axis
  out = zeros_like(a, shape=tuple(out_shape)).at[before + (values_at,)].set(values)
  return out.at[before + (kept_at,)].set(a)


@compiled_when_eager(static_argnames=("new_shape",), staged="resize")
def resize(a, new_shape):
  """``a`` flattened, repeated as needed, and reshaped to ``new_shape``."""
  a, = arraylike("resize", a)
  new_shape = (new_shape,) if isinstance(new_shape, int) else tuple(new_shape)
  if any(d < 0 for d in new_shape):
    raise ValueError("all elements of `new_shape` must be non-negative")
  flat = ravel(a)
  total = math.prod(new_shape)
  n = flat.shape[0]
  if n == 0:
    return zeros(new_shape, flat.dtype)
  reps = -(-total // n)
  return tile(flat, reps)[:total].reshape(new_shape)


@compiled_when_eager(static_argnames=("axis", "start"), staged="rollaxis")
def rollaxis(a, axis, start=0):
  """Moves ``axis`` to sit before position ``start``."""
  a = asarray(a)
  nd = get_aval(a).ndim
  axis = canonical_axis(axis, nd)
  start = operator.index(start)
  if not -nd <= start <= nd:
    raise ValueError(f"start={start} must satisfy {-nd} <= start <= {nd}")
  start = start + nd if start < 0 else start
  if axis < start:
    start -= 1
  return a if axis == start else moveaxis(a, axis, start)


def trim_zeros(filt, trim="fb", axis=None):
  """``filt`` without its leading ('f') and/or trailing ('b') all-zero hyperslices along
  ``axis`` (all axes when None)."""
  filt, = arraylike("trim_zeros", filt)
  a = asarray(filt)
  nz = _host(a, "filt argument of jnp.trim_zeros") != 0
  nd = nz.ndim
  trim = trim.lower()
  if nd == 0 or ("f" not in trim and "b" not in trim):  # (no axis to trim: as it is, as JAX)
    return a
  axes = range(nd) if axis is None else [canonical_axis(x, nd) for x in np.atleast_1d(axis)]
  if len(set(axes)) != len(axes):
    raise ValueError(f"repeated axis: {tuple(axes)}")
  index = [slice(None)] * nd
  for ax in axes:
    hits = np.flatnonzero(nz.any(axis=tuple(i for i in range(nd) if i != ax)))
    if hits.size == 0:
      index[ax] = slice(0, 0)
      continue
    index[ax] = slice(hits[0] if "f" in trim else 0,
                      hits[-1] + 1 if "b" in trim else nz.shape[ax])
  return a[tuple(index)]


def fill_diagonal(a, val, wrap=False, *, inplace=True):
  """``a`` with its main diagonal set to ``val`` (repeated as needed); needs
  ``inplace=False``."""
  if inplace:
    raise NotImplementedError("JAX arrays are immutable, must use inplace=False")
  if wrap:
    raise NotImplementedError("wrap=True is not implemented, must use wrap=False")
  a, val = arraylike("fill_diagonal", a, val)
  a = asarray(a)
  shape = get_aval(a).shape
  if len(shape) < 2:
    raise ValueError("array must be at least 2-d")
  if len(shape) > 2 and len(set(shape)) != 1:
    raise ValueError("All dimensions of input must be of equal length")
  n = min(shape)
  val = ravel(asarray(val).astype(get_aval(a).dtype))
  val = resize(val, (n,)) if val.shape[0] else zeros((n,), get_aval(a).dtype)
  idx = arange(n)
  return a.at[(idx,) * len(shape)].set(val)


def diag_indices_from(arr):
  check_arraylike("diag_indices_from", arr)
  shape = get_aval(asarray(arr)).shape
  if len(shape) < 2:
    raise ValueError("input array must be at least 2-d")
  if len(set(shape)) != 1:
    raise ValueError("All dimensions of input must be of equal length")
  return diag_indices(shape[0], len(shape))


def _indices_from(name, fn):
  def from_arr(arr, k=0):
    check_arraylike(name, arr)
    shape = get_aval(asarray(arr)).shape if not hasattr(arr, "shape") else tuple(arr.shape)
    if len(shape) != 2:
      raise ValueError(f"input array must be 2-d; got shape {shape}")
    return fn(shape[0], k=k, m=shape[1])
  from_arr.__name__ = from_arr.__qualname__ = name
  from_arr.__doc__ = f"The ``{fn.__name__}`` of a 2-D array's shape."
  return from_arr


tril_indices_from = _indices_from("tril_indices_from", tril_indices)
triu_indices_from = _indices_from("triu_indices_from", triu_indices)


def mask_indices(n, mask_func, k=0, *, size=None):
  """Indices where ``mask_func(ones((n, n)), k)`` is nonzero."""
  return nonzero(mask_func(ones((n, n), dtype=int), k), size=size)


def _block_depth(x):
  if isinstance(x, list):
    if not x:
      raise ValueError("Lists cannot be empty")
    depths = {_block_depth(e) for e in x}
    if len(depths) != 1:
      raise ValueError("List depths are mismatched")
    return 1 + depths.pop()
  if isinstance(x, tuple):
    raise TypeError("jnp.block does not accept tuples; use nested lists.")
  return 0


def _block_leaves(x):
  return [leaf for e in x for leaf in _block_leaves(e)] if isinstance(x, list) else [x]


@compiled_when_eager(staged="block")
def block(arrays):
  """An array assembled from nested lists of blocks: the innermost lists concatenate
  along the last axis, the next along the second-last, and so on."""
  depth = _block_depth(arrays)
  nd = max([depth] + [np.ndim(leaf) if not hasattr(leaf, "ndim") else leaf.ndim
                      for leaf in _block_leaves(arrays)])

  def build(x, level):
    if level == depth:
      x = asarray(x)
      return x.reshape((1,) * (nd - x.ndim) + x.shape)
    return concatenate([build(e, level + 1) for e in x], axis=level - depth)
  return build(arrays, 0)
