"""Matrix-shaped creation and views: eye, tri/tril/triu, diag/diagonal, trace, meshgrid."""
from __future__ import annotations

import operator

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.concrete import canonicalize_dim, canonicalize_shape
from xjax._src.core.trace import Tracer
from xjax._src.core.values import get_aval
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax.elementwise import add, convert_element_type, eq, ge, select_n
from xjax._src.primitives.lax.shapes import (broadcast_in_dim, broadcasted_iota, full_like, pad,
                                             reshape)
from xjax._src.libraries.numpy.arguments import check_arraylike, canonical_axis, arraylike
from xjax._src.libraries.numpy.creation import arange, asarray, placed
from xjax._src.libraries.numpy.reductions import _check_out, sum as _sum
from xjax._src.libraries.numpy.shaping import expand_dims, moveaxis, ravel
from xjax._src.libraries.numpy.ufuncs import _const
from xjax._src.libraries.numpy.where import _where


def _shifted_rows(n, m, k):
  """The row indices of an n x m grid plus ``k`` (a static int or an integer tracer)."""
  rows = broadcasted_iota(np.int32, (n, m), 0)
  k = convert_element_type(k, np.int32) if isinstance(k, Tracer) else \
      np.int32(operator.index(k))
  return add(rows, k)


def _diagonal_offset(k):
  """``k`` as eye and trace take it (JAX's rule): a Python int (clipped to the int32 range)
  or a scalar of an integer dtype, which may be traced; anything else is JAX's ValueError."""
  if isinstance(k, int):
    return np.int32(min(max(k, -2 ** 31), 2 ** 31 - 1))
  aval = get_aval(k) if isinstance(k, Tracer) else None
  shape, dtype = (aval.shape, aval.dtype) if aval else (np.shape(k), np.result_type(k))
  if shape != () or not dtypes.is_integer(dtype):
    raise ValueError(f"k must be a scalar integer; got {k}")
  return convert_element_type(k, np.int32) if aval else np.int32(k)


def _on_diagonal(n, m, k):
  """Where ``col == row + k`` over an n x m grid (both iotas first, as JAX's eye)."""
  rows = broadcasted_iota(np.int32, (n, m), 0)
  cols = broadcasted_iota(np.int32, (n, m), 1)
  return eq(add(rows, _diagonal_offset(k)), cols)


def _at_or_below(n, m, k):
  """Where ``col <= row + k`` over an n x m grid (JAX's tri)."""
  shifted = _shifted_rows(n, m, k)
  return ge(shifted, broadcasted_iota(np.int32, (n, m), 1))


def eye(N, M=None, k=0, dtype=None, *, device=None):
  """Ones on the k-th diagonal of an N x M matrix."""
  return placed(_eye(N, M, k, dtype), device)


def _eye(N, M, k, dtype):
  N_int = canonicalize_dim(N, "argument of 'N' jnp.eye()")
  M_int = N_int if M is None else canonicalize_dim(M, "argument 'M' of jnp.eye()")
  if N_int < 0 or M_int < 0:
    raise ValueError(f"negative dimensions are not allowed, got {N} and {M}")
  dt = dtypes.check_user_dtype_supported(dtype, "eye") if dtype else \
      dtypes.default_float_dtype()
  return convert_element_type(_on_diagonal(N_int, M_int, k), dt)


def identity(n, dtype=None):
  return eye(n, dtype=dtypes.check_user_dtype_supported(dtype, "identity"))


def tri(N, M=None, k=0, dtype=None):
  """Ones at and below the k-th diagonal."""
  N, M = canonicalize_shape((N, N if M is None else M))
  # (float32 by default, whatever jax_enable_x64 says: JAX's)
  dt = dtypes.check_user_dtype_supported(dtype, "tri") if dtype else np.dtype(np.float32)
  return convert_element_type(_at_or_below(N, M, k), dt)


def _tri_select(name, m, k, keep_lower):
  """``m`` with the entries above (``keep_lower``) or at and below the ``k``-th diagonal
  (of the last two axes) zeroed."""
  m = asarray(m)
  aval = get_aval(m)
  if aval.ndim < 2:
    raise ValueError(f"{name} requires an array of at least two dimensions")
  n, c = aval.shape[-2:]
  mask = _at_or_below(n, c, k)
  if aval.ndim > 2 or aval._sharding is not None:  # (split as ``m`` is, as JAX's)
    mask = broadcast_in_dim(mask, aval.shape, (aval.ndim - 2, aval.ndim - 1),
                            out_sharding=aval._sharding)
  zeros = full_like(m, 0)
  return select_n(mask, zeros, m) if keep_lower else select_n(mask, m, zeros)


@compiled_when_eager(staged="tril", static_argnames=("k",))
def tril(m, k=0):
  """Zeroes the entries above the k-th diagonal."""
  check_arraylike("tril", m)
  return _tri_select("tril", m, operator.index(k), True)


@compiled_when_eager(staged="triu", static_argnames=("k",))
def triu(m, k=0):
  """Zeroes the entries below the k-th diagonal."""
  check_arraylike("triu", m)
  return _tri_select("triu", m, operator.index(k) - 1, False)


@compiled_when_eager(staged="diagonal", static_argnames=("offset", "axis1", "axis2"))
def diagonal(a, offset=0, axis1=0, axis2=1):
  """The ``offset`` diagonal over (axis1, axis2), appended as the last axis."""
  check_arraylike("diagonal", a)
  a = asarray(a)
  aval = get_aval(a)
  if aval.ndim < 2:
    raise ValueError("diagonal requires an array of at least two dimensions.")
  ax1, ax2 = canonical_axis(axis1, aval.ndim), canonical_axis(axis2, aval.ndim)
  if ax1 == ax2:  # a TypeError, as JAX's (its transpose's)
    raise TypeError(f"diagonal: axis1 and axis2 must be different axes, got axis1={axis1} and "
                    f"axis2={axis2}")
  n, m = aval.shape[ax1], aval.shape[ax2]
  a = moveaxis(a, (ax1, ax2), (-2, -1))
  offset = operator.index(offset)
  length = max(0, min(n + min(offset, 0), m - max(offset, 0)))
  i = arange(length)
  j = arange(abs(offset), abs(offset) + length)
  out = a[..., i, j] if offset >= 0 else a[..., j, i]
  if aval.ndim == 2 and n == m and offset == 0:
    # JAX takes a square matrix's main diagonal by a platform-dependent choice, one branch
    # multiplying by a strong mask: the result is strongly typed
    out = convert_element_type(out, aval.dtype, weak_type=False)
  return out


def diag(v, k=0):
  """The k-th diagonal of a matrix, or a matrix with vector ``v`` on its k-th diagonal."""
  check_arraylike("diag", v)
  return _diag(asarray(v), operator.index(k))


@compiled_when_eager(staged="_diag", static_argnames=("k",))
def _diag(v, k):
  aval = get_aval(v)
  if aval.ndim == 1:
    n = aval.shape[0] + abs(k)
    zero = _const(v, 0)  # (weak where v is: the matrix is as weak as v, as JAX's)
    padded = pad(v, zero, [(max(-k, 0), max(k, 0), 0)])  # its i-th entry on row i
    on = _on_diagonal(n, n, k)
    return _where(on, expand_dims(padded, 1), zero)
  if aval.ndim == 2:
    return diagonal(v, offset=k)
  raise ValueError("diag input must be 1d or 2d")


def diagflat(v, k=0):
  check_arraylike("diagflat", v)
  out = diag(ravel(v), k)   # (strong, as JAX's, which fills a new array of zeros)
  return convert_element_type(out, get_aval(out).dtype) if get_aval(out).weak_type else out


@compiled_when_eager(staged="trace", static_argnames=("axis1", "axis2", "dtype"))
def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
  """Sum along a diagonal: the matrices over (axis1, axis2), zero off the ``offset``
  diagonal (which may be traced), summed over both axes."""
  _check_out(out, "trace")
  a, = arraylike("trace", a)
  a = asarray(a)
  nd = get_aval(a).ndim
  ax1, ax2 = canonical_axis(axis1, nd), canonical_axis(axis2, nd)
  if ax1 == ax2:
    raise ValueError(f"axis1 and axis2 can not be same. axis1={axis1} and axis2={axis2}")
  a = moveaxis(a, (ax1, ax2), (-2, -1))
  n, m = get_aval(a).shape[-2:]
  on = _on_diagonal(n, m, offset)
  if get_aval(a)._sharding is not None:
    on = broadcast_in_dim(on, get_aval(a).shape, (nd - 2, nd - 1),
                          out_sharding=get_aval(a)._sharding)
  return _sum(_where(on, a, full_like(a, 0)), axis=(-2, -1), dtype=dtype)


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
  """Coordinate matrices from 1-D coordinate vectors ('xy' or 'ij' indexing)."""
  xi = arraylike("meshgrid", *xi)
  if not copy:
    raise ValueError("jax.numpy.meshgrid only supports copy=True")
  if indexing not in ("xy", "ij"):
    raise ValueError(f"Valid values for indexing are 'xy' and 'ij', got {indexing}")
  xs = [asarray(x) for x in xi]
  if any(get_aval(x).ndim != 1 for x in xs):
    raise ValueError("Arguments to jax.numpy.meshgrid must be 1D, got shapes "
                     f"{[get_aval(x).shape for x in xs]}")
  swap = indexing == "xy" and len(xs) >= 2  # 'xy': the first two vectors trade places
  if swap:
    xs[0], xs[1] = xs[1], xs[0]
  sizes = [get_aval(x).shape[0] for x in xs]
  out = []
  for i, x in enumerate(xs):
    shape = [1] * len(xs) if sparse else list(sizes)
    shape[i] = sizes[i]
    out.append(broadcast_in_dim(x, tuple(shape), (i,)))
  if swap:
    out[0], out[1] = out[1], out[0]
  return out
