"""Set operations on 1-D arrays: isin, intersect1d, union1d, setdiff1d, setxor1d and the
Array API ``unique_*`` family.

All are built on one sorted pass: sort the values, mark each run's first element, then
compact the marked entries. Output sizes depend on values, so under jit they need a
static ``size=`` (padded with ``fill_value``); without it the size is read eagerly.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from xjax._src.foundations import dtypes

from xjax._src.core.concrete import concrete_or_error
from xjax._src.core.trace import Tracer
from xjax._src.core.values import get_aval
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax import cumulative as lax_cum
from xjax._src.primitives.lax.elementwise import (bitwise_and, bitwise_not, bitwise_or,
                                                  convert_element_type, ne, select_n,
                                                  sub)
from xjax._src.primitives.lax.shapes import (broadcast_in_dim, concatenate, full, full_like,
                                             index_in_dim, reshape, slice_in_dim)
from xjax._src.primitives.lax.sorting import sort as lax_sort
from xjax._src.libraries.numpy.arguments import arraylike
from xjax._src.libraries.numpy.creation import asarray
from xjax._src.libraries.numpy.nonzero import _compact as _compact_nonempty
from xjax._src.libraries.numpy.promotion import promote_dtypes
from xjax._src.libraries.numpy.rearrange import _take_along
from xjax._src.libraries.numpy.reductions import all as _all, any as _any, max as _max, min as _min
from xjax._src.libraries.numpy.shaping import ravel
from xjax._src.libraries.numpy.sorting import argsort, searchsorted, sort
from xjax._src.libraries.numpy.ufuncs import equal, not_equal


class _UniqueAllResult(NamedTuple):
  values: object
  indices: object
  inverse_indices: object
  counts: object


class _UniqueCountsResult(NamedTuple):
  values: object
  counts: object


class _UniqueInverseResult(NamedTuple):
  values: object
  inverse_indices: object


def _idx(x):
  return convert_element_type(x, dtypes.default_int_dtype())


def _compact(mask, size):
  """Positions of the first ``size`` True entries of ``mask`` and their validity."""
  if size == 0:
    idt = dtypes.default_int_dtype()
    return full((0,), 0, idt), full((0,), False, np.bool_)
  return _compact_nonempty(mask, size)


def _firsts(s, equal_nan=False):
  """True where sorted 1-D ``s`` starts a new run of equal values (NaNs forming one run
  with ``equal_nan``)."""
  n = get_aval(s).shape[0]
  if n == 0:
    return full((0,), True, np.bool_)
  nxt, prev = slice_in_dim(s, 1, n), slice_in_dim(s, 0, n - 1)
  diff = ne(nxt, prev)
  if equal_nan and dtypes.is_inexact(get_aval(s).dtype):
    both_nan = bitwise_and(ne(nxt, nxt), ne(prev, prev))
    diff = bitwise_and(diff, bitwise_not(both_nan))
  return concatenate([full((1,), True, np.bool_), diff], 0)


def _size(name, mask, size):
  """The static output size: ``size`` or, eagerly, the number of True entries of mask."""
  if size is not None:
    return int(concrete_or_error(size, f"size argument of jnp.{name}"))
  host = concrete_or_error(
      mask, f"argument of jnp.{name}(). The size argument of jnp.{name} must be statically "
      f"specified to use jnp.{name} within JAX transformations; pass size=")
  return int(np.sum(np.asarray(host)))


def _unsized(name, size, *arrays):
  """``arrays``; without ``size``, their concrete values, as JAX reads them there (so no
  derivative flows through the result), or JAX's ConcretizationTypeError when traced."""
  if size is not None:
    return arrays
  return tuple(concrete_or_error(
      a, f"argument of jnp.{name}(). The size argument of jnp.{name} must be statically "
      f"specified to use jnp.{name} within JAX transformations; pass size=")
      if isinstance(a, Tracer) else a for a in arrays)


def _gather(x, pos):
  return _take_along(x, convert_element_type(pos, np.int32), 0)


def _fill(valid, vals, fill):
  fill = convert_element_type(asarray(fill), get_aval(vals).dtype)
  return select_n(valid, broadcast_in_dim(fill, get_aval(vals).shape, ()), vals)


def _select(name, s, keep, size, fill_value, default_first=True):
  """The kept entries of sorted ``s``, compacted to ``size`` and padded with
  ``fill_value`` (default: the first kept value, or 0)."""
  size = _size(name, keep, size)
  pos, valid = _compact(keep, size)
  vals = _gather(s, pos)
  if fill_value is None:
    if not default_first or size == 0 or get_aval(s).shape[0] == 0:
      fill_value = 0
    else:
      fill_value = index_in_dim(vals, 0, 0, keepdims=False)
  return _fill(valid, vals, fill_value)


def isin(element, test_elements, assume_unique=False, invert=False, *, method="auto"):
  """Whether each element of ``element`` occurs in ``test_elements``."""
  element, test_elements = arraylike("isin", element, test_elements)
  element = asarray(element)
  found = _in1d(element, asarray(test_elements), invert=invert, method=method,
                assume_unique=assume_unique)
  return reshape(found, get_aval(element).shape)


@compiled_when_eager(staged="_in1d", static_argnames=("invert", "method", "assume_unique"))
def _in1d(ar1, ar2, invert, method="auto", assume_unique=False):
  """Membership of each element of ravelled ``ar1`` in ``ar2`` (negated with ``invert``),
  by comparing all pairs or by a binary search of sorted ``ar2``."""
  arr1, arr2 = promote_dtypes(ar1, ar2)
  arr1, arr2 = ravel(arr1), ravel(arr2)
  if method not in ("auto", "compare_all", "binary_search", "sort"):
    raise ValueError(f"{method=} is not implemented; options are "
                     "'compare_all', 'binary_search', 'sort', and 'auto'")
  if get_aval(arr1).size == 0 or get_aval(arr2).size == 0:
    return full(get_aval(arr1).shape, invert, np.bool_)
  if method == "binary_search":
    arr2 = lax_sort(arr2)
    hit = arr2[searchsorted(arr2, arr1)]
    return not_equal(arr1, hit) if invert else equal(arr1, hit)
  # "sort" finds the same members; it is computed by comparing all pairs
  if invert:
    return _all(not_equal(arr1[:, None], arr2[None, :]), axis=-1)
  return _any(equal(arr1[:, None], arr2[None, :]), axis=-1)


def _sorted(name, *arrays):
  arrays = arraylike(name, *arrays)
  flat = promote_dtypes(*[ravel(asarray(a)) for a in arrays])
  return flat, sort(concatenate(flat, 0) if len(flat) > 1 else flat[0])


def union1d(ar1, ar2, *, size=None, fill_value=None):
  """Sorted unique values found in either input."""
  _, s = _sorted("union1d", *_unsized("union1d", size, ar1, ar2))
  return _select("union1d", s, _firsts(s, equal_nan=True), size, fill_value)


def setdiff1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
  """Sorted unique values of ``ar1`` not in ``ar2`` (padding defaults to 0)."""
  ar1, ar2 = arraylike("setdiff1d", ar1, ar2)
  ar1, ar2 = _unsized("setdiff1d", size, ar1, ar2)
  a, b = ravel(asarray(ar1)), ravel(asarray(ar2))  # (isin promotes: the result is ar1's)
  s = _gather(a, argsort(a))
  keep = bitwise_and(_firsts(s, equal_nan=True), isin(s, b, invert=True))
  return _select("setdiff1d", s, keep, size, fill_value, default_first=False)


def setxor1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
  """Sorted unique values found in exactly one input: JAX's way, the unique values of both
  sorted together and those equal to neither neighbour kept (so a NaN of each input stays)."""
  ar1, ar2 = arraylike("setxor1d", ar1, ar2)
  ar1, ar2 = _unsized("setxor1d", size, ar1, ar2)
  a, b = (sort(x) for x in promote_dtypes(ravel(asarray(ar1)), ravel(asarray(ar2))))
  both = concatenate([a, b], 0)
  n = get_aval(both).shape[0]
  if assume_unique or n == 0:
    unique = full((n,), True, np.bool_)
  else:
    unique = concatenate([_firsts(a, equal_nan=True), _firsts(b, equal_nan=True)], 0)
  # the unique values first, in order, then the repeats
  repeat, s = lax_sort((bitwise_not(unique), both), num_keys=2)
  if n < 2:
    return _select("setxor1d", s, bitwise_not(repeat), size, fill_value)
  differ = ne(slice_in_dim(s, 1, n), slice_in_dim(s, 0, n - 1))
  after = concatenate([full((1,), True, np.bool_), differ], 0)
  before = concatenate([bitwise_or(differ, slice_in_dim(repeat, 1, n)),
                            full((1,), True, np.bool_)], 0)
  keep = bitwise_and(bitwise_not(repeat), bitwise_and(after, before))
  if fill_value is None:   # the smallest value of the result (NaN if it holds one), else 0
    dt = get_aval(s).dtype
    top = full_like(s, np.inf if dtypes.is_inexact(dt) else
                        True if dt == np.bool_ else dtypes.iinfo(dt).max)
    fill_value = select_n(_max(keep), full((), 0, dt), _min(select_n(keep, top, s)))
  return _select("setxor1d", s, keep, size, fill_value)


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False, *, size=None,
                fill_value=None):
  """Sorted unique values found in both inputs; with ``return_indices``, also the index of
  each value's first occurrence in each (padded with the input lengths)."""
  ar1, ar2 = arraylike("intersect1d", ar1, ar2)
  ar1, ar2 = _unsized("intersect1d", size, ar1, ar2)
  a, b = promote_dtypes(ravel(asarray(ar1)), ravel(asarray(ar2)))
  perm1 = argsort(a)
  s1 = _gather(a, perm1)
  keep = bitwise_and(_firsts(s1), isin(s1, b))
  int32_indices = assume_unique and size is None   # (JAX's dtype for these indices)
  size = _size("intersect1d", keep, size)
  pos, valid = _compact(keep, size)
  vals = _gather(s1, pos)
  if fill_value is None:
    fill_value = index_in_dim(vals, 0, 0, keepdims=False) if size else 0
  vals = _fill(valid, vals, fill_value)
  if not return_indices:
    return vals
  n1, n2 = get_aval(a).shape[0], get_aval(b).shape[0]
  perm2 = argsort(b)
  i1 = _fill(valid, _gather(perm1, pos), n1)
  i2 = _fill(valid, _gather(perm2, searchsorted(_gather(b, perm2), vals)), n2)
  if int32_indices and n1 + n2 <= np.iinfo(np.int32).max:
    i1, i2 = i1.astype(np.int32), i2.astype(np.int32)
  return vals, i1, i2


def _unique_parts(name, x, size, fill_value):
  """Sorted unique values of flattened ``x`` with first indices, inverse and counts."""
  x, = arraylike(name, x)
  (x,) = _unsized(name, size, x)
  x = asarray(x)
  flat = ravel(x)
  n = get_aval(flat).shape[0]
  perm = argsort(flat)
  s = _gather(flat, perm)
  first = _firsts(s)
  size = _size(name, first, size)
  pos, valid = _compact(first, size)
  vals = _gather(s, pos)
  default = index_in_dim(vals, 0, 0, keepdims=False) if size and n else 0
  vals = _fill(valid, vals, default if fill_value is None else fill_value)
  # The values keep x's weak type, as JAX's (but for complex ones, which JAX sorts by their
  # parts into strong arrays).
  if fill_value is None and get_aval(x).weak_type and get_aval(x).dtype.kind != "c":
    vals = convert_element_type(vals, get_aval(vals).dtype, weak_type=True)
  idx = _gather(perm, pos)
  idx = _fill(valid, idx, index_in_dim(idx, 0, 0, keepdims=False) if size and n else 0)
  # Run ends: the next run's start, or n for the last run.
  nxt = concatenate([slice_in_dim(pos, 1, size), full((1,), n, get_aval(pos).dtype)],
                        0) if size else pos
  nxt = select_n(concatenate([slice_in_dim(valid, 1, size),
                                      full((1,), False, np.bool_)], 0) if size else valid,
                     full_like(nxt, n), nxt)
  counts = _fill(valid, sub(nxt, pos), 0)
  run = sub(lax_cum.cumsum(_idx(first), 0), np.asarray(1, dtypes.default_int_dtype())[()])
  inv = full((n,), 0, get_aval(run).dtype).at[perm].set(run) if n else run
  return vals, _idx(idx), reshape(inv, get_aval(x).shape), _idx(counts)


def unique_all(x, /, *, size=None, fill_value=None):
  """Unique values with first indices, inverse indices (shaped like ``x``) and counts."""
  return _UniqueAllResult(*_unique_parts("unique_all", x, size, fill_value))


def unique_counts(x, /, *, size=None, fill_value=None):
  vals, _, _, counts = _unique_parts("unique_counts", x, size, fill_value)
  return _UniqueCountsResult(vals, counts)


def unique_inverse(x, /, *, size=None, fill_value=None):
  vals, _, inv, _ = _unique_parts("unique_inverse", x, size, fill_value)
  return _UniqueInverseResult(vals, inv)
