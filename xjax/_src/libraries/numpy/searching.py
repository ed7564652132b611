"""Finding elements: nonzero, argwhere, flatnonzero, count_nonzero, unique.

Their output sizes depend on values, so under jit they need a static ``size=``.
"""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes

from xjax._src.core.concrete import concrete_or_error
from xjax._src.core.values import get_aval
from xjax._src.api.jit import compiled_when_eager
from xjax._src.primitives.lax import cumulative as lax_cum
from xjax._src.primitives.lax import lax
from xjax._src.libraries.numpy.creation import asarray
from xjax._src.libraries.numpy.shaping import ravel
from xjax._src.libraries.numpy.arguments import check_arraylike


def _nonzero_mask(a):
  aval = get_aval(a)
  return a if aval.dtype == np.bool_ else lax.ne(a, np.zeros((), aval.dtype)[()])


def _concrete(x, name):
  return np.asarray(concrete_or_error(
      x, f"argument of jnp.{name}(). The size argument of jnp.{name} must be statically "
      f"specified to use jnp.{name} within JAX transformations; pass size="))


def _compact(mask, size):
  """Positions of the first ``size`` True entries of 1-D ``mask`` and a validity mask."""
  n = get_aval(mask).shape[0]
  idt = dtypes.default_int_dtype()
  if n == 0 or size == 0:
    return lax.full((size,), 0, idt), lax.full((size,), False, np.bool_)
  rank = lax_cum.cumsum(lax.convert_element_type(mask, idt), 0)
  # Entry i goes to slot rank[i] - 1 when it is True; others aim past the end and drop.
  slot = lax.select_n(mask, lax.full((n,), size, idt), lax.sub(rank, np.asarray(1, idt)[()]))
  pos = lax.full((size,), 0, idt).at[slot].set(lax.iota(idt, n), mode="drop")
  total = lax.index_in_dim(rank, n - 1, 0, keepdims=False)
  return pos, lax.lt(lax.iota(idt, size), total)


def nonzero(a, *, size=None, fill_value=None):
  """Indices of the nonzero elements, one array per dimension."""
  check_arraylike("nonzero", a)
  a = asarray(a)
  aval = get_aval(a)
  if aval.ndim == 0:
    raise ValueError("Calling nonzero on 0d arrays is not allowed. Use "
                     "jnp.atleast_1d(scalar).nonzero() instead.")
  if size is None:
    host = _concrete(a, "nonzero")
    return tuple(asarray(i.astype(dtypes.default_int_dtype())) for i in np.nonzero(host))
  size = int(concrete_or_error(size, "size argument of jnp.nonzero"))
  pos, valid = _compact(ravel(_nonzero_mask(a)), size)
  coords = _unravel(pos, aval.shape)
  fills = fill_value if isinstance(fill_value, (tuple, list)) else \
      (0 if fill_value is None else fill_value,) * aval.ndim
  return tuple(lax.select_n(valid, lax.full_like(c, f), c) for c, f in zip(coords, fills))


def _unravel(flat, shape):
  out = []
  for i, d in enumerate(shape):
    stride = int(np.prod(shape[i + 1:], dtype=np.int64))
    c = lax.div(flat, np.asarray(stride, get_aval(flat).dtype)[()]) if stride != 1 else flat
    out.append(lax.rem(c, np.asarray(max(d, 1), get_aval(flat).dtype)[()]))
  return out


def flatnonzero(a, *, size=None, fill_value=None):
  return nonzero(ravel(asarray(a)), size=size, fill_value=fill_value)[0]


def argwhere(a, *, size=None, fill_value=None):
  """(N, ndim) indices of the nonzero elements."""
  from xjax._src.libraries.numpy.shaping import stack
  a = asarray(a)
  if get_aval(a).ndim == 0:
    (idx,) = nonzero(lax.reshape(a, (1,)), size=size, fill_value=fill_value)
    return lax.full((get_aval(idx).shape[0], 0), 0, get_aval(idx).dtype)
  return stack(nonzero(a, size=size, fill_value=fill_value), axis=1)


@compiled_when_eager(staged="count_nonzero",
                     static_argnames=("axis", "keepdims"), hashable_statics=True)
def count_nonzero(a, axis=None, keepdims=False):
  from xjax._src.libraries.numpy.reductions import sum as _sum
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
    vals = [lax.convert_element_type(asarray(res[0]), aval.dtype, aval.weak_type)] + [
        asarray(r.astype(dtypes.default_int_dtype())) for r in res[1:]]
    if size is not None:
      vals = _pad_unique(vals, axis, int(size), fill_value, return_index, return_inverse)
    return tuple(vals) if len(vals) > 1 else vals[0]
  ar = ravel(ar)
  from xjax._src.libraries.numpy.sorting import sort
  s = sort(ar)
  n = get_aval(s).shape[0]
  if n == 0:
    return lax.full((size,), 0 if fill_value is None else fill_value, get_aval(s).dtype)
  diff = lax.ne(lax.slice_in_dim(s, 1, n), lax.slice_in_dim(s, 0, n - 1))
  if equal_nan and dtypes.is_inexact(get_aval(s).dtype):
    both_nan = lax.bitwise_and(lax.ne(lax.slice_in_dim(s, 1, n), lax.slice_in_dim(s, 1, n)),
                               lax.ne(lax.slice_in_dim(s, 0, n - 1),
                                      lax.slice_in_dim(s, 0, n - 1)))
    diff = lax.bitwise_and(diff, lax.bitwise_not(both_nan))
  first = lax.concatenate([lax.full((1,), True, np.bool_), diff], 0)
  pos, valid = _compact(first, size)
  from xjax._src.libraries.numpy.rearrange import _take_along
  vals = _take_along(s, lax.convert_element_type(pos, np.int32), 0)
  fill = lax.index_in_dim(s, 0, 0, keepdims=False) if fill_value is None else fill_value
  return lax.select_n(valid, _broadcast(fill, vals), vals)


def _pad_unique(vals, axis, size, fill_value, return_index, return_inverse):
  """Host-computed unique outputs cut or padded to ``size`` along the unique axis: values
  with ``fill_value`` (default: the first unique), indices with the first index, counts
  with 0."""
  from xjax._src.libraries.numpy.padding import pad
  out = []
  for k, v in enumerate(vals):
    ax = 0 if k or axis is None else axis
    n = get_aval(v).shape[ax]
    if (return_inverse and k == 1 + bool(return_index)) or n == 0:
      out.append(v)
    elif n >= size:
      out.append(lax.slice_in_dim(v, 0, size, axis=ax))
    elif (k == 0 and fill_value is None) or (k == 1 and return_index):
      first = lax.slice_in_dim(v, 0, 1, axis=ax)
      out.append(lax.concatenate([v] + [first] * (size - n), ax))
    else:
      widths = [(0, 0)] * get_aval(v).ndim
      widths[ax] = (0, size - n)
      out.append(pad(v, widths, constant_values=fill_value if k == 0 else 0))
  return out


def _broadcast(fill, like):
  return lax.broadcast_in_dim(lax.convert_element_type(asarray(fill), get_aval(like).dtype),
                              get_aval(like).shape, ())


def unique_values(x, /, *, size=None, fill_value=None):
  return unique(x, size=size, fill_value=fill_value)
