"""Batched matrix helpers for the linear-algebra rules: every array is ``(..., m, n)``."""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.values import get_aval
from xjax._src.primitives.lax.dot import dot_general
from xjax._src.primitives.lax.elementwise import (add, conj as lax_conj, convert_element_type, div,
                                                  eq, ge, le, mul, real as lax_real, select)
from xjax._src.primitives.lax.reductions import reduce_sum
from xjax._src.primitives.lax.shapes import (broadcast_in_dim, broadcasted_iota, full as lax_full,
                                             reshape, slice as lax_slice, transpose)
from xjax._src.primitives.lax.gather_scatter import (GatherDimensionNumbers, GatherScatterMode,
                                                     gather)
from xjax._src.primitives.lax.sorting import sort_key_val


def shape(x) -> tuple:
  return get_aval(x).shape


def dtype(x):
  return get_aval(x).dtype


def mT(x):
  """Swaps the two trailing dimensions."""
  nd = get_aval(x).ndim
  return transpose(x, tuple(range(nd - 2)) + (nd - 1, nd - 2))


def mH(x):
  """The conjugate transpose of each matrix."""
  x = mT(x)
  return lax_conj(x) if dtypes.is_complex(dtype(x)) else x


def matmul(a, b):
  """``a @ b`` for equal leading batch dimensions, at the highest precision."""
  nb = get_aval(a).ndim - 2
  batch = tuple(range(nb))
  return dot_general(a, b, (((nb + 1,), (nb,)), (batch, batch)), precision="highest")


def _index_mask(x_shape, k: int, cmp):
  rows = broadcasted_iota(np.int32, x_shape, len(x_shape) - 2)
  cols = broadcasted_iota(np.int32, x_shape, len(x_shape) - 1)
  return cmp(add(rows, np.int32(k)), cols)


def tril(x, k: int = 0):
  """The lower triangle (on and below diagonal ``k``); zeros elsewhere."""
  s = shape(x)
  return select(_index_mask(s, k, ge), x, lax_full(s, 0, dtype(x)))


def triu(x, k: int = 0):
  """The upper triangle (on and above diagonal ``k``); zeros elsewhere."""
  s = shape(x)
  return select(_index_mask(s, k, le), x, lax_full(s, 0, dtype(x)))


def eye(dt, s: tuple):
  """Identity matrices of shape ``s`` (batch dims included)."""
  return convert_element_type(_index_mask(s, 0, eq), dt)


def diagonal(x):
  """The main diagonals, shape ``(..., min(m, n))``."""
  s = shape(x)
  k = min(s[-2:])
  sq = lax_slice(x, (0,) * len(s), s[:-2] + (k, k))
  return reduce_sum(mul(sq, eye(dtype(x), s[:-2] + (k, k))), (len(s) - 1,))


def diag(v):
  """Square matrices with ``v`` (shape ``(..., k)``) on the diagonal."""
  s = shape(v)
  full = s + (s[-1],)
  return mul(broadcast_in_dim(v, full, tuple(range(len(s)))), eye(dtype(v), full))


def symmetrize(x):
  """``(x + x^H) / 2``; integer matrices become the default float type first (JAX's true
  division promotes them, so cholesky and eigh take integer input)."""
  if not dtypes.is_inexact(dtype(x)):
    x = convert_element_type(x, dtypes.default_float_dtype())
  # (halved by a weakly typed 2, as JAX's ``/ 2``: the result is as weak as ``x``)
  return div(add(x, mH(x)), convert_element_type(2, dtype(x), weak_type=True))


def real_dtype(dt):
  return dtypes.finfo(dt).dtype


def nan_where_failed(x, ok):
  """``x`` with every matrix (or vector) whose ``ok`` flag (shape = batch dims) is false
  replaced by NaN (NaN in both parts when complex), as JAX reports failed factorizations."""
  s = shape(x)
  ok = broadcast_in_dim(ok, s, tuple(range(len(shape(ok)))))
  nan = complex(np.nan, np.nan) if dtypes.is_complex(dtype(x)) else np.nan
  return select(ok, x, lax_full(s, nan, dtype(x)))


def permute_rows(x, perm):
  """``x[..., perm, :]``, a gather, for ``perm`` with ``x``'s batch dimensions."""
  nb = len(shape(perm)) - 1
  batch = tuple(range(nb))
  dnums = GatherDimensionNumbers(offset_dims=(nb + 1,), collapsed_slice_dims=(nb,),
                                 start_index_map=(nb,), operand_batching_dims=batch,
                                 start_indices_batching_dims=batch)
  return gather(x, reshape(perm, shape(perm) + (1,)), dnums,
                (1,) * (nb + 1) + (shape(x)[-1],), mode=GatherScatterMode.PROMISE_IN_BOUNDS)


def inverse_permutation(perm):
  """The permutation ``q`` with ``q[perm[i]] = i`` along the last dimension."""
  s = shape(perm)
  return sort_key_val(perm, broadcasted_iota(dtype(perm), s, len(s) - 1))[1]


def conj(x):
  """The complex conjugate; the identity on real arrays."""
  return lax_conj(x) if dtypes.is_complex(dtype(x)) else x


def real(x):
  """The real part; the identity on real arrays."""
  return lax_real(x) if dtypes.is_complex(dtype(x)) else x
