"""Segment reductions (`jax.ops.segment_sum` & co.): scatter-reduce rows of `data` into
`num_segments` buckets chosen by `segment_ids`."""
from __future__ import annotations

import functools
import operator

import numpy as np

from xjax._src.api.explicit_sharding import auto_axes
from xjax._src.foundations import dtypes
from xjax._src.foundations.sharding import get_abstract_mesh
from xjax._src.core.values import get_aval
from xjax._src.core.concrete import concrete_or_error
from xjax._src.core.dim_expr import is_symbolic_dim
from xjax._src.primitives.lax import gather_scatter as gs
from xjax._src.primitives.lax.elementwise import add, max as lax_max, min as lax_min, mul
from xjax._src.primitives.lax.shapes import broadcast_in_dim, full, reshape
from xjax._src.libraries.numpy import creation, reductions

__all__ = ["segment_sum", "segment_prod", "segment_max", "segment_min"]


def _identity(kind: str, dtype) -> object:
  if kind == "sum":
    return 0
  if kind == "prod":
    return 1
  if dtypes.issubdtype(dtype, np.inexact):
    return -np.inf if kind == "max" else np.inf
  if dtype == np.bool_:
    return kind != "max"
  info = np.iinfo(dtype)
  return info.min if kind == "max" else info.max


_SCATTERS = {"sum": gs.scatter_add, "prod": gs.scatter_mul,
             "max": gs.scatter_max, "min": gs.scatter_min}
_COMBINE = {"sum": add, "prod": mul, "max": lax_max, "min": lax_min}


def _segment_reduce(kind, name, data, segment_ids, *, num_segments, indices_are_sorted,
                    unique_indices, bucket_size, mode):
  data = creation.asarray(data)
  segment_ids = creation.asarray(segment_ids)
  d_aval, s_aval = get_aval(data), get_aval(segment_ids)
  if not dtypes.issubdtype(s_aval.dtype, np.integer):
    raise TypeError(f"{name}: segment_ids must be an integer array, got {s_aval.dtype}")
  if s_aval.ndim == 1 and d_aval.ndim == 0:   # a scalar stands for every row, as in JAX
    data = broadcast_in_dim(data, s_aval.shape, ())
    d_aval = get_aval(data)
  elif s_aval.ndim == 1 and d_aval.shape[0] != s_aval.shape[0]:
    want = d_aval.update(shape=s_aval.shape + d_aval.shape[1:])
    raise ValueError(f"Incompatible types for broadcasting: input type="
                     f"{d_aval.str_short(short_dtypes=False)} and requested type="
                     f"{want.str_short(short_dtypes=False)}")
  if s_aval.ndim != 1 or d_aval.ndim == 0 or d_aval.shape[0] != s_aval.shape[0]:
    raise ValueError(f"{name}: segment_ids must be 1-D with one entry per row of data; got "
                     f"data of shape {d_aval.shape} and segment_ids of shape {s_aval.shape}")
  if num_segments is None:
    num_segments = concrete_or_error(reductions.max(segment_ids),
                                     f"`num_segments` (of {name}); pass it statically") + 1
  num_segments = operator.index(concrete_or_error(num_segments, f"`num_segments` (of {name})"))
  if bucket_size is not None and bucket_size < 1:
    raise ValueError(f"{name}: bucket_size must be a positive integer, got {bucket_size}")
  out_shape = (num_segments,) + d_aval.shape[1:]
  init = full(out_shape, _identity(kind, d_aval.dtype), d_aval.dtype)
  dn = gs.ScatterDimensionNumbers(update_window_dims=tuple(range(1, d_aval.ndim)),
                                  inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
  n = d_aval.shape[0]
  if n == 0:  # no rows: the identities, and no scatter (as JAX)
    return init
  step = n if bucket_size is None or is_symbolic_dim(n) else bucket_size
  out = None
  starts = (0,) if is_symbolic_dim(n) else range(0, n, step)  # (a symbolic size: one bucket)
  for start in starts:  # buckets reduce separately, then combine
    ids = reshape(segment_ids[start:start + step], (min(step, n - start), 1))
    part = _SCATTERS[kind](init, ids, data[start:start + step], dn,
                           indices_are_sorted=indices_are_sorted,
                           unique_indices=unique_indices, mode=mode)
    out = part if out is None else _COMBINE[kind](out, part)
  return out


def _make(kind: str):
  name = f"segment_{kind}"

  def segment_op(data, segment_ids, num_segments: int | None = None,
                 indices_are_sorted: bool = False, unique_indices: bool = False,
                 bucket_size: int | None = None, mode=None, out_sharding=None):
    reduce = functools.partial(_segment_reduce, kind, name, num_segments=num_segments,
                               indices_are_sorted=indices_are_sorted,
                               unique_indices=unique_indices, bucket_size=bucket_size,
                               mode=mode)
    if out_sharding is None:
      return reduce(data, segment_ids)
    if bucket_size is not None:
      raise NotImplementedError(f"{name}: out_sharding with bucket_size is not supported "
                                "(as in JAX); reshard the result instead.")
    mesh = getattr(out_sharding, "mesh", get_abstract_mesh())
    return auto_axes(reduce, axes=mesh.explicit_axes, out_sharding=out_sharding)(
        data, segment_ids)
  segment_op.__name__ = segment_op.__qualname__ = name
  segment_op.__doc__ = (
      f"The {kind} of the rows of ``data`` that share a segment id, for ids 0 .. "
      "``num_segments - 1`` (default: the largest id + 1, which needs concrete ids). "
      "Out-of-range ids are dropped (``mode='clip'`` clamps them); empty segments hold the "
      f"identity of {kind}. ``out_sharding``: the result's split over the mesh.")
  return segment_op


segment_sum = _make("sum")
segment_prod = _make("prod")
segment_max = _make("max")
segment_min = _make("min")
