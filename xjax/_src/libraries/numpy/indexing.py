"""NumPy indexing on Arrays and tracers: ``x[idx]`` (static slicing, or one gather for
integer-array / traced indices), ``x.at[idx]`` functional updates (scatters), and take,
take_along_axis, put, place."""
from __future__ import annotations

import functools
import operator
import warnings
from typing import NamedTuple

import numpy as np

from xjax._src.foundations import dtypes, errors
from xjax._src.foundations.config import config
from xjax._src.foundations.sharding import PartitionSpec
from xjax._src.core.trace import Tracer, current_trace, eval_trace
from xjax._src.core.avals import spec_of
from xjax._src.core.values import get_aval
from xjax._src.core.concrete import max_dim, min_dim
from xjax._src.core.dim_expr import broadcast_shapes, index_dtype, is_symbolic_dim
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.api.explicit_sharding import auto_axes
from xjax._src.execution import host_eval
from xjax._src.execution.array import Array
from xjax._src.primitives.lax import gather_scatter as gs
from xjax._src.primitives.lax.dimension_values import dimension_constant
from xjax._src.primitives.lax.elementwise import (add as lax_add, convert_element_type, lt,
                                                  max as lax_max, mul as lax_mul, select_n)
from xjax._src.primitives.lax.reductions import reduce_sum
from xjax._src.primitives.lax.shapes import (broadcast_in_dim, concatenate, dynamic_slice,
                                             expand_dims, full as lax_full, full_like, iota,
                                             reshape, rev, slice as lax_slice, squeeze)
from xjax._src.libraries.numpy import dslice_indexing
from xjax._src.libraries.numpy import ufuncs
from xjax._src.libraries.numpy.arguments import canonical_axis, arraylike
from xjax._src.libraries.numpy.creation import arange, asarray
from xjax._src.libraries.numpy.nonzero import nonzero
from xjax._src.libraries.numpy.promotion import promote_dtypes
from xjax._src.libraries.numpy.shaping import broadcast_to, moveaxis
from xjax._src.libraries.numpy.where import _where

_FILL = gs.GatherScatterMode.FILL_OR_DROP


def getitem(x, idx):
  """``x[idx]`` with NumPy semantics; out-of-bounds array indices are clamped."""
  return rewriting_take(x, idx)


def rewriting_take(x, idx, mode=None, fill_value=None, indices_are_sorted=False,
                   unique_indices=False, out_sharding=None):
  whole = _over_devices(x)
  eager = current_trace() is eval_trace
  if eager:   # one compiled program for an array index
    split = _split_index(idx)
    if split is not None and split[1]:
      return _compiled_take(x, split[1], template=split[0], mode=mode, fill_value=fill_value,
                            indices_are_sorted=indices_are_sorted,
                            unique_indices=unique_indices, out_sharding=out_sharding,
                            starts_in_gather=whole)
    host_eval.fetch_small(x)  # static indices: sliced on the host
  return _take(x, idx, mode, fill_value, indices_are_sorted, unique_indices, out_sharding,
               whole, eager)


def _over_devices(x) -> bool:
  """Whether ``x`` is an Array over several devices: JAX indexes one with a gather, not
  slices, wherever the index cuts a dimension (an int or a partial slice)."""
  return type(x) is Array and len(x.sharding.device_set) > 1


def _take(x, idx, mode, fill_value, indices_are_sorted, unique_indices, out_sharding=None,
          starts_in_gather=False, eager=False):
  """``x[idx]``; ``eager`` (values, not a jaxpr, wanted) takes what JAX takes by a
  dynamic_slice by the equal-valued clamped slice or gather, cheaper run eagerly."""
  if dslice_indexing.has_dslice(idx):  # jax.ds entries: taken first
    x, idx = dslice_indexing.take(x, idx, mode, fill_value, rewriting_take)
    if idx is None:
      return x
  aval = get_aval(x)
  if isinstance(idx, list):
    raise TypeError("Using a non-tuple sequence for multidimensional indexing is not "
                    "allowed; use `arr[array(seq)]` instead of `arr[seq]`.")
  entries, empty = _expand(aval, idx)
  advanced = [k for k, e in enumerate(entries) if _is_array_index(e)]
  starts_in_gather = starts_in_gather and _cuts(aval, entries)
  parsed = None if mode is None else gs.GatherScatterMode.from_any(mode)
  sliced = parsed in (None, gs.GatherScatterMode.PROMISE_IN_BOUNDS,
                      gs.GatherScatterMode.CLIP) and not starts_in_gather
  dynamic = sliced and not eager and not _has_bool(idx) and _dynamic_sliceable(aval, entries)
  # (as JAX: a static slice, but where a static int is out of bounds and not clipped, a
  # dynamic_slice, which clamps it; scalar integer arrays a dynamic_slice; else a gather)
  if sliced and not advanced and not (dynamic and parsed is not gs.GatherScatterMode.CLIP
                                      and not _ints_in_bounds(aval, entries)):
    out, new_axes = _static_take(x, aval, entries)
  elif dynamic:
    out, new_axes = _dynamic_slice_take(x, aval, entries)
  else:
    take = functools.partial(_gather_take, aval=aval, mode=mode, fill_value=fill_value,
                             indices_are_sorted=indices_are_sorted,
                             unique_indices=unique_indices)
    if out_sharding is None:
      out, new_axes = take(x, entries=entries)
    else:  # (JAX's: the gather runs over Auto axes, its operand and index arrays resharded
      new_axes = []  # in, its result resharded as asked)
      arrays, rebuilt = _split_out_arrays(entries, _is_array_index)
      out = auto_axes(lambda a, *arrays: _placed_axes(take(a, entries=rebuilt(arrays)),
                                                      new_axes),
                      out_sharding=out_sharding)(x, *arrays)
  if new_axes:
    out = expand_dims(out, new_axes)
  for rank in empty:  # a scalar False index adds an axis of length 0
    d = new_axes[rank]
    shape = get_aval(out).shape
    out = lax_slice(out, [0] * len(shape), shape[:d] + (0,) + shape[d + 1:])
  return out


def _placed_axes(result, new_axes: list):
  out, axes = result
  new_axes.extend(axes)
  return out


def _cuts(aval, entries) -> bool:
  """Whether an index (ints, slices, None and arrays) cuts one of ``aval``'s dimensions."""
  real = [e for e in entries if e is not None]
  return any(not isinstance(e, slice) or abs(e.indices(n)[2]) != 1
             or abs(e.indices(n)[1] - e.indices(n)[0]) != n for e, n in zip(real, aval.shape))


# ---------------------------------------------------------------------------------------
# Eager indexing with array indices, and eager updates, run as one program compiled per
# index template: the index's static entries, with its integer arrays as arguments.

_ARRAY_ENTRY = object()   # an integer array's place in an index template


def _split_index(idx):
  """``(template, arrays)``: a hashable template of ``idx`` (ints, None, Ellipsis, static
  slices, scalar booleans) and its integer arrays in order; None for an index taken op by
  op (boolean arrays, whose values fix the result's shape, sequences, ``jax.ds``, slices
  with array bounds, or anything malformed, whose error that path raises)."""
  items = idx if type(idx) is tuple else (idx,)
  template, arrays = [], []
  for e in items:
    if e is None or e is Ellipsis:
      template.append(e)
    elif isinstance(e, (bool, np.bool_)):
      template.append(("bool", bool(e)))
    elif isinstance(e, (int, np.integer)):
      template.append(int(e))
    elif type(e) is slice:
      bounds = (e.start, e.stop, e.step)
      if not all(b is None or (isinstance(b, (int, np.integer)) and not isinstance(b, bool))
                 for b in bounds):
        return None
      template.append(("slice", *(None if b is None else int(b) for b in bounds)))
    elif type(e) in (Array, np.ndarray) and dtypes.is_integer(e.dtype):
      template.append(_ARRAY_ENTRY)
      arrays.append(e)
    else:
      return None
  return (type(idx) is tuple, tuple(template)), arrays


def _join_index(template, arrays):
  """The index ``_split_index`` split into ``template`` and ``arrays``."""
  is_tuple, items = template
  arrays = iter(arrays)
  idx = tuple(next(arrays) if e is _ARRAY_ENTRY else
              (slice(*e[1:]) if e[0] == "slice" else e[1]) if type(e) is tuple else e
              for e in items)
  return idx if is_tuple else idx[0]


@compiled_when_eager(static_argnames=("template", "mode", "fill_value", "indices_are_sorted",
                                      "unique_indices", "out_sharding", "starts_in_gather"))
def _compiled_take(x, arrays, *, template, mode, fill_value, indices_are_sorted,
                   unique_indices, out_sharding, starts_in_gather):
  return _take(x, _join_index(template, arrays), mode, fill_value, indices_are_sorted,
               unique_indices, out_sharding, starts_in_gather, eager=True)


def _split_out_arrays(entries, is_array):
  """``(arrays, rebuilt)``: the entries of an index that ``is_array`` picks, and the function
  giving the entries back with other arrays in their places (to pass them through
  ``auto_axes``, which reshards its arguments)."""
  arrays = [e for e in entries if is_array(e)]

  def rebuilt(new):
    it = iter(new)
    return [next(it) if is_array(e) else e for e in entries]
  return arrays, rebuilt


def _is_array_index(e) -> bool:
  return not (e is None or isinstance(e, slice) or isinstance(e, (int, np.integer)))


def _concrete_bound(b):
  """A slice bound as an int, through ``operator.index`` as JAX's (a 0-d integer array,
  NumPy's or ours, is one; anything else raises its TypeError); a tracer as it is (refused
  by the caller); a symbolic dimension as it is."""
  if b is None or type(b) is int or isinstance(b, Tracer) or is_symbolic_dim(b):
    return b
  return operator.index(b)


def _expand(aval, idx) -> list:
  """The index as a list of None / slice / int / integer array, one real entry per dim,
  and the ranks (among the None entries) of the scalar ``False`` indices."""
  if any(isinstance(i, str) for i in (idx if isinstance(idx, tuple) else (idx,))):
    raise TypeError(f"JAX does not support string indexing; got {idx=}")
  if not isinstance(idx, tuple):
    idx = (idx,)
  entries, empty = [], []
  for pos, i in enumerate(idx):
    if isinstance(i, (list, tuple)):
      i = np.asarray(i) if i else np.zeros((0,), np.int32)
    if isinstance(i, slice):
      i = slice(*(_concrete_bound(b) for b in (i.start, i.stop, i.step)))
      if any(isinstance(b, Tracer) for b in (i.start, i.stop, i.step)):
        raise IndexError(f"Slice entries must be static integers. Got {i} at position "
                         f"{pos}. For a traced start, use lax.dynamic_slice or "
                         "lax.dynamic_slice_in_dim with a static size.")
      entries.append(i)
    elif isinstance(i, bool):
      if not i:
        empty.append(sum(e is None for e in entries))
      entries.append(None)  # NumPy: x[True] adds an axis of length 1, x[False] of 0
    elif i is None or i is Ellipsis or isinstance(i, (int, np.integer)):
      entries.append(i)
    else:
      new = _array_entries(i)
      mask_shape = np.shape(i) if get_aval(i).dtype == np.bool_ else None
      dim = sum(_consumed(e) for e in entries)
      if (mask_shape and Ellipsis not in entries
          and tuple(aval.shape[dim:dim + len(mask_shape)]) != mask_shape):
        raise IndexError(f"boolean index did not match shape of indexed array in index "
                         f"{pos}: got {mask_shape}, expected "
                         f"{tuple(aval.shape[dim:dim + len(mask_shape)])}")
      entries.extend(new)
  if sum(e is Ellipsis for e in entries) > 1:
    raise IndexError("an index can only have a single ellipsis ('...')")
  n_real = sum(_consumed(e) for e in entries)
  if n_real > aval.ndim:
    raise IndexError(f"Too many indices: array is {aval.ndim}-dimensional, but {n_real} were "
                     "indexed")
  fill = [slice(None)] * (aval.ndim - n_real)
  if any(e is Ellipsis for e in entries):
    pos = next(k for k, e in enumerate(entries) if e is Ellipsis)
    entries = entries[:pos] + fill + entries[pos + 1:]
  else:
    entries = entries + fill
  return entries, empty


def _consumed(e) -> int:
  return 0 if e is None or e is Ellipsis else 1


def _array_entries(i) -> list:
  """An array index: integer arrays as is; boolean masks as their (concrete) nonzero."""
  if isinstance(i, Tracer) or hasattr(i, "aval") or isinstance(i, np.ndarray) or \
      np.isscalar(i):
    aval = get_aval(i)
  else:
    raise IndexError("only integers, slices (`:`), ellipsis (`...`), newaxis (`None`) and "
                     f"integer or boolean arrays are valid indices. Got {i}")
  if aval.dtype == np.bool_:
    value = i.to_concrete_value() if isinstance(i, Tracer) else np.asarray(i)
    if value is None:
      raise errors.NonConcreteBooleanIndexError(i)
    value = np.asarray(value)
    if value.ndim == 0:
      if not value:
        raise IndexError("indexing with a scalar False (an empty new axis) is not supported")
      return [None]
    return [np.asarray(n, np.int32 if value.size < 2**31 else np.int64)
            for n in np.nonzero(value)]
  if not dtypes.is_integer(aval.dtype):
    raise TypeError("Indexer must have integer or boolean type, got indexer with type "
                    f"{np.dtype(getattr(i, 'dtype', aval.dtype)).name}")
  if isinstance(i, np.ndarray) and i.ndim == 0:
    return [int(i)]
  return [i]


def _static_take(x, aval, entries):
  """Only ints, slices and None: slice, reverse, squeeze and expand_dims."""
  starts, limits, strides, flips, squeeze_dims, new_axes = [], [], [], [], [], []
  dim = out_pos = 0
  for e in entries:
    if e is None:
      new_axes.append(out_pos)
      out_pos += 1
      continue
    size = aval.shape[dim]
    if isinstance(e, slice):
      start, limit, stride, flip = _slice_bounds(e, size)
      starts.append(start), limits.append(limit), strides.append(stride)
      if flip:
        flips.append(dim)
      out_pos += 1
    else:
      k = operator.index(e)
      if not size:
        raise IndexError(f"index is out of bounds for axis {dim} with size 0")
      k = min(max(k, -size), size - 1) % size  # out-of-bounds indices are clamped
      starts.append(k), limits.append(k + 1), strides.append(1)
      squeeze_dims.append(dim)
    dim += 1
  out = x
  if starts != [0] * aval.ndim or limits != list(aval.shape) or not set(strides) <= {1}:
    out = lax_slice(x, starts, limits, None if set(strides) <= {1} else strides)
  if flips:
    out = rev(out, flips)
  if squeeze_dims:
    out = squeeze(out, squeeze_dims)
  return out, new_axes


def _has_bool(idx) -> bool:
  return any(isinstance(i, (bool, np.bool_)) or getattr(i, "dtype", None) == np.bool_
             for i in (idx if isinstance(idx, tuple) else (idx,)))


def _dynamic_sliceable(aval, entries) -> bool:
  """Whether ``entries`` are ints, None, slices of step 1 or -1 and scalar integer arrays,
  no int or array indexing an axis of size 0."""
  dim = 0
  for e in entries:
    if e is None:
      continue
    if isinstance(e, slice):
      if e.step not in (None, 1, -1):
        return False
    elif np.ndim(e) or not aval.shape[dim]:
      return False
    dim += 1
  return True


def _ints_in_bounds(aval, entries) -> bool:
  real = [e for e in entries if e is not None]
  return all(-n <= e < n for e, n in zip(real, aval.shape) if isinstance(e, (int, np.integer)))


def _dynamic_slice_take(x, aval, entries):
  """``x[entries]`` (``_dynamic_sliceable``) as JAX takes it: one dynamic_slice (its
  several start indices cast to one integer type), reverse, squeeze and expand_dims."""
  starts, sizes, flips, squeeze_dims, new_axes = [], [], [], [], []
  for e in entries:
    if e is None:
      new_axes.append(len(starts) - len(squeeze_dims) + len(new_axes))
      continue
    dim, n = len(starts), aval.shape[len(starts)]
    if not isinstance(e, slice):
      starts.append(e), sizes.append(1), squeeze_dims.append(dim)
      continue
    if is_symbolic_dim(n):  # (a positive step: _dynamic_sliceable)
      start, limit, _, flip = _symbolic_slice_bounds(e, n)
      starts.append(start), sizes.append(limit - start)
      if flip:
        flips.append(dim)
      continue
    start, stop, step = e.indices(n)
    if step < 0:
      starts.append(stop + 1), sizes.append(max(0, start - stop)), flips.append(dim)
    else:
      starts.append(start), sizes.append(max(0, stop - start))
  if len(starts) > 1:
    dt = index_dtype(*aval.shape)
    starts = [convert_element_type(i, dt) for i in starts]
  out = dynamic_slice(x, starts, sizes)
  if flips:
    out = rev(out, flips)
  if squeeze_dims:
    out = squeeze(out, squeeze_dims)
  return out, new_axes


def _slice_bounds(e: slice, size: int):
  """(start, limit, stride, reversed) of a lax.slice selecting ``e``'s elements."""
  if is_symbolic_dim(size):
    return _symbolic_slice_bounds(e, size)
  start, stop, step = e.indices(size)
  if step > 0:  # (the bounds JAX's jaxprs show: the stop as given, clamped)
    return start, max(start, stop), step, False
  first = min(size, stop + 1 + abs(start - stop - 1) % -step)  # the last element selected
  return first, max(first, start + 1), -step, True


def _symbolic_slice_bounds(e: slice, size):
  """``_slice_bounds`` along a symbolic dimension: positive steps with constant (or
  symbolic) start and stop, clamped with max/min expressions; negative steps reverse the
  whole dimension only."""
  step = 1 if e.step is None else operator.index(e.step)
  if step < 0:
    if e.start is not None or e.stop is not None:
      raise IndexError(f"Slice {e} of a dimension of symbolic size {size}: with a negative "
                       "step xjax supports only the whole dimension (x[::-k])")
    n = (size - 1) // -step + 1
    return size - 1 - (n - 1) * -step, size, -step, True

  def clamp(i, default):
    if i is None:
      return default
    i = i if is_symbolic_dim(i) else operator.index(i)
    return max_dim(0, size + i) if not is_symbolic_dim(i) and i < 0 else min_dim(size, i)
  start, stop = clamp(e.start, 0), clamp(e.stop, size)
  try:   # (JAX's shapes: the stop itself where it is known not to precede the start)
    return start, stop if start <= stop else start, step, False
  except errors.InconclusiveDimensionOperation:
    return start, start + max_dim(0, stop - start), step, False


class _GatherPlan(NamedTuple):
  """An index ``entries`` of an array as one gather (or, for ``x.at[]``, one scatter)."""
  indices: object       # the start indices, trailing index-vector dim (None: no gather)
  dnums: gs.GatherDimensionNumbers
  slice_sizes: tuple
  shape: tuple          # the result's shape, the None entries' axes included (as 1s)
  new_axes: list        # the None entries' axes in ``shape``
  reversed: tuple       # axes (of ``shape`` without the None axes) that negative steps reverse
  advanced: bool        # whether an integer array indexes (else sorted and unique starts)


def _slice_extent(e: slice, size: int):
  """(first element, step, number of elements) ``e`` selects of ``size``."""
  if is_symbolic_dim(size):
    start, limit, step, flip = _symbolic_slice_bounds(e, size)
    n = (limit - start + step - 1) // step
    return ((start + (n - 1) * step, -step, n) if flip else (start, step, n))
  start, stop, step = e.indices(size)
  n = (stop - start + step - 1) // step if step > 0 else (start - stop - step - 1) // -step
  return start, step, max(0, n)


def _gather_plan(aval, entries) -> _GatherPlan:
  """The gather taking ``x[entries]`` (entries: None / slice / int / integer array, one
  real entry per dimension): ints, arrays and strided slices give start indices (ints and
  arrays broadcast together as NumPy's advanced indexing when an array of rank >= 1 is
  among them), partial unit-step slices give a start and a window, full ones a window."""
  dt = index_dtype(*aval.shape)
  advanced = any(e is not None and not isinstance(e, (slice, int, np.integer))
                 and np.ndim(e) > 0 for e in entries)
  real = [e for e in entries if e is not None]
  adv_dims, adv_vals, bshape = [], [], ()
  if advanced:
    adv_dims = [d for d, e in enumerate(real) if not isinstance(e, slice)]
    adv_vals = [_normalize(real[d], aval.shape[d]) for d in adv_dims]
    bshape = broadcast_shapes(*(np.shape(v) for v in adv_vals))
    positions = [k for k, e in enumerate(entries) if e is not None and not isinstance(e, slice)]
    block_at = positions[0] if positions == list(range(positions[0], positions[-1] + 1)) else 0
  starts, starts_shape = [], []        # (index array, its first axis in the starts' shape)
  offset_dims, collapsed, index_map, sizes, shape, new_axes, reversed_ = [], [], [], [], [], [], []
  dim = out_dim = 0                    # out_dim counts the result's axes but the None ones
  for k, e in enumerate(entries):
    if advanced and k == block_at:
      for v in adv_vals:
        v = v if np.shape(v) == bshape else broadcast_to(v, bshape)
        starts.append((convert_element_type(v, dt), len(starts_shape)))
      starts_shape.extend(bshape)
      index_map.extend(adv_dims), collapsed.extend(adv_dims), shape.extend(bshape)
      out_dim += len(bshape)
    if e is None:
      new_axes.append(len(shape))
      shape.append(1)
      continue
    if advanced and dim in adv_dims:
      sizes.append(1)
    elif not isinstance(e, slice):     # an int or a 0-d array, with no array among them
      if not aval.shape[dim]:
        raise IndexError(f"index is out of bounds for axis {dim} with size 0")
      starts.append((convert_element_type(_normalize(e, aval.shape[dim]), dt),
                     len(starts_shape)))
      index_map.append(dim), collapsed.append(dim), sizes.append(1)
    else:
      start, step, n = _slice_extent(e, aval.shape[dim])
      shape.append(n)
      if step == 1:
        if n != aval.shape[dim]:
          starts.append((np.asarray(start, dt), len(starts_shape)))
          index_map.append(dim)
        sizes.append(n), offset_dims.append(out_dim)
      else:
        idx = lax_add(np.asarray(start, dt)[()], lax_mul(np.asarray(step, dt)[()], iota(dt, n)))
        if step < 0:
          reversed_.append(out_dim)
          idx = rev(idx, (0,))
        starts.append((idx, len(starts_shape)))
        starts_shape.append(n)
        index_map.append(dim), collapsed.append(dim), sizes.append(1)
      out_dim += 1
    dim += 1
  if not starts:
    indices = None
  elif len(starts) == 1:
    indices = expand_dims(starts[0][0], (np.ndim(starts[0][0]),))
  else:
    full = (*starts_shape, 1)
    indices = concatenate([broadcast_in_dim(s, full, tuple(range(at, at + np.ndim(s))))
                           for s, at in starts], len(starts_shape))
  dn = gs.GatherDimensionNumbers(tuple(offset_dims), tuple(sorted(collapsed)), tuple(index_map))
  return _GatherPlan(indices, dn, tuple(sizes), tuple(shape), new_axes, tuple(reversed_),
                     advanced)


def _gather_take(x, aval, entries, mode, fill_value, indices_are_sorted, unique_indices):
  """``x[entries]`` by one gather; also the axes the None entries add."""
  plan = _gather_plan(aval, entries)
  gathered = tuple(n for k, n in enumerate(plan.shape) if k not in plan.new_axes)
  if 0 in plan.shape:
    return lax_full(gathered, 0, aval.dtype), plan.new_axes
  out = x
  if plan.indices is not None:
    if 0 in [plan.slice_sizes[d] for d in plan.dnums.collapsed_slice_dims] and plan.advanced:
      raise TypeError(f"index out of bounds for an axis of size 0 (shape {aval.shape})")
    out = gs.gather(x, plan.indices, plan.dnums, plan.slice_sizes, mode=mode,
                    fill_value=fill_value,
                    indices_are_sorted=indices_are_sorted or not plan.advanced,
                    unique_indices=unique_indices or not plan.advanced)
  if plan.reversed:
    out = rev(out, plan.reversed)
  return out, plan.new_axes


def _normalize(i, size: int):
  """An integer index with negative values wrapped (``i + size`` where ``i < 0``)."""
  if isinstance(i, (int, np.integer)):
    return np.asarray(i + size if i < 0 else i, np.int32 if -2**31 <= i < 2**31 else np.int64)
  if isinstance(i, np.ndarray):
    dt = np.int32 if i.dtype.itemsize < 8 or not dtypes.enable_x64() else np.int64
    return np.where(i < 0, i + size, i).astype(dt)
  aval = get_aval(i)
  if dtypes.is_unsigned(aval.dtype):
    return i
  return select_n(lt(i, np.zeros((), aval.dtype)[()]), i,
                      lax_add(i, dimension_constant(size, aval.dtype)))


# ---------------------------------------------------------------------------------------
# x.at[idx]

class _IndexUpdateHelper:
  """``x.at[idx]``: functional updates (JAX arrays are immutable)."""
  __slots__ = ("array",)

  def __init__(self, array) -> None:
    self.array = array

  def __getitem__(self, idx):
    return _IndexUpdateRef(self.array, idx)

  def __repr__(self) -> str:
    return f"_IndexUpdateHelper({self.array!r})"


class _IndexUpdateRef:
  """``x.at[idx]``: ``get`` gathers; ``set``/``add``/... return an updated copy. Scatters
  drop out-of-bounds updates unless ``mode='clip'``."""
  __slots__ = ("array", "index")

  def __init__(self, array, index) -> None:
    self.array = array
    self.index = index

  def __repr__(self) -> str:
    return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

  def get(self, *, indices_are_sorted=False, unique_indices=False, mode=None,
          fill_value=None, out_sharding=None):
    return rewriting_take(self.array, self.index, mode, fill_value, indices_are_sorted,
                          unique_indices, out_sharding)

  def set(self, values, **kw):
    return _scatter_update(self.array, self.index, values, gs.scatter, **kw)

  def add(self, values, **kw):
    return _scatter_update(self.array, self.index, values, gs.scatter_add, **kw)

  def subtract(self, values, **kw):
    return _scatter_update(self.array, self.index, values, gs.scatter_sub, **kw)

  def multiply(self, values, **kw):
    return _scatter_update(self.array, self.index, values, gs.scatter_mul, **kw)

  mul = multiply

  def divide(self, values, **kw):
    return ufuncs.divide(self.array, self._factors(values, kw))

  def power(self, values, **kw):
    return ufuncs.power(self.array, self._factors(values, kw))

  def _factors(self, values, kw):
    """Ones, times ``values`` at every (possibly repeated) indexed position."""
    ones = full_like(self.array, 1)  # (of the array's weak type, as JAX's ones_like)
    return _scatter_update(ones, self.index, values, gs.scatter_mul, **kw)

  def min(self, values, **kw):
    return _scatter_update(self.array, self.index, values, gs.scatter_min, **kw)

  def max(self, values, **kw):
    return _scatter_update(self.array, self.index, values, gs.scatter_max, **kw)

  def apply(self, func, **kw):
    """``func`` applied to every indexed element, once per time it is indexed."""
    from xjax._src.primitives.lax.gather_scatter import scatter_apply

    def scatter_fn(x, indices, updates, dn, **kw):
      return scatter_apply(x, indices, func, dn, update_shape=get_aval(updates).shape, **kw)
    return _scatter_update(self.array, self.index, np.zeros((), get_aval(self.array).dtype),
                           scatter_fn, **kw)


def _scatter_update(x, idx, values, scatter_fn, *, indices_are_sorted=False,
                    unique_indices=False, mode=None, out_sharding=None):
  """Scatters into the flattened array at the flat positions ``idx`` selects (eagerly, as
  one program compiled per index template)."""
  values = _update_values(x, values)
  if current_trace() is eval_trace and out_sharding is None and scatter_fn in _SCATTERS:
    split = _split_index(idx)
    if split is not None:
      return _compiled_scatter(x, split[1], values, template=split[0], scatter_fn=scatter_fn,
                               indices_are_sorted=indices_are_sorted,
                               unique_indices=unique_indices, mode=mode)
  if out_sharding is not None:  # (JAX's: the scatter runs over Auto axes, its operands and
    # index arrays resharded in, its result resharded as asked)
    items = idx if type(idx) is tuple else (idx,)
    arrays, rebuilt = _split_out_arrays(items, lambda e: isinstance(e, (Array, Tracer)))
    return auto_axes(lambda a, v, *arrays: _scatter(
        a, tuple(rebuilt(arrays)) if type(idx) is tuple else rebuilt(arrays)[0], v,
        scatter_fn, indices_are_sorted, unique_indices, mode),
        out_sharding=out_sharding)(x, values, *arrays)
  return _scatter(x, idx, values, scatter_fn, indices_are_sorted, unique_indices,
                  mode)


_SCATTERS = (gs.scatter, gs.scatter_add, gs.scatter_sub, gs.scatter_mul, gs.scatter_min,
             gs.scatter_max)


def _update_values(x, values):
  """``values`` as JAX takes them for an update of ``x``: a Python int that fits ``x``'s
  integer dtype as that dtype, anything else as ``asarray`` has it; a FutureWarning (as JAX
  0.10.2 gives) where they cannot be cast to ``x``'s dtype safely (the update is then done
  in the promoted dtype and the result cast back)."""
  dtype = get_aval(x).dtype
  if (type(values) is int and dtypes.is_integer(dtype)
      and np.iinfo(dtype).min <= values <= np.iinfo(dtype).max):
    return asarray(values, dtype=dtype)
  values = asarray(values)
  if not dtypes.safe_to_cast(values, dtype):
    warnings.warn("scatter inputs have incompatible types: cannot safely cast value from "
                  f"dtype={get_aval(values).dtype} to dtype={dtype} with "
                  f"jax_numpy_dtype_promotion={config._read('jax_numpy_dtype_promotion')}. "
                  "In future JAX releases this will result in an error.", FutureWarning,
                  stacklevel=4)
  return values


@compiled_when_eager(static_argnames=("template", "scatter_fn", "indices_are_sorted",
                                      "unique_indices", "mode"))
def _compiled_scatter(x, arrays, values, *, template, scatter_fn, indices_are_sorted,
                      unique_indices, mode):
  return _scatter(x, _join_index(template, arrays), values, scatter_fn,
                  indices_are_sorted, unique_indices, mode)


def _scatter(x, idx, values, scatter_fn, indices_are_sorted, unique_indices, mode):
  aval = get_aval(x)
  if isinstance(idx, list):
    raise TypeError("Using a non-tuple sequence for multidimensional indexing is not "
                    "allowed; use `arr[array(seq)]` instead of `arr[seq]`.")
  if dslice_indexing.has_dslice(idx):
    return _scatter_at_positions(x, idx, values, scatter_fn, indices_are_sorted,
                                 unique_indices, mode)
  entries, empty = _expand(aval, idx)
  plan = _gather_plan(aval, entries)
  if empty or 0 in plan.shape or not aval.size:   # nothing to update
    return x
  target, v = promote_dtypes(x, values)   # updated in the common dtype, as JAX
  v_aval = get_aval(v)
  try:
    v = broadcast_to(v, plan.shape, out_sharding=_window_split(aval, entries, plan))
  except (ValueError, TypeError):
    raise ValueError(f"Incompatible types for broadcasting: input type={v_aval.str_short(False)} "
                     f"and requested type={v_aval.update(shape=plan.shape).str_short(False)}"
                     ) from None
  if plan.new_axes:
    v = squeeze(v, plan.new_axes)
  if plan.reversed:
    v = rev(v, plan.reversed)
  indices = plan.indices if plan.indices is not None else np.zeros((0,), np.int32)
  dn = gs.ScatterDimensionNumbers(plan.dnums.offset_dims, plan.dnums.collapsed_slice_dims,
                                  plan.dnums.start_index_map)
  out = scatter_fn(target, indices, v, dn,
                   indices_are_sorted=indices_are_sorted or not plan.advanced,
                   unique_indices=unique_indices or not plan.advanced, mode=mode)
  return convert_element_type(out, aval.dtype, aval.weak_type)


def _window_split(aval, entries, plan):
  """The split of the updates' window over a type-sharded operand, as JAX broadcasts them:
  a sliced dimension's as the operand's, new axes unsplit (None where nothing is split or
  the index is advanced)."""
  spec = spec_of(aval)
  if plan.advanced or all(p is None for p in spec):
    return None
  parts, dims = [], iter(range(aval.ndim))
  for e in entries:
    if e is None:
      parts.append(None)
    elif isinstance(e, slice):
      parts.append(spec[next(dims)])
    else:
      next(dims)
  return PartitionSpec(*parts) if any(p is not None for p in parts) else None


def _scatter_at_positions(x, idx, values, scatter_fn, indices_are_sorted, unique_indices,
                          mode):
  """A scatter into the flattened array at the flat positions ``idx`` selects of it (its
  ``jax.ds`` entries taken by indexing, clamped or filled as ``mode`` says)."""
  aval = get_aval(x)
  mode = gs.GatherScatterMode.from_any(mode)
  if aval.size == 0:
    return x
  flat_dt = index_dtype(aval.size)
  ids = reshape(iota(flat_dt, aval.size), aval.shape)
  pos_mode = gs.GatherScatterMode.CLIP if mode is gs.GatherScatterMode.CLIP else _FILL
  pos = rewriting_take(ids, idx, mode=pos_mode, fill_value=aval.size)
  pos_shape = get_aval(pos).shape
  target, v = promote_dtypes(x, values)
  v = broadcast_to(v, pos_shape)
  n = int(np.prod(pos_shape, dtype=np.int64))
  out = scatter_fn(reshape(target, (aval.size,)), reshape(pos, (n, 1)), reshape(v, (n,)),
                   gs.ScatterDimensionNumbers((), (0,), (0,)),
                   indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                   mode=_FILL)
  return convert_element_type(reshape(out, aval.shape), aval.dtype, aval.weak_type)


# ---------------------------------------------------------------------------------------
# take / take_along_axis / put / place

def take(a, indices, axis=None, out=None, mode=None, unique_indices=False,
         indices_are_sorted=False, fill_value=None):
  """Elements of ``a`` at ``indices`` along ``axis`` (flattened when None)."""
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.take is not supported.")
  return _take_along(a, indices, None if axis is None else operator.index(axis), mode=mode,
                     unique_indices=unique_indices, indices_are_sorted=indices_are_sorted,
                     fill_value=fill_value)


@compiled_when_eager(staged="_take", hashable_statics=True, static_argnames=(
    "axis", "mode", "unique_indices", "indices_are_sorted", "fill_value"))
def _take_along(a, indices, axis, *, mode, unique_indices, indices_are_sorted, fill_value):
  """jnp.take as JAX jits it: one gather, its negative indices wrapped (``fill``, the
  default), reduced modulo the axis (``wrap``) or clamped (``clip``)."""
  a, indices = asarray(a), asarray(indices)
  if axis is None:
    a = reshape(a, (get_aval(a).size,))
    axis = 0
  shape = get_aval(a).shape
  axis = canonical_axis(axis, len(shape), scalar_axis=False)
  if get_aval(indices).dtype == np.bool_:  # positions 0 and 1, not a mask (as JAX)
    indices = convert_element_type(indices, np.int32)
  if not dtypes.is_integer(get_aval(indices).dtype):
    raise ValueError("indices must have an integer type")
  if mode is None or mode == "fill":
    gather_mode = _FILL
    indices = _where(indices < 0, indices + shape[axis], indices)
  elif mode == "raise":
    raise NotImplementedError("The 'raise' mode to jnp.take is not supported.")
  elif mode == "wrap":
    indices = ufuncs.remainder(indices, shape[axis]) if shape[axis] else indices
    gather_mode = gs.GatherScatterMode.PROMISE_IN_BOUNDS
  elif mode == "clip":
    gather_mode = gs.GatherScatterMode.CLIP
  else:
    raise ValueError(f"Invalid mode '{mode}' for np.take")
  idx_shape = get_aval(indices).shape
  if shape[axis] == 0:
    if get_aval(indices).size:
      raise IndexError("Cannot do a non-empty jnp.take() from an empty axis.")
    return a
  if get_aval(indices).size == 0:
    return full_like(a, 0, shape=shape[:axis] + idx_shape + shape[axis + 1:])
  nidx = len(idx_shape)
  dnums = gs.GatherDimensionNumbers(
      offset_dims=(*range(axis), *range(axis + nidx, len(shape) + nidx - 1)),
      collapsed_slice_dims=(axis,), start_index_map=(axis,))
  sizes = shape[:axis] + (1,) + shape[axis + 1:]
  return gs.gather(a, broadcast_in_dim(indices, idx_shape + (1,), tuple(range(nidx))), dnums,
                   sizes, mode=gather_mode, unique_indices=unique_indices,
                   indices_are_sorted=indices_are_sorted, fill_value=fill_value)


def _axis(axis, ndim, name):
  axis = operator.index(axis)
  if not -ndim <= axis < ndim:
    raise ValueError(f"{name}: axis {axis} is out of bounds for array of dimension {ndim}")
  return axis % ndim


@compiled_when_eager(staged="take_along_axis",
                     static_argnames=("axis", "mode", "fill_value", "wrap_negative_indices"))
def take_along_axis(arr, indices, axis=-1, mode=None, fill_value=None, *,
                    wrap_negative_indices=None):
  """``arr`` indexed along ``axis`` by ``indices`` (other dims broadcast with it), as one
  gather whose other matching dims are batch dims (JAX's).  Negative indices count from
  the end unless ``wrap_negative_indices`` is false (by default they do except with
  ``mode='promise_in_bounds'``, as JAX); then they are out of bounds."""
  arr, indices = arraylike("take_along_axis", arr, indices)
  a, indices = asarray(arr), asarray(indices)
  if not dtypes.is_integer(get_aval(indices).dtype):
    raise TypeError("take_along_axis indices must be of integer type, got "
                    f"{get_aval(indices).dtype}")
  if axis is None:
    if get_aval(indices).ndim != 1:
      raise ValueError("take_along_axis indices must be 1D if axis=None, got shape "
                       f"{get_aval(indices).shape}")
    a, axis = reshape(a, (get_aval(a).size,)), 0
  rank = get_aval(a).ndim
  if rank != get_aval(indices).ndim:
    raise ValueError("indices and arr must have the same number of dimensions; "
                     f"{get_aval(indices).ndim} vs. {rank}")
  axis = canonical_axis(axis, rank)
  idx_shape = get_aval(indices).shape
  size = get_aval(a).shape[axis]
  arr_shape = get_aval(a).shape[:axis] + (1,) + get_aval(a).shape[axis + 1:]
  out_shape = np.broadcast_shapes(idx_shape, arr_shape)
  if size == 0:
    return lax_full(out_shape, 0, get_aval(a).dtype)
  if wrap_negative_indices is None:
    wrap_negative_indices = mode != "promise_in_bounds"
  if wrap_negative_indices:  # (in a signed type that holds the axis size)
    indices = convert_element_type(indices, index_dtype(size))
    indices = _normalize(indices, size)
  if mode == "one_hot":  # the sum of each slice times its one-hot row (0 out of bounds)
    hot = ufuncs.equal(expand_dims(indices, (get_aval(indices).ndim,)),
                       iota(get_aval(indices).dtype, size))
    rows = expand_dims(moveaxis(a, axis, -1), (axis,))
    return reduce_sum(ufuncs.multiply(convert_element_type(hot, get_aval(a).dtype), rows),
                      (get_aval(hot).ndim - 1,))
  index_dims = [i for i, n in enumerate(idx_shape) if i == axis or n != 1]
  gather_indices = reshape(indices, tuple(out_shape[i] for i in index_dims) + (1,))
  sizes, offset, index_map, collapsed, operand_batch, indices_batch, squeezed = (
      [], [], [], [], [], [], [])
  new_i = j = 0  # the dim in the squeezed array, the dim in the gather's indices
  for i in range(rank):
    if i == axis:
      sizes.append(1), index_map.append(new_i), collapsed.append(new_i)
      new_i, j = new_i + 1, j + 1
    elif idx_shape[i] == 1:  # the whole of arr's axis, without an iota index
      offset.append(i), sizes.append(arr_shape[i])
      new_i += 1
    elif arr_shape[i] == 1:  # broadcast by the index: squeezed out of the array
      squeezed.append(i)
      j += 1
    else:  # equal sizes: corresponding elements, as batch dims
      sizes.append(0 if arr_shape[i] == 0 else 1)
      operand_batch.append(new_i), indices_batch.append(j)
      new_i, j = new_i + 1, j + 1
  dn = gs.GatherDimensionNumbers(
      offset_dims=tuple(offset), collapsed_slice_dims=tuple(collapsed),
      start_index_map=tuple(index_map), operand_batching_dims=tuple(operand_batch),
      start_indices_batching_dims=tuple(indices_batch))
  return gs.gather(squeeze(a, squeezed), gather_indices, dn, tuple(sizes),
                   mode="fill" if mode is None else mode, fill_value=fill_value)


@compiled_when_eager(static_argnames=("axis", "inplace", "mode"), staged="put_along_axis")
def put_along_axis(arr, indices, values, axis, inplace=True, *, mode=None):
  """``arr`` with ``values`` written at ``indices`` along ``axis``; needs
  ``inplace=False``."""
  if inplace:
    raise ValueError("jax.numpy.put_along_axis cannot modify arrays in-place, because JAX "
                     "arrays are immutable. Pass inplace=False to instead return an updated "
                     "array.")
  arr, indices, values = arraylike("put_along_axis", arr, indices, values)
  a, idx = asarray(arr), asarray(indices)
  if axis is None:
    if get_aval(idx).ndim != 1:
      raise ValueError("when axis=None, `indices` must have a single dimension.")
    return a.ravel().at[idx].set(values, mode=mode).reshape(a.shape)
  nd = get_aval(a).ndim
  if get_aval(idx).ndim != nd:
    raise ValueError("`indices` and `arr` must have the same number of dimensions")
  axis = canonical_axis(axis, nd)
  full = tuple(idx if d == axis else
               arange(a.shape[d]).reshape((1,) * d + (-1,) + (1,) * (nd - d - 1))
               for d in range(nd))
  return a.at[full].set(values, mode=mode)


def put(a, ind, v, mode=None, *, inplace=True):
  """NumPy's put without mutation: ``a`` flattened, with ``v`` (tiled) written at ``ind``;
  out-of-range indices clipped (``mode`` None or 'clip') or wrapped ('wrap')."""
  if inplace:
    raise ValueError("jax.numpy.put cannot modify arrays in-place, because JAX arrays are "
                     "immutable. Pass inplace=False to instead return an updated array.")
  if mode == "raise":
    raise NotImplementedError("The 'raise' mode to jnp.put is not supported.")
  if mode not in (None, "wrap", "clip"):
    raise ValueError(f"mode should be one of 'wrap' or 'clip'; got {mode=}")
  a, ind = asarray(a), asarray(ind)
  ind = reshape(ind, (get_aval(ind).size,))
  if mode == "wrap":
    ind = ufuncs.remainder(ind, get_aval(a).size)
  elif mode == "clip" and not dtypes.is_unsigned(get_aval(ind).dtype):
    ind = lax_max(ind, full_like(ind, 0))
  return _put_flat(a, ind, v, "clip")


def _put_flat(a, ind, v, scatter_mode):
  """``v`` (flattened, tiled or cut to ``ind``'s length) scattered into flattened ``a`` at
  the 1-D ``ind`` with ``scatter_mode``."""
  aval = get_aval(a)
  v = asarray(v)
  v = reshape(v, (get_aval(v).size,))
  n, m = get_aval(ind).size, get_aval(v).size
  if not n or not m:
    return a
  if m < n:
    v = concatenate([v] * (-(-n // m)), 0)
  if get_aval(v).size > n:
    v = lax_slice(v, (0,), (n,))
  flat = reshape(a, (aval.size,))
  return reshape(_IndexUpdateRef(flat, ind).set(v, mode=scatter_mode), aval.shape)


def place(arr, mask, vals, *, inplace=True):
  """NumPy's place without mutation: ``vals`` (tiled) written where ``mask`` holds. The
  mask's True positions come from a fixed-size nonzero, so it may be traced."""
  arr, mask, vals = arraylike("place", arr, mask, vals)
  if inplace:
    raise ValueError("jax.numpy.place cannot modify arrays in-place, because JAX arrays are "
                     "immutable. Pass inplace=False to instead return an updated array.")
  arr, mask, vals = asarray(arr), asarray(mask), asarray(vals)
  size = get_aval(mask).size
  if get_aval(arr).size != size:
    raise ValueError("place: arr and mask must be the same size")
  if not get_aval(vals).size:
    raise ValueError("Cannot place values from an empty array")
  if not size:
    return arr
  where = nonzero(reshape(mask, (size,)), size=size, fill_value=size)[0]
  return _put_flat(arr, where, vals, "drop")
