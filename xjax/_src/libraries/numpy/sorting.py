"""Sorting: sort, argsort, lexsort, searchsorted; order statistics via sort."""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.trace import Tracer
from xjax._src.core.values import get_aval
from xjax._src.execution.array import Array
from xjax._src.core.concrete import is_constant_dim
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax.elementwise import (add, bitwise_and, bitwise_not, bitwise_or,
                                                  convert_element_type, div, eq, imag, lt,
                                                  min as lax_min, ne, neg, real, select_n, sub)
from xjax._src.primitives.lax.reductions import reduce_sum
from xjax._src.primitives.lax.shapes import (broadcast_in_dim, broadcasted_iota, concatenate, full,
                                             reshape, rev, transpose)
from xjax._src.primitives.lax import sorting as lax_sorting
from xjax._src.libraries.numpy.arguments import canonical_axis, arraylike, check_arraylike
from xjax._src.libraries.numpy.creation import asarray
from xjax._src.libraries.numpy.indexing import put_along_axis
from xjax._src.libraries.numpy.promotion import promote_dtypes
from xjax._src.libraries.numpy.rearrange import _take_along
from xjax._src.libraries.numpy.shaping import ravel


def _prepare(name, a, axis):
  a, = arraylike(name, a)
  a = asarray(a)
  if axis is None:
    return ravel(a), 0
  aval = get_aval(a)
  if aval.ndim == 0:
    raise ValueError(f"axis {axis} is out of bounds for array of dimension 0")
  return a, canonical_axis(axis, aval.ndim)


@compiled_when_eager(staged="sort",
                     static_argnames=("axis", "kind", "order", "stable", "descending"),
                     hashable_statics=True)
def sort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False):
  """Sorted copy along ``axis`` (flattened if None); NaNs sort last."""
  if kind is not None:
    raise TypeError("'kind' argument to sort is not supported. Use stable=True or "
                    "stable=False to specify sort stability.")
  if order is not None:
    raise TypeError("'order' argument to sort is not supported.")
  a, axis = _prepare("sort", a, axis)
  out = lax_sorting.sort(a, dimension=axis, is_stable=stable)
  return rev(out, (axis,)) if descending else out


@compiled_when_eager(staged="argsort",
                     static_argnames=("axis", "kind", "order", "stable", "descending",
                                     "dtype"), hashable_statics=True)
def argsort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False, dtype=None):
  """Indices that sort ``a`` along ``axis`` (stable by default), of ``dtype`` (default the
  default integer type)."""
  if kind is not None:
    raise TypeError("'kind' argument to argsort is not supported. Use stable=True or "
                    "stable=False to specify sort stability.")
  if order is not None:
    raise TypeError("'order' argument to argsort is not supported.")
  a, axis = _prepare("argsort", a, axis)
  aval = get_aval(a)
  idx_dt = (dtypes.default_int_dtype() if dtype is None
            else dtypes.check_user_dtype_supported(dtype, "argsort"))
  iota = broadcasted_iota(idx_dt, aval.shape, axis)
  if descending:
    _, idx = lax_sorting.sort((rev(a, (axis,)), iota), dimension=axis,
                              is_stable=stable, num_keys=1)
    n = np.asarray(aval.shape[axis] - 1, idx_dt)[()]
    return sub(n, rev(idx, (axis,)))
  _, idx = lax_sorting.sort((a, iota), dimension=axis, is_stable=stable, num_keys=1)
  return idx


@compiled_when_eager(staged="lexsort", static_argnames=("axis",))
def lexsort(keys, axis=-1):
  """Indices sorting by the last key first, then the previous ones (a sequence of arrays,
  or an array whose rows are the keys)."""
  if not isinstance(keys, (Array, Tracer, np.ndarray)):
    check_arraylike("lexsort", *keys)
  keys = [asarray(k) for k in keys]
  if not keys:
    raise TypeError("need sequence of keys with len > 0 in lexsort")
  shape = get_aval(keys[0]).shape
  if any(get_aval(k).shape != shape for k in keys[1:]):
    raise ValueError("all keys need to be the same shape")
  if not shape:  # 0-d keys: the one position (as NumPy)
    return full((), 0, dtypes.default_int_dtype())
  axis = canonical_axis(axis, len(shape))
  iota = broadcasted_iota(dtypes.default_int_dtype(), shape, axis)
  outs = lax_sorting.sort(tuple(reversed(keys)) + (iota,), dimension=axis,
                          num_keys=len(keys))
  return outs[-1]


def _less(x, y):
  """x < y with NaN ordered last, as in sorting; complex numbers by their real parts, then
  their imaginary parts (as JAX's sort orders them)."""
  if dtypes.is_complex(get_aval(x).dtype):
    rx, ry = real(x), real(y)
    same = bitwise_or(eq(rx, ry), bitwise_and(ne(rx, rx), ne(ry, ry)))
    return bitwise_or(_less(rx, ry), bitwise_and(same, _less(imag(x), imag(y))))
  if dtypes.is_inexact(get_aval(x).dtype):
    return bitwise_or(lt(x, y), bitwise_and(ne(y, y), eq(x, x)))
  return lt(x, y)


@compiled_when_eager(staged="searchsorted", static_argnames=("side", "method"))
def searchsorted(a, v, side="left", sorter=None, *, method="scan"):
  """Insertion indices of ``v`` into sorted 1-D ``a`` keeping it sorted."""
  a, v = arraylike("searchsorted", a, v)
  if side not in ("left", "right"):
    raise ValueError(f"{side!r} is an invalid value for keyword 'side'. Expected one of "
                     "['left', 'right']")
  if method not in ("compare_all", "scan", "scan_unrolled", "sort"):
    raise ValueError(f"invalid argument method={method!r}, expected one of "
                     "['compare_all', 'scan', 'scan_unrolled', 'sort']")
  a, v = asarray(a), asarray(v)
  if get_aval(a).ndim != 1:
    raise ValueError("a should be 1-dimensional")
  if sorter is not None:
    a = _take_along(a, convert_element_type(asarray(sorter), np.int32), 0)
  a, v = promote_dtypes(a, v)
  n = get_aval(a).shape[0]
  # int32 indices even in x64 mode, as in JAX
  idt = np.int32 if is_constant_dim(n) and n < 2**31 else dtypes.default_int_dtype()
  before = (lambda x, y: _less(x, y)) if side == "left" else \
      (lambda x, y: bitwise_not(_less(y, x)))  # a[i] goes before v
  if method == "compare_all" or n == 0:
    vs = get_aval(v).shape
    big = vs + (n,)
    ab = broadcast_in_dim(a, big, (len(vs),))
    vb = broadcast_in_dim(v, big, tuple(range(len(vs))))
    return reduce_sum(convert_element_type(before(ab, vb), idt), (len(vs),))
  return _bisect(a, v, before, idt)


def _bisect(a, v, before, idt):
  """Per element of ``v``, the number of leading ``a`` entries ``before`` it: a binary
  search of ceil(log2(n + 1)) steps, each gathering one entry of ``a`` per element."""
  n = get_aval(a).shape[0]
  lo = full(get_aval(v).shape, 0, idt)
  hi = full(get_aval(v).shape, n, idt)
  one = np.asarray(1, idt)[()]
  size = get_aval(v).size
  for _ in range(int(n).bit_length()):
    mid = div(add(lo, hi), np.asarray(2, idt)[()])
    entry = _take_along(a, reshape(lax_min(mid, np.asarray(n - 1, idt)[()]), (size,)), 0)
    right = bitwise_and(before(reshape(entry, get_aval(v).shape), v), lt(lo, hi))
    lo, hi = select_n(right, lo, add(mid, one)), select_n(right, mid, hi)
  return lo


def _partition_keys(name, a, kth, axis):
  """``a`` with ``axis`` swapped last, the canonical ``kth``, and keys whose largest
  entries are ``a``'s smallest (``lax.top_k`` finds them)."""
  a, = arraylike(name, a)
  a = asarray(a)
  if dtypes.is_complex(get_aval(a).dtype):
    raise NotImplementedError(f"jnp.{name} for complex dtype is not implemented.")
  nd = get_aval(a).ndim
  axis = canonical_axis(axis, nd)
  kth = canonical_axis(kth, get_aval(a).shape[axis])
  perm = list(range(nd))
  perm[axis], perm[-1] = perm[-1], perm[axis]
  a = transpose(a, perm)
  # -a, or ~a for unsigned integers (where -a would keep 0 smallest)
  keys = bitwise_not(a) if dtypes.is_unsigned(get_aval(a).dtype) else neg(a)
  return a, keys, kth, perm


@compiled_when_eager(static_argnames=("kth", "axis"), hashable_statics=True, staged="partition")
def partition(a, kth, axis=-1):
  """A copy of ``a`` with the ``kth`` smallest value at position ``kth`` along ``axis``,
  the smaller ones (ascending) before it and the larger ones (descending) after, as JAX's
  two ``top_k`` calls give them."""
  a, keys, kth, perm = _partition_keys("partition", a, kth, axis)
  n = get_aval(a).shape[-1]
  bottom = lax_sorting.top_k(keys, kth + 1)[0]
  bottom = bitwise_not(bottom) if dtypes.is_unsigned(get_aval(a).dtype) else \
      neg(bottom)
  top = lax_sorting.top_k(a, n - kth - 1)[0]
  return transpose(concatenate([bottom, top], len(perm) - 1), perm)


@compiled_when_eager(static_argnames=("kth", "axis"), hashable_statics=True, staged="argpartition")
def argpartition(a, kth, axis=-1):
  """Indices that partition ``a`` around its ``kth`` smallest value along ``axis``: those
  of the smaller values (ascending) first, then the others by position."""
  a, keys, kth, perm = _partition_keys("argpartition", a, kth, axis)
  n = get_aval(a).shape[-1]
  bottom = lax_sorting.top_k(keys, kth + 1)[1]
  rest = put_along_axis(full(get_aval(a).shape, 1.0, np.float32), bottom, 0.0, -1,
                        inplace=False)
  top = lax_sorting.top_k(rest, n - kth - 1)[1]
  return transpose(concatenate([bottom, top], len(perm) - 1), perm)


@compiled_when_eager(staged="sort_complex")
def sort_complex(a):
  """Sorted copy of ``a`` (by real, then imaginary part) as a complex array."""
  a = sort(a)
  return convert_element_type(a, dtypes.to_complex_dtype(get_aval(a).dtype))
