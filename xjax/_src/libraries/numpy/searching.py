"""Finding elements: argwhere, flatnonzero, count_nonzero, unique.

Their output sizes depend on values, so under jit they need a static ``size=``.
"""
from __future__ import annotations

import math
import operator

import numpy as np

from xjax._src.foundations import dtypes

from xjax._src.core.concrete import concrete_or_error
from xjax._src.core.values import get_aval
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax.elementwise import (bitwise_and, bitwise_not, convert_element_type,
                                                  ne)
from xjax._src.primitives.lax.shapes import concatenate, full, reshape
from xjax._src.libraries.numpy.arguments import check_arraylike, canonical_axis, arraylike
from xjax._src.libraries.numpy.composed_math import isnan
from xjax._src.libraries.numpy.creation import arange, asarray, full_like, ones, zeros
from xjax._src.libraries.numpy.cumulative import cumsum
from xjax._src.libraries.numpy.nonzero import _concrete, _nonzero_mask, nonzero
from xjax._src.libraries.numpy.reductions import any as _any, sum as _sum
from xjax._src.libraries.numpy.shaping import expand_dims, moveaxis, ravel, stack
from xjax._src.libraries.numpy.sorting import lexsort
from xjax._src.libraries.numpy.where import where


def flatnonzero(a, *, size=None, fill_value=None):
  check_arraylike("flatnonzero", a)
  return nonzero(ravel(asarray(a)), size=size, fill_value=fill_value)[0]


def argwhere(a, *, size=None, fill_value=None):
  """(N, ndim) indices of the nonzero elements."""
  check_arraylike("argwhere", a)
  a = asarray(a)
  if get_aval(a).ndim == 0:
    (idx,) = nonzero(reshape(a, (1,)), size=size, fill_value=fill_value)
    return reshape(idx[:0], (get_aval(idx).shape[0], 0))   # (the indices' type kept)
  return stack(nonzero(a, size=size, fill_value=fill_value), axis=1)


@compiled_when_eager(staged="count_nonzero",
                     static_argnames=("axis", "keepdims"), hashable_statics=True)
def count_nonzero(a, axis=None, keepdims=False):
  a, = arraylike("count_nonzero", a)
  return _sum(_nonzero_mask(asarray(a)), axis=axis, keepdims=keepdims,
              dtype=dtypes.default_int_dtype())


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None,
           *, equal_nan=True, size=None, fill_value=None, sorted=True):
  """Sorted unique elements (flattened unless ``axis``) and optionally the index of each
  one's first occurrence, the inverse map and the counts. With a static ``size=`` it
  traces (so it works under jit and vmap): values padded with ``fill_value`` (default: the
  smallest), counts with 0."""
  del sorted  # always sorted, as in JAX
  ar, = arraylike("unique", ar)
  arr = asarray(ar)
  if size is None:
    _concrete(arr, "unique")
  else:
    size = operator.index(concrete_or_error(size, "size"))
  shape = get_aval(arr).shape
  if axis is None:
    axis_int, arr = 0, ravel(arr)
  else:
    axis_int = canonical_axis(axis, len(shape))
  out = _unique(arr, axis_int, return_index, return_inverse, return_counts, equal_nan, size,
                fill_value)
  if return_inverse and axis is None:
    k = 2 if return_index else 1
    out = (*out[:k], reshape(out[k], shape), *out[k + 1:])
  return out


@compiled_when_eager(staged="_unique_sorted_mask", static_argnames=("axis", "equal_nan"))
def _unique_sorted_mask(ar, axis, equal_nan):
  """(the slices along ``axis`` sorted lexicographically, a mask of each first
  occurrence, the sorting permutation)."""
  aux = moveaxis(ar, axis, 0)
  if dtypes.is_complex(get_aval(aux).dtype):  # NaN only in the imaginary part sorts as NaN
    aux = where(isnan(aux), np.asarray(np.nan, get_aval(aux).dtype)[()], aux)
  n, *rest = get_aval(aux).shape
  if math.prod(rest) == 0:
    n, perm = 1, zeros(1, dtype=dtypes.default_int_dtype())
  else:
    perm = lexsort(reshape(aux, (n, math.prod(rest))).T[::-1])
  aux = aux[perm]
  if get_aval(aux).size:
    ones_ = ones(n, dtype=bool)
    a, b = aux[1:], aux[:-1]
    neq = ne(a, b)
    if equal_nan and dtypes.is_inexact(get_aval(aux).dtype):
      neq = bitwise_and(neq, bitwise_not(bitwise_and(isnan(a), isnan(b))))
    mask = ones_.at[1:].set(_any(neq, tuple(range(1, get_aval(aux).ndim))))
  else:
    mask = zeros(n, dtype=bool)
  return aux, mask, perm


def _unique(ar, axis, return_index, return_inverse, return_counts, equal_nan, size,
            fill_value):
  if get_aval(ar).shape[axis] == 0 and size and fill_value is None:
    raise ValueError("jnp.unique: for zero-sized input with nonzero size argument, "
                     "fill_value must be specified")
  aux, mask, perm = _unique_sorted_mask(ar, axis, equal_nan)
  ind = nonzero(mask, size=size)[0]
  nonempty = bool(get_aval(aux).size)
  result = aux[ind] if nonempty else aux
  if size is not None and fill_value is not None:
    fill = convert_element_type(asarray(fill_value), get_aval(result).dtype)
    if get_aval(result).shape[0]:
      valid = expand_dims(arange(size) < _sum(mask), tuple(range(1, get_aval(result).ndim)))
      result = where(valid, result, fill)
    else:
      result = full_like(result, fill, shape=(size, *get_aval(result).shape[1:]))
  out = [moveaxis(result, 0, axis)]
  int_dtype = dtypes.default_int_dtype()
  if return_index:
    out.append(perm[ind] if nonempty else perm)
  if return_inverse:
    if nonempty:
      out.append(zeros(get_aval(mask).shape, int_dtype).at[perm].set(cumsum(mask) - 1))
    else:
      out.append(zeros(get_aval(ar).shape[axis], int_dtype))
  if return_counts:
    n = get_aval(mask).shape[0]
    if nonempty:
      if size is None:
        idx = concatenate([nonzero(mask)[0], full((1,), n, int_dtype)], 0)
      else:
        idx = nonzero(mask, size=size + 1)[0]
        idx = idx.at[1:].set(where(idx[1:], idx[1:], n))
      out.append(idx[1:] - idx[:-1])
    elif get_aval(ar).shape[axis]:
      out.append(full((1,), get_aval(ar).shape[axis], int_dtype))
    else:
      out.append(zeros(0, int_dtype))
  return out[0] if len(out) == 1 else tuple(out)


def unique_values(x, /, *, size=None, fill_value=None):
  return unique(x, equal_nan=False, size=size, fill_value=fill_value)
