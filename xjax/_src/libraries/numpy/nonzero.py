"""``nonzero``: the indices of an array's nonzero elements, and the compaction of a mask
into positions it is built on (``where``'s one-argument form, ``argwhere``, set operations).

Its output size depends on values, so under jit it needs a static ``size=``.
"""
from __future__ import annotations

import math

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.foundations.sharding import ShardingTypeError
from xjax._src.core.concrete import concrete_or_error, max_dim
from xjax._src.core.values import get_aval
from xjax._src.primitives.lax import cumulative as lax_cum
from xjax._src.primitives.lax.dimension_values import dimension_constant
from xjax._src.primitives.lax.elementwise import (convert_element_type, div, lt, ne, rem, select_n,
                                                  sub)
from xjax._src.primitives.lax.shapes import full, full_like, index_in_dim, iota
from xjax._src.libraries.numpy.arguments import arraylike
from xjax._src.libraries.numpy.creation import asarray
from xjax._src.libraries.numpy.promotion import promote_dtypes
from xjax._src.libraries.numpy.shaping import ravel


def _nonzero_mask(a):
  aval = get_aval(a)
  return a if aval.dtype == np.bool_ else ne(a, np.zeros((), aval.dtype)[()])


def _concrete(x, name):
  return np.asarray(concrete_or_error(
      x, f"argument of jnp.{name}(). The size argument of jnp.{name} must be statically "
      f"specified to use jnp.{name} within JAX transformations; pass size="))


def _compact(mask, size):
  """Positions of the first ``size`` True entries of 1-D ``mask`` and a validity mask."""
  n = get_aval(mask).shape[0]
  idt = dtypes.default_int_dtype()
  if n == 0 or size == 0:
    return full((size,), 0, idt), full((size,), False, np.bool_)
  rank = lax_cum.cumsum(convert_element_type(mask, idt), 0)
  # Entry i goes to slot rank[i] - 1 when it is True; others aim past the end and drop.
  slot = select_n(mask, full((n,), size, idt), sub(rank, np.asarray(1, idt)[()]))
  pos = full((size,), 0, idt).at[slot].set(iota(idt, n), mode="drop")
  total = index_in_dim(rank, n - 1, 0, keepdims=False)
  return pos, lt(iota(idt, size), total)


def nonzero(a, *, size=None, fill_value=None):
  """Indices of the nonzero elements, one array per dimension."""
  a, = arraylike("nonzero", a)
  a = asarray(a)
  aval = get_aval(a)
  if aval.ndim == 0:
    raise ValueError("Calling nonzero on 0d arrays is not allowed. Use "
                     "jnp.atleast_1d(scalar).nonzero() instead.")
  if size is None:
    host = _concrete(a, "nonzero")
    return tuple(asarray(i.astype(dtypes.default_int_dtype())) for i in np.nonzero(host))
  size = int(concrete_or_error(size, "size argument of jnp.nonzero"))
  mask = _nonzero_mask(a)
  if aval._sharding is not None and size and aval.size:  # (JAX's count is a flat cumsum)
    raise ShardingTypeError("The input should be fully replicated when axis is not specified "
                            f"to cumsum. Got input type={get_aval(mask)}")
  pos, valid = _compact(ravel(mask), size)
  coords = _unravel(pos, aval.shape)
  if fill_value is None or not size or not aval.size:  # (JAX pads with zeros then)
    return tuple(coords)
  fills = fill_value if isinstance(fill_value, tuple) else (fill_value,) * aval.ndim
  if any(np.shape(f) != () for f in fills):
    raise ValueError(f"fill_value must be a scalar or a tuple of length {aval.ndim}; "
                     f"got {fill_value}")
  if len(fills) != aval.ndim:
    raise ValueError(f"fill_value has {len(fills)} entries; nonzero of a {aval.ndim}-d array "
                     f"needs {aval.ndim} (one per dimension)")
  # The padding takes the fill value's type: the dtype promoted from the index dtype and
  # the fill value's (a Python float gives weak float32 indices, as JAX's ``where`` does).
  out = []
  for c, f in zip(coords, fills):
    f, c = promote_dtypes(f, c)
    out.append(select_n(valid, full_like(c, f), c))
  return tuple(out)


def _unravel(flat, shape):
  out = []
  for i, d in enumerate(shape):
    dt = get_aval(flat).dtype
    stride = math.prod(shape[i + 1:])
    c = div(flat, dimension_constant(stride, dt)) if stride != 1 else flat
    out.append(rem(c, dimension_constant(max_dim(d, 1), dt)))
  return out
