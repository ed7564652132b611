"""Element picking and editing: choose, compress, extract, delete, insert, resize, rollaxis,
trim_zeros, fill_diagonal, put_along_axis, block and the ``*_indices_from`` helpers.

Where an output shape depends on values (delete/insert positions, trim_zeros, compress
without ``size=``) those values must be concrete.
"""
from __future__ import annotations

import operator

import numpy as np

from xjax._src.foundations import dtypes

from xjax._src.core.concrete import concrete_or_error
from xjax._src.core.values import get_aval
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax.elementwise import convert_element_type, select_n
from xjax._src.libraries.numpy.arguments import canonical_axis, check_arraylike, is_traced
from xjax._src.libraries.numpy.composed_math import clip
from xjax._src.libraries.numpy.creation import arange, asarray, ones, zeros
from xjax._src.libraries.numpy.indexing import take
from xjax._src.libraries.numpy.nonzero import nonzero
from xjax._src.libraries.numpy.rearrange import diag_indices, tile, tril_indices, triu_indices
from xjax._src.libraries.numpy.setops import _compact
from xjax._src.libraries.numpy.shaping import (broadcast_arrays, broadcast_to, concatenate,
                                               moveaxis, ravel)
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
  ``fill_value`` or cut)."""
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.compress is not supported.")
  check_arraylike("compress", condition, a)
  cond = asarray(condition)
  if get_aval(cond).ndim != 1:
    raise ValueError("condition must be a 1D array")
  a = ravel(a) if axis is None else asarray(a)
  axis = canonical_axis(0 if axis is None else axis, get_aval(a).ndim)
  n, m = get_aval(a).shape[axis], get_aval(cond).shape[0]
  cond = cond != 0
  if m > n and not is_traced(cond) and _host(cond, "condition")[n:].any():
    raise ValueError("condition contains entries that are out of bounds")
  cond = cond[:n] if m >= n else concatenate([cond, zeros(n - m, bool)])
  if size is None:
    size = int(_host(cond, "condition argument of jnp.compress").sum())
  pos, valid = _compact(cond, int(size))
  taken = take(a, pos, axis=axis, mode="clip") if n else \
      zeros(get_aval(a).shape[:axis] + (int(size),) + get_aval(a).shape[axis + 1:],
                get_aval(a).dtype)
  shape = [1] * get_aval(a).ndim
  shape[axis] = int(size)
  return where(valid.reshape(shape), taken, asarray(fill_value, get_aval(a).dtype))


def extract(condition, arr, *, size=None, fill_value=0):
  """Elements of flattened ``arr`` where flattened ``condition`` is true."""
  return compress(ravel(condition), ravel(arr), size=size, fill_value=fill_value)


def _positions(obj, n, name):
  if isinstance(obj, slice):
    return np.arange(n)[obj]
  return _host(obj, f"obj argument of jnp.{name}")


def delete(arr, obj, axis=None, *, assume_unique_indices=False):
  """``arr`` without the entries at ``obj`` (int, int array or slice) along ``axis``."""
  check_arraylike("delete", arr)
  if not isinstance(obj, slice):
    check_arraylike("delete", obj)
  a = ravel(arr) if axis is None else asarray(arr)
  axis = canonical_axis(0 if axis is None else axis, get_aval(a).ndim)
  n = get_aval(a).shape[axis]
  if assume_unique_indices and is_traced(obj):
    obj = ravel(obj)
    keep = ones(n, bool).at[obj].set(False)
    pos, _ = _compact(keep, n - obj.shape[0])
    return take(a, pos, axis=axis)
  pos = _positions(obj, n, "delete")
  if pos.dtype == np.bool_:
    raise ValueError("jnp.delete(arr, obj): boolean obj is not supported")
  if np.any((pos < -n) | (pos >= n)):
    raise IndexError(f"index out of bounds for axis {axis} with size {n}")
  keep = np.ones(n, bool)
  keep[pos.ravel() % max(n, 1)] = False
  return take(a, np.flatnonzero(keep).astype(np.int32), axis=axis)


def insert(arr, obj, values, axis=None):
  """``arr`` with ``values`` inserted before the positions ``obj`` along ``axis``."""
  check_arraylike("insert", arr, values)
  a = ravel(arr) if axis is None else asarray(arr)
  axis = canonical_axis(0 if axis is None else axis, get_aval(a).ndim)
  shape = get_aval(a).shape
  n = shape[axis]
  pos = _positions(obj, n, "insert")
  if np.any((pos < -n) | (pos > n)):
    raise IndexError(f"index out of bounds for axis {axis} with size {n}")
  values = asarray(values).astype(get_aval(a).dtype)
  if pos.ndim == 0:
    values = moveaxis(values.reshape((1,) * (len(shape) - values.ndim) + values.shape)
                          if values.ndim < len(shape) else values, 0, axis)
    k = values.shape[axis]
  else:
    k = pos.size
  new_shape = shape[:axis] + (k,) + shape[axis + 1:]
  values = broadcast_to(values, new_shape)
  order = np.insert(np.arange(n), pos, np.arange(n, n + k))
  both = concatenate([a, values], axis=axis)
  return take(both, order.astype(np.int32), axis=axis)


@compiled_when_eager(static_argnames=("new_shape",), staged="resize")
def resize(a, new_shape):
  """``a`` flattened, repeated as needed, and reshaped to ``new_shape``."""
  check_arraylike("resize", a)
  new_shape = (new_shape,) if isinstance(new_shape, int) else tuple(new_shape)
  if any(d < 0 for d in new_shape):
    raise ValueError("all elements of `new_shape` must be non-negative")
  flat = ravel(a)
  total = int(np.prod(new_shape, dtype=np.int64))
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
  check_arraylike("trim_zeros", filt)
  a = asarray(filt)
  nz = _host(a, "filt argument of jnp.trim_zeros") != 0
  nd = nz.ndim
  if nd == 0:
    raise ValueError("trim_zeros requires at least a 1-D array")
  trim = trim.lower()
  axes = range(nd) if axis is None else [canonical_axis(x, nd) for x in np.atleast_1d(axis)]
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
  check_arraylike("fill_diagonal", a, val)
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
  shape = get_aval(asarray(arr)).shape
  if len(shape) < 2:
    raise ValueError("input array must be at least 2-d")
  if len(set(shape)) != 1:
    raise ValueError("All dimensions of input must be of equal length")
  return diag_indices(shape[0], len(shape))


def _indices_from(name, fn):
  def from_arr(arr, k=0):
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
