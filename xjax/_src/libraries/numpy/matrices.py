"""Matrix-shaped creation and views: eye, tri/tril/triu, diag/diagonal, trace, meshgrid."""
from __future__ import annotations

import operator

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.concrete import canonicalize_dim, canonicalize_shape
from xjax._src.core.trace import Tracer
from xjax._src.core.values import get_aval
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax.elementwise import convert_element_type, eq, ge, le, select_n, sub
from xjax._src.primitives.lax.shapes import (broadcast_in_dim, broadcasted_iota, full_like, pad,
                                             reshape, slice as lax_slice)
from xjax._src.libraries.numpy.arguments import canonical_axis, check_arraylike
from xjax._src.libraries.numpy.creation import _placed, asarray
from xjax._src.libraries.numpy.reductions import _check_out, sum as _sum
from xjax._src.libraries.numpy.shaping import moveaxis, ravel


def _mask(n, m, k, cmp):
  """``cmp(col - row, k)`` over an n x m grid; ``k`` may be traced."""
  rows = broadcasted_iota(np.int32, (n, m), 0)
  cols = broadcasted_iota(np.int32, (n, m), 1)
  k = convert_element_type(k, np.int32) if isinstance(k, Tracer) else \
      np.int32(operator.index(k))
  return cmp(sub(cols, rows), k)


def eye(N, M=None, k=0, dtype=None, *, device=None):
  """Ones on the k-th diagonal of an N x M matrix."""
  return _placed(_eye(N, M, k, dtype), device)


def _eye(N, M, k, dtype):
  N_int = canonicalize_dim(N, "argument of 'N' jnp.eye()")
  M_int = N_int if M is None else canonicalize_dim(M, "argument 'M' of jnp.eye()")
  if N_int < 0 or M_int < 0:
    raise ValueError(f"negative dimensions are not allowed, got {N} and {M}")
  dt = dtypes.check_user_dtype_supported(dtype, "eye") if dtype else \
      dtypes.default_float_dtype()
  return convert_element_type(_mask(N_int, M_int, k, eq), dt)


def identity(n, dtype=None):
  return eye(n, dtype=dtype)


def tri(N, M=None, k=0, dtype=None):
  """Ones at and below the k-th diagonal."""
  N, M = canonicalize_shape((N, N if M is None else M))
  dt = dtypes.check_user_dtype_supported(dtype, "tri") if dtype else \
      dtypes.default_float_dtype()
  return convert_element_type(_mask(N, M, k, le), dt)


def _tri_select(name, m, k, cmp):
  m = asarray(m)
  aval = get_aval(m)
  if aval.ndim < 2:
    raise ValueError(f"{name} requires an array of at least two dimensions")
  n, c = aval.shape[-2:]
  mask = broadcast_in_dim(_mask(n, c, k, cmp), aval.shape, (aval.ndim - 2, aval.ndim - 1))
  return select_n(mask, full_like(m, 0), m)


@compiled_when_eager(staged="tril", static_argnames=("k",))
def tril(m, k=0):
  """Zeroes the entries above the k-th diagonal."""
  return _tri_select("tril", m, operator.index(k), le)


@compiled_when_eager(staged="triu", static_argnames=("k",))
def triu(m, k=0):
  """Zeroes the entries below the k-th diagonal."""
  return _tri_select("triu", m, operator.index(k), ge)


@compiled_when_eager(staged="diagonal", static_argnames=("offset", "axis1", "axis2"))
def diagonal(a, offset=0, axis1=0, axis2=1):
  """The ``offset`` diagonal over (axis1, axis2), appended as the last axis."""
  a = asarray(a)
  aval = get_aval(a)
  if aval.ndim < 2:
    raise ValueError("diagonal requires an array of at least two dimensions.")
  ax1, ax2 = canonical_axis(axis1, aval.ndim), canonical_axis(axis2, aval.ndim)
  if ax1 == ax2:  # a TypeError, as JAX's (its transpose's)
    raise TypeError(f"diagonal: axis1 and axis2 must be different axes, got axis1={axis1} and "
                    f"axis2={axis2}")
  a = moveaxis(a, (ax1, ax2), (-2, -1))
  *batch, n, m = get_aval(a).shape
  offset = operator.index(offset)
  length = max(0, min(n + min(offset, 0), m - max(offset, 0)))
  r0, c0 = min(max(-offset, 0), n), min(max(offset, 0), m)
  a = lax_slice(a, (0,) * len(batch) + (r0, c0),
                tuple(batch) + (r0 + length, c0 + length))
  mask = broadcast_in_dim(_mask(length, length, 0, eq), get_aval(a).shape,
                         (len(batch), len(batch) + 1), out_sharding=get_aval(a)._sharding)
  return _sum(select_n(mask, full_like(a, 0), a), axis=-1, dtype=aval.dtype)


@compiled_when_eager(static_argnames=("k",))
def diag(v, k=0):
  """The k-th diagonal of a matrix, or a matrix with vector ``v`` on its k-th diagonal."""
  v = asarray(v)
  aval = get_aval(v)
  k = operator.index(k)
  if aval.ndim == 1:
    n = aval.shape[0] + abs(k)
    zero = np.zeros((), aval.dtype)[()]
    padded = pad(v, zero, [(abs(k), 0, 0)])
    rows = broadcast_in_dim(padded, (n, n), (1,) if k >= 0 else (0,))
    return select_n(_mask(n, n, k, eq), full_like(rows, 0), rows)
  if aval.ndim == 2:
    return diagonal(v, offset=k)
  raise ValueError("diag input must be 1d or 2d")


def diagflat(v, k=0):
  return diag(ravel(v), k)


@compiled_when_eager(staged="trace", static_argnames=("axis1", "axis2", "dtype"))
def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
  """Sum along a diagonal: the matrices over (axis1, axis2), zero off the ``offset``
  diagonal (which may be traced), summed over both axes."""
  _check_out(out, "trace")
  check_arraylike("trace", a)
  a = asarray(a)
  nd = get_aval(a).ndim
  ax1, ax2 = canonical_axis(axis1, nd), canonical_axis(axis2, nd)
  if ax1 == ax2:
    raise ValueError(f"axis1 and axis2 can not be same. axis1={axis1} and axis2={axis2}")
  a = moveaxis(a, (ax1, ax2), (-2, -1))
  n, m = get_aval(a).shape[-2:]
  rows, cols = (broadcasted_iota(np.int32, (n, m), d) for d in (0, 1))
  on = eq(sub(cols, rows), convert_element_type(offset, np.int32))
  on = broadcast_in_dim(on, get_aval(a).shape, (nd - 2, nd - 1),
                        out_sharding=get_aval(a)._sharding)
  return _sum(select_n(on, full_like(a, 0), a), axis=(-2, -1), dtype=dtype)


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
  """Coordinate matrices from 1-D coordinate vectors ('xy' or 'ij' indexing)."""
  if indexing not in ("xy", "ij"):
    raise ValueError(f"Valid values for indexing are 'xy' and 'ij', got {indexing}")
  xs = [asarray(x) for x in xi]
  for x in xs:
    if get_aval(x).ndim != 1:
      raise ValueError(f"Arguments to jax.numpy.meshgrid must be 1D, got shape "
                       f"{get_aval(x).shape}")
  shape = [get_aval(x).shape[0] for x in xs]
  if indexing == "xy" and len(xs) >= 2:
    shape[0], shape[1] = shape[1], shape[0]
  out = []
  for i, x in enumerate(xs):
    d = i
    if indexing == "xy" and len(xs) >= 2 and i < 2:
      d = 1 - i
    if sparse:
      s = [1] * len(xs)
      s[d] = shape[d]
      out.append(reshape(x, tuple(s)))
    else:
      out.append(broadcast_in_dim(x, tuple(shape), (d,)))
  return out
