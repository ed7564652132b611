"""Finding elements: argwhere, flatnonzero, count_nonzero, unique.

Their output sizes depend on values, so under jit they need a static ``size=``.
"""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes

from xjax._src.core.values import get_aval
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax.elementwise import (bitwise_and, bitwise_not, convert_element_type,
                                                  ne, select_n)
from xjax._src.primitives.lax.shapes import (broadcast_in_dim, concatenate, full, index_in_dim,
                                             reshape, slice_in_dim)
from xjax._src.libraries.numpy.arguments import check_arraylike
from xjax._src.libraries.numpy.creation import asarray
from xjax._src.libraries.numpy.nonzero import _compact, _concrete, _nonzero_mask, nonzero
from xjax._src.libraries.numpy.padding import pad
from xjax._src.libraries.numpy.rearrange import _take_along
from xjax._src.libraries.numpy.reductions import sum as _sum
from xjax._src.libraries.numpy.shaping import ravel, stack
from xjax._src.libraries.numpy.sorting import sort


def flatnonzero(a, *, size=None, fill_value=None):
  return nonzero(ravel(asarray(a)), size=size, fill_value=fill_value)[0]


def argwhere(a, *, size=None, fill_value=None):
  """(N, ndim) indices of the nonzero elements."""
  a = asarray(a)
  if get_aval(a).ndim == 0:
    (idx,) = nonzero(reshape(a, (1,)), size=size, fill_value=fill_value)
    return full((get_aval(idx).shape[0], 0), 0, get_aval(idx).dtype)
  return stack(nonzero(a, size=size, fill_value=fill_value), axis=1)


@compiled_when_eager(staged="count_nonzero",
                     static_argnames=("axis", "keepdims"), hashable_statics=True)
def count_nonzero(a, axis=None, keepdims=False):
  check_arraylike("count_nonzero", a)
  return _sum(_nonzero_mask(asarray(a)), axis=axis, keepdims=keepdims,
              dtype=dtypes.default_int_dtype())


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None,
           *, equal_nan=True, size=None, fill_value=None, sorted=True):
  """Sorted unique elements (flattened unless ``axis``); with ``size=``, padded with
  ``fill_value``. Index/inverse/count outputs and ``axis`` need a concrete input."""
  check_arraylike("unique", ar)
  ar = asarray(ar)
  if size is None or axis is not None or return_index or return_inverse or return_counts:
    host = _concrete(ar, "unique")
    res = np.unique(host, return_index=return_index, return_inverse=return_inverse,
                    return_counts=return_counts, axis=axis, equal_nan=equal_nan)
    if not isinstance(res, tuple):
      res = (res,)
    aval = get_aval(ar)  # the values keep the input's dtype and weak type (as JAX)
    vals = [convert_element_type(asarray(res[0]), aval.dtype, aval.weak_type)] + [
        asarray(r.astype(dtypes.default_int_dtype())) for r in res[1:]]
    if size is not None:
      vals = _pad_unique(vals, axis, int(size), fill_value, return_index, return_inverse)
    return tuple(vals) if len(vals) > 1 else vals[0]
  ar = ravel(ar)
  s = sort(ar)
  n = get_aval(s).shape[0]
  if n == 0:
    return full((size,), 0 if fill_value is None else fill_value, get_aval(s).dtype)
  diff = ne(slice_in_dim(s, 1, n), slice_in_dim(s, 0, n - 1))
  if equal_nan and dtypes.is_inexact(get_aval(s).dtype):
    both_nan = bitwise_and(ne(slice_in_dim(s, 1, n), slice_in_dim(s, 1, n)),
                               ne(slice_in_dim(s, 0, n - 1),
                                      slice_in_dim(s, 0, n - 1)))
    diff = bitwise_and(diff, bitwise_not(both_nan))
  first = concatenate([full((1,), True, np.bool_), diff], 0)
  pos, valid = _compact(first, size)
  vals = _take_along(s, convert_element_type(pos, np.int32), 0)
  fill = index_in_dim(s, 0, 0, keepdims=False) if fill_value is None else fill_value
  return select_n(valid, _broadcast(fill, vals), vals)


def _pad_unique(vals, axis, size, fill_value, return_index, return_inverse):
  """Host-computed unique outputs cut or padded to ``size`` along the unique axis: values
  with ``fill_value`` (default: the first unique), indices with the first index, counts
  with 0."""
  out = []
  for k, v in enumerate(vals):
    ax = 0 if k or axis is None else axis
    n = get_aval(v).shape[ax]
    if (return_inverse and k == 1 + bool(return_index)) or n == 0:
      out.append(v)
    elif n >= size:
      out.append(slice_in_dim(v, 0, size, axis=ax))
    elif (k == 0 and fill_value is None) or (k == 1 and return_index):
      first = slice_in_dim(v, 0, 1, axis=ax)
      out.append(concatenate([v] + [first] * (size - n), ax))
    else:
      widths = [(0, 0)] * get_aval(v).ndim
      widths[ax] = (0, size - n)
      out.append(pad(v, widths, constant_values=fill_value if k == 0 else 0))
  return out


def _broadcast(fill, like):
  return broadcast_in_dim(convert_element_type(asarray(fill), get_aval(like).dtype),
                              get_aval(like).shape, ())


def unique_values(x, /, *, size=None, fill_value=None):
  return unique(x, size=size, fill_value=fill_value)
