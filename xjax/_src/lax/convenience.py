"""lax conveniences composed from existing primitives: shape helpers, tiling/splitting,
index_take, batch_matmul, scatter_apply, approx top-k, convolution shape arithmetic and
patches, and the single-device identities (sharding, platforms, composites)."""
from __future__ import annotations

import enum
from typing import Callable, Sequence

import numpy as np

from xjax._src import dtypes
from xjax._src.core.values import get_aval
from xjax._src.lax import elementwise as ew
from xjax._src.lax import gather_scatter as gs
from xjax._src.lax import shapes
from xjax._src.lax.dot import dot_general
from xjax._src.lax.sorting import top_k
from xjax._src.lax.windowed import (ConvDimensionNumbers, conv_dimension_numbers,
                                    conv_general_dilated, padtype_to_pads)

__all__ = ["ConvGeneralDilatedDimensionNumbers", "DotDimensionNumbers", "Precision",
           "approx_max_k", "approx_min_k", "axis_size", "batch_matmul", "broadcast_like",
           "broadcast_shapes", "broadcast_to_rank", "collapse", "composite",
           "conv_general_dilated_patches", "conv_general_shape_tuple", "conv_shape_tuple",
           "conv_transpose_shape_tuple", "conv_with_general_padding", "dtype", "empty",
           "index_take", "platform_dependent", "reciprocal", "reduce_window_shape_tuple",
           "scatter_apply", "select", "shape_as_value", "split", "stack", "tile", "unstack",
           "with_sharding_constraint"]

DotDimensionNumbers = tuple  # ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))
ConvGeneralDilatedDimensionNumbers = ConvDimensionNumbers


class Precision(enum.Enum):
  """Matmul/convolution precision: DEFAULT (fastest), HIGH, HIGHEST (most accurate)."""
  DEFAULT = 0
  HIGH = 1
  HIGHEST = 2

  @classmethod
  def _missing_(cls, value):
    names = {"default": cls.DEFAULT, "fastest": cls.DEFAULT, "bfloat16": cls.DEFAULT,
             "high": cls.HIGH, "bfloat16_3x": cls.HIGH, "tensorfloat32": cls.HIGH,
             "highest": cls.HIGHEST, "float32": cls.HIGHEST}
    return names.get(value.lower()) if isinstance(value, str) else None

  def __str__(self) -> str:
    return self.name


# ---------------------------------------------------------------------------------------
# Elementwise and dtype helpers

def reciprocal(x):
  """Elementwise ``1 / x``."""
  return ew.integer_pow(x, -1)


def select(pred, on_true, on_false):
  """``on_true`` where ``pred`` else ``on_false`` (boolean ``pred``)."""
  return ew.select_n(pred, on_false, on_true)


def dtype(x):
  """The canonical dtype of a value or dtype specifier."""
  return dtypes.dtype(x, canonicalize=True)


def empty(shape, dtype, *, out_sharding=None):
  """An array of ``shape`` and ``dtype`` whose contents are unspecified (zeros here)."""
  return shapes.full(shape, 0, dtype)


def shape_as_value(shape):
  """``shape`` as an int32 array."""
  return ew.convert_element_type(np.asarray(shape, np.int32).reshape(-1), np.int32)


# ---------------------------------------------------------------------------------------
# Shapes

def broadcast_shapes(*shapes_):
  """The NumPy broadcast of ``shapes_`` (ValueError when incompatible)."""
  shapes_ = [tuple(s) for s in shapes_]
  if not shapes_:
    return ()
  rank = max(len(s) for s in shapes_)
  padded = [(1,) * (rank - len(s)) + s for s in shapes_]
  out = []
  for dims in zip(*padded):
    sizes = {d for d in dims if d != 1}
    if len(sizes) > 1:
      raise ValueError(f"Incompatible shapes for broadcasting: shapes={list(shapes_)}")
    out.append(sizes.pop() if sizes else 1)
  return tuple(out)


def broadcast_to_rank(x, rank: int):
  """Prepends size-1 dimensions so that ``x`` has at least ``rank`` dimensions."""
  nd = get_aval(x).ndim
  return x if nd >= rank else shapes.expand_dims(x, tuple(range(rank - nd)))


def broadcast_like(arr, like_arr):
  """``arr`` broadcast (NumPy-style) to the shape of ``like_arr``."""
  a, like = get_aval(arr), get_aval(like_arr)
  shape = broadcast_shapes(a.shape, like.shape)
  x = broadcast_to_rank(arr, len(shape))
  return ew.broadcast_to_aval(x, shape)


def tile(operand, reps: Sequence[int]):
  """``operand`` repeated ``reps[i]`` times along each dimension ``i``."""
  aval = get_aval(operand)
  reps = tuple(int(r) for r in reps)
  if len(reps) != aval.ndim:
    raise TypeError(f"reps length must be equal to the ndim of x, got len(reps)={len(reps)} "
                    f"and x.ndim={aval.ndim}.")
  if any(r < 0 for r in reps):
    raise ValueError(f"tile reps must be non-negative, got {reps}")
  inter = tuple(d for r, s in zip(reps, aval.shape) for d in (r, s))
  x = shapes.broadcast_in_dim(operand, inter, tuple(range(1, 2 * aval.ndim, 2)))
  return shapes.reshape(x, tuple(r * s for r, s in zip(reps, aval.shape)))


def _axis(axis: int, ndim: int) -> int:
  if not -ndim <= axis < ndim:
    raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
  return axis % ndim


def split(operand, sizes: Sequence[int], axis: int = 0):
  """Splits ``operand`` along ``axis`` into pieces of the given ``sizes``."""
  aval = get_aval(operand)
  axis = _axis(axis, aval.ndim)
  sizes = [int(s) for s in sizes]
  if sum(sizes) != aval.shape[axis] or any(s < 0 for s in sizes):
    raise ValueError(f"Sum of sizes {sum(sizes)} must be equal to dimension {axis} of the "
                     f"operand shape {list(aval.shape)}")
  starts = np.cumsum([0] + sizes)
  return [shapes.slice_in_dim(operand, int(a), int(a) + s, axis=axis)
          for a, s in zip(starts, sizes)]


def stack(operands: Sequence, axis: int = 0):
  """Stacks equal-shaped ``operands`` along a new ``axis``."""
  operands = list(operands)
  if not operands:
    raise ValueError("stack requires at least one operand")
  nd = get_aval(operands[0]).ndim
  axis = _axis(axis, nd + 1)
  return shapes.concatenate([shapes.expand_dims(x, (axis,)) for x in operands], axis)


def unstack(x, axis: int = 0):
  """The slices of ``x`` along ``axis``, as a tuple."""
  aval = get_aval(x)
  axis = _axis(axis, aval.ndim)
  return tuple(shapes.index_in_dim(x, i, axis, keepdims=False)
               for i in range(aval.shape[axis]))


def collapse(operand, start_dimension: int, stop_dimension: int | None = None):
  """Merges dimensions ``[start_dimension, stop_dimension)`` into one."""
  shape = get_aval(operand).shape
  lo, hi, _ = slice(start_dimension, stop_dimension).indices(len(shape))
  if hi < lo:
    raise ValueError(f"Invalid dimension range passed to collapse: {shape}"
                     f"[{start_dimension}:{stop_dimension}]")
  size = int(np.prod(shape[lo:hi], dtype=np.int64))
  return shapes.reshape(operand, shape[:lo] + (size,) + shape[hi:])


# ---------------------------------------------------------------------------------------
# Indexing and products

def index_take(src, idxs, axes: Sequence[int]):
  """``src[idxs[0], :, idxs[1], ...]`` for index arrays taken along ``axes``: the result
  is (num_indices, *remaining dimensions)."""
  axes = tuple(int(a) for a in axes)
  if len(idxs) != len(axes):
    raise ValueError(f"index_take: got {len(idxs)} index arrays for {len(axes)} axes")
  shape = get_aval(src).shape
  cols = [shapes.reshape(i, (get_aval(i).size, 1)) for i in idxs]
  dt = np.result_type(*[get_aval(c).dtype for c in cols])
  indices = shapes.concatenate([ew.convert_element_type(c, dt) for c in cols], 1)
  rest = tuple(d for d in range(len(shape)) if d not in axes)
  dn = gs.GatherDimensionNumbers(offset_dims=tuple(range(1, len(rest) + 1)),
                                 collapsed_slice_dims=tuple(sorted(axes)),
                                 start_index_map=axes)
  sizes = tuple(1 if d in axes else shape[d] for d in range(len(shape)))
  return gs.gather(src, indices, dn, sizes, mode=gs.GatherScatterMode.PROMISE_IN_BOUNDS)


def batch_matmul(lhs, rhs, precision=None):
  """Batched matrix product over all leading dimensions of equal-rank operands."""
  la, ra = get_aval(lhs), get_aval(rhs)
  if min(la.ndim, ra.ndim) < 2:
    raise ValueError(f"Arguments to batch_matmul must be at least 2D, got {la.ndim}, "
                     f"{ra.ndim}")
  if la.ndim != ra.ndim:
    raise ValueError(f"Arguments to batch_matmul must have same ndim, got {la.ndim}, "
                     f"{ra.ndim}")
  batch = tuple(range(la.ndim - 2))
  dn = (((la.ndim - 1,), (ra.ndim - 2,)), (batch, batch))
  return dot_general(lhs, rhs, dn, precision=precision)


def scatter_apply(operand, scatter_indices, func: Callable, dimension_numbers, *,
                  update_shape=(), indices_are_sorted=False, unique_indices=False,
                  mode=None):
  """Applies ``func`` to each entry of ``operand`` the scatter addresses, once per time
  it is addressed (``update_shape`` is the shape of the scatter's updates)."""
  from xjax._src.lax.control_flow import while_loop
  from xjax._src.lax.reductions import reduce_max
  aval = get_aval(operand)
  hits = gs.scatter_add(shapes.full(aval.shape, 0, np.int32), scatter_indices,
                        shapes.full(tuple(update_shape), 1, np.int32), dimension_numbers,
                        indices_are_sorted=indices_are_sorted,
                        unique_indices=unique_indices, mode=mode)
  rounds = reduce_max(hits, tuple(range(aval.ndim))) if aval.ndim else hits

  def body(carry):
    i, x = carry
    return ew.add(i, np.int32(1)), ew.select_n(ew.lt(i, hits), x, func(x))
  return while_loop(lambda c: ew.lt(c[0], rounds), body, (np.int32(0), operand))[1]


def _top_k_along(operand, k: int, dimension: int):
  aval = get_aval(operand)
  dimension = _axis(dimension, aval.ndim)
  if k > aval.shape[dimension]:
    raise ValueError(f"k must be smaller than the size of reduction_dim "
                     f"{aval.shape[dimension]}, got {k}")
  from xjax._src.interpreters.batching import moveaxis
  vals, idx = top_k(moveaxis(operand, dimension, aval.ndim - 1), k)
  return moveaxis(vals, aval.ndim - 1, dimension), moveaxis(idx, aval.ndim - 1, dimension)


def approx_max_k(operand, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True):
  """The ``k`` largest values and their indices along a dimension (computed exactly)."""
  return _top_k_along(operand, k, reduction_dimension)


def approx_min_k(operand, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True):
  """The ``k`` smallest values and their indices along a dimension (computed exactly)."""
  vals, idx = _top_k_along(ew.neg(operand), k, reduction_dimension)
  return ew.neg(vals), idx


# ---------------------------------------------------------------------------------------
# Convolution shapes and variants

def _pads(padding, in_shape, window, strides):
  if isinstance(padding, str):
    return padtype_to_pads(in_shape, window, strides, padding)
  return [tuple(p) for p in padding]


def conv_shape_tuple(lhs_shape, rhs_shape, strides, pads, batch_group_count=1):
  """Output shape of a convolution in (N, C, spatial...) layout."""
  if isinstance(pads, str):
    pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
  if len(pads) != len(lhs_shape) - 2:
    raise TypeError(f"Wrong number of explicit pads for convolution: expected "
                    f"{len(lhs_shape) - 2}, got {len(pads)}.")
  spatial = tuple(max(0, (n + lo + hi - k) // s + 1) for n, k, s, (lo, hi)
                  in zip(lhs_shape[2:], rhs_shape[2:], strides, pads))
  return (lhs_shape[0] // batch_group_count, rhs_shape[0]) + spatial


def _permuted(shape, spec):
  return tuple(shape[i] for i in spec)


def conv_general_shape_tuple(lhs_shape, rhs_shape, window_strides, padding,
                             dimension_numbers):
  """Output shape of ``conv_general_dilated`` without dilation."""
  dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
  lhs, rhs = _permuted(lhs_shape, dn.lhs_spec), _permuted(rhs_shape, dn.rhs_spec)
  out = conv_shape_tuple(lhs, rhs, window_strides, padding)
  return tuple(out[dn.out_spec.index(i)] for i in range(len(out)))


def conv_transpose_shape_tuple(lhs_shape, rhs_shape, window_strides, padding,
                               dimension_numbers):
  """Output shape of ``conv_transpose``."""
  dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
  lhs, rhs = _permuted(lhs_shape, dn.lhs_spec), _permuted(rhs_shape, dn.rhs_spec)
  if isinstance(padding, str):
    if padding.upper() not in ("SAME", "VALID"):
      raise ValueError(f"Unknown padding type: {padding}.")
    same = padding.upper() == "SAME"
    spatial = tuple(n * s if same else n * s + max(k - s, 0)
                    for n, k, s in zip(lhs[2:], rhs[2:], window_strides))
  else:
    spatial = tuple((n - 1) * s + 1 + lo + hi - k + 1 for n, k, s, (lo, hi)
                    in zip(lhs[2:], rhs[2:], window_strides, padding))
  out = (lhs[0], rhs[0]) + spatial
  return tuple(out[dn.out_spec.index(i)] for i in range(len(out)))


def reduce_window_shape_tuple(operand_shape, window_dimensions, window_strides, padding,
                              base_dilation=None, window_dilation=None):
  """Output shape of ``reduce_window``."""
  n = len(operand_shape)
  base = base_dilation or (1,) * n
  wdil = window_dilation or (1,) * n
  out = []
  for d, w, s, (lo, hi), b, wd in zip(operand_shape, window_dimensions, window_strides,
                                      padding, base, wdil):
    size = (d - 1) * b + 1 + lo + hi
    eff = (w - 1) * wd + 1
    out.append(max(0, (size - eff) // s + 1))
  return tuple(out)


def conv_with_general_padding(lhs, rhs, window_strides, padding, lhs_dilation,
                              rhs_dilation, precision=None, preferred_element_type=None):
  """``conv_general_dilated`` in the default (N, C, spatial...) layout."""
  if isinstance(padding, str) and lhs_dilation is not None and any(
      d != 1 for d in lhs_dilation):
    raise ValueError("String padding is not implemented for transposed convolution using "
                     "this op. Please either exactly specify the required padding or use "
                     "conv_transpose.")
  return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=lhs_dilation,
                              rhs_dilation=rhs_dilation, precision=precision,
                              preferred_element_type=preferred_element_type)


def conv_general_dilated_patches(lhs, filter_shape, window_strides, padding,
                                 lhs_dilation=None, rhs_dilation=None, dimension_numbers=None,
                                 precision=None, preferred_element_type=None):
  """The patches a convolution with ``filter_shape`` windows sees: features are ordered
  (input channel, window position), channel-major."""
  aval = get_aval(lhs)
  nd = aval.ndim
  filter_shape = tuple(int(f) for f in filter_shape)
  dn = conv_dimension_numbers(aval.shape, (1,) * nd, dimension_numbers)
  channels = aval.shape[dn.lhs_spec[1]]
  window = int(np.prod(filter_shape, dtype=np.int64))
  kernel = np.tile(np.eye(window, dtype=aval.dtype), (channels, 1))
  kernel = kernel.reshape((channels * window, 1) + filter_shape)
  dn = ConvDimensionNumbers(dn.lhs_spec, tuple(range(nd)), dn.out_spec)
  return conv_general_dilated(lhs, kernel, window_strides, padding, lhs_dilation,
                              rhs_dilation, dn, feature_group_count=channels,
                              precision=Precision.HIGHEST if precision is None else precision,
                              preferred_element_type=preferred_element_type)


# ---------------------------------------------------------------------------------------
# Single-device identities

def axis_size(axis_name):
  """The size of the named (vmapped) axis ``axis_name``; a tuple of names multiplies."""
  from xjax._src.interpreters import batching
  names = axis_name if isinstance(axis_name, (tuple, list)) else (axis_name,)
  return int(np.prod([batching.axis_size(n) for n in names], dtype=np.int64))


def with_sharding_constraint(x, shardings):
  """The identity: with one device there is nothing to constrain."""
  return x


def platform_dependent(*args, default=None, **per_platform):
  """Calls the branch for this platform ('cpu'), else ``default``."""
  branch = per_platform.get("cpu", default)
  if branch is None:
    raise NotImplementedError(f"platform_dependent: no branch for platform cpu among "
                              f"{sorted(per_platform)} and no default")
  return branch(*args)


def composite(decomposition: Callable, name: str, version: int = 0):
  """A function calling ``decomposition`` (the composite's name is informational)."""
  def fn(*args, **kwargs):
    return decomposition(*args, **kwargs)
  fn.__name__ = getattr(decomposition, "__name__", name)
  fn.__doc__ = decomposition.__doc__
  return fn
