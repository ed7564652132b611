"""The ``gather`` and ``scatter`` primitives (StableHLO's general indexing ops), their
out-of-bounds modes, and the vmap of dynamic_slice / dynamic_update_slice built on them.

Indices always carry their index vector in the last dimension (``index_vector_dim``)."""
from __future__ import annotations

import enum
import functools
from typing import Callable, NamedTuple, Sequence

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.foundations.sharding import ShardingTypeError
from xjax._src.backend.lowering import i64_array
from xjax._src.core.avals import ShapedArray, physical_aval, result_sharding, spec_of
from xjax._src.core.concrete import concrete_or_error, dim_or_int
from xjax._src.core.values import get_aval
from xjax._src.interpreters import ad, batching
from xjax._src.interpreters.staging import trace_to_jaxpr
from xjax._src.interpreters.ad import Zero
from xjax._src.primitives.lax import elementwise as ew
from xjax._src.primitives.lax import shapes
from xjax._src.primitives.lax.primitive_builders import standard_primitive, stored_dims
from xjax._src.primitives.lax.control_flow.loops import while_loop
from xjax._src.primitives.lax.reductions import reduce_and, reduce_max


class GatherDimensionNumbers(NamedTuple):
  offset_dims: tuple
  collapsed_slice_dims: tuple
  start_index_map: tuple
  operand_batching_dims: tuple = ()
  start_indices_batching_dims: tuple = ()


class ScatterDimensionNumbers(NamedTuple):
  update_window_dims: tuple
  inserted_window_dims: tuple
  scatter_dims_to_operand_dims: tuple
  operand_batching_dims: tuple = ()
  scatter_indices_batching_dims: tuple = ()


class GatherScatterMode(enum.Enum):
  """Out-of-bounds handling: CLIP clamps indices; FILL_OR_DROP returns ``fill_value`` from
  gathers and drops scatter updates; PROMISE_IN_BOUNDS leaves it to the backend (clamps).
  ONE_HOT, as in JAX 0.10.2, scatters as PROMISE_IN_BOUNDS and has no gather lowering."""
  CLIP = enum.auto()
  FILL_OR_DROP = enum.auto()
  PROMISE_IN_BOUNDS = enum.auto()
  ONE_HOT = enum.auto()

  @staticmethod
  def from_any(s) -> "GatherScatterMode":
    if isinstance(s, GatherScatterMode):
      return s
    if s is None or s in ("fill", "drop"):
      return GatherScatterMode.FILL_OR_DROP
    if s == "clip":
      return GatherScatterMode.CLIP
    if s == "promise_in_bounds":
      return GatherScatterMode.PROMISE_IN_BOUNDS
    if s == "one_hot":
      return GatherScatterMode.ONE_HOT
    raise ValueError(f'Unknown gather mode "{s}"')


def _tuples(nt):
  """Dimension numbers as tuples of integers (NumPy ones stay so, printed as JAX's)."""
  return type(nt)(*(tuple(d if isinstance(d, np.integer) else int(d) for d in f) for f in nt))


def _dims_attr(kind: str, fields: dict, index_vector_dim: int) -> str:
  body = ", ".join(f"{k} = [{', '.join(str(d) for d in v)}]" for k, v in fields.items() if v)
  sep = ", " if body else ""
  return f"#stablehlo.{kind}<{body}{sep}index_vector_dim = {index_vector_dim}>"


def _bool(b) -> str:
  return "true" if b else "false"


# ---------------------------------------------------------------------------------------
# gather

def _sorted(dims, name: str, op: str) -> None:
  if any(b < a for a, b in zip(dims, dims[1:])):
    raise TypeError(f"{name} in {op} op must be sorted; got {dims}")


def _distinct(dims, name: str, op: str) -> None:
  if len(set(dims)) != len(dims):
    raise TypeError(f"{name} in {op} op must not repeat; got: {dims}.")


def _in_range(dims, rank: int, name: str, op: str) -> None:
  """JAX's check of sorted dims: the first and the last (a bad 0 passes it, as in JAX)."""
  bad = [d for d in dims[:1] if d < 0] + [d for d in dims[-1:] if d >= rank]
  if bad and bad[0]:
    raise TypeError(f"Invalid {name} set in {op} op; valid range is [0, {rank}); got: "
                    f"{bad[0]}.")


def _check_gather_dims(operand, indices, dn) -> None:
  """JAX's (and XLA's verifier's) checks of gather dimension numbers, in JAX's order and
  words: an invalid gather is refused here, naming the field, not by XLA."""
  out_rank = len(dn.offset_dims) + indices.ndim - 1
  _sorted(dn.offset_dims, "offset_dims", "gather")
  _distinct(dn.offset_dims, "offset_dims", "gather")
  for i, d in enumerate(dn.offset_dims):
    if not 0 <= d < out_rank:
      raise TypeError(f"Offset dimension {i} in gather op is out of bounds; got {d}, but "
                      f"should have been in [0, {out_rank})")
  if indices.ndim and len(dn.start_index_map) != indices.shape[-1]:
    raise TypeError(f"Gather op has {len(dn.start_index_map)} elements in start_index_map "
                    f"and the bound of dimension index_vector_dim={indices.ndim - 1} of "
                    f"indices is {indices.shape[-1]}. These two numbers must be equal.")
  for i, d in enumerate(dn.start_index_map):
    if not 0 <= d < operand.ndim:
      raise TypeError(f"Invalid start_index_map; domain is [0, {operand.ndim}), got: "
                      f"{i}->{d}.")
  _distinct(dn.start_index_map, "start_index_map", "gather")
  _sorted(dn.collapsed_slice_dims, "collapsed_slice_dims", "gather")
  _in_range(dn.collapsed_slice_dims, operand.ndim, "collapsed_slice_dims", "gather")
  _distinct(dn.collapsed_slice_dims, "collapsed_slice_dims", "gather")
  _distinct(dn.operand_batching_dims, "operand_batching_dims", "gather")
  _sorted(dn.operand_batching_dims, "operand_batching_dims", "gather")
  _in_range(dn.operand_batching_dims, operand.ndim, "operand_batching_dims", "gather")
  for (a, b), (x, y) in (((dn.collapsed_slice_dims, dn.operand_batching_dims),
                          ("collapsed_slice_dims", "operand_batching_dims")),
                         ((dn.start_index_map, dn.operand_batching_dims),
                          ("start_index_map", "operand_batching_dims"))):
    if set(a) & set(b):
      raise TypeError(f"{x} and {y} in gather op must be disjoint; got: {a} and {b}.")


def _gather_abstract_eval(operand, indices, *, dimension_numbers, slice_sizes,
                          indices_are_sorted, unique_indices, mode, fill_value):
  dn = dimension_numbers
  if not dtypes.is_integer(indices.dtype):
    raise ValueError(f"indices must have an integer type, got {indices.dtype.name}")
  _check_gather_dims(operand, indices, dn)
  if len(slice_sizes) != operand.ndim:
    raise TypeError(f"gather slice_sizes must have length operand.ndim ({operand.ndim}), got "
                    f"{slice_sizes}")
  if not indices.ndim or indices.shape[-1] != len(dn.start_index_map):
    raise TypeError(f"gather indices last dimension must equal len(start_index_map) = "
                    f"{len(dn.start_index_map)}, got indices shape {indices.shape}")
  if 0 not in indices.shape:  # (JAX's checks: XLA's verifier would reject these)
    for i, (size, n) in enumerate(zip(slice_sizes, operand.shape)):
      if not 0 <= size <= n:
        raise TypeError(f"Slice size at index {i} in gather op is out of range, must be "
                        f"within [0, {n} + 1), got {size}.")
  for i, d in enumerate(dn.collapsed_slice_dims):
    if slice_sizes[d] != 1:
      raise TypeError(f"Gather op can only collapse slice dims with bound 1, but bound is "
                      f"{slice_sizes[d]} for index {d} at position {i}.")
  for i, d in enumerate(dn.operand_batching_dims):
    if slice_sizes[d] > 1:
      raise TypeError(f"Gather op can only have operand batching dims with bound 0/1, but "
                      f"bound is {slice_sizes[d]} for index {d} at position {i}.")
  dropped = set(dn.collapsed_slice_dims) | set(dn.operand_batching_dims)
  offset_sizes = [s for i, s in enumerate(slice_sizes) if i not in dropped]
  if len(offset_sizes) != len(dn.offset_dims):
    raise TypeError(f"gather offset_dims {dn.offset_dims} do not match the uncollapsed "
                    f"slice dims of slice_sizes {slice_sizes}")
  batch = list(indices.shape[:-1])
  rank = len(batch) + len(offset_sizes)
  off, bat, out = iter(offset_sizes), iter(batch), []
  for i in range(rank):
    out.append(next(off) if i in dn.offset_dims else next(bat))
  return ShapedArray(tuple(out), operand.dtype, operand.weak_type)


def _gather_lowering(ctx, operand, indices, *, dimension_numbers, slice_sizes,
                     indices_are_sorted, unique_indices, mode, fill_value):
  if mode is GatherScatterMode.ONE_HOT:  # (JAX 0.10.2 fails the same way, when lowering)
    raise AssertionError("gather has no lowering for GatherScatterMode.ONE_HOT; use mode "
                         "'clip', 'fill' or 'promise_in_bounds'.")
  out = ctx.avals_out[0]
  if out.size == 0 and not dtypes.is_extended(out.dtype):
    # Nothing to gather (vmap over zero members); XLA would reject the size-1 slices of
    # the empty batch dimension.
    zero = ctx.constant(np.zeros((), out.dtype), ShapedArray((), out.dtype))
    return ctx.op("stablehlo.broadcast_in_dim", [zero], out,
                  {"broadcast_dimensions": i64_array(())})
  if mode is GatherScatterMode.FILL_OR_DROP:
    return _lower_fill(ctx, operand, indices, ctx.avals_in, dimension_numbers=dimension_numbers,
                       slice_sizes=slice_sizes, indices_are_sorted=indices_are_sorted,
                       unique_indices=unique_indices, fill_value=fill_value)
  dn = dimension_numbers
  attr = _dims_attr("gather", {
      "offset_dims": dn.offset_dims, "collapsed_slice_dims": dn.collapsed_slice_dims,
      "operand_batching_dims": dn.operand_batching_dims,
      "start_indices_batching_dims": dn.start_indices_batching_dims,
      "start_index_map": dn.start_index_map}, ctx.avals_in[1].ndim - 1)
  return ctx.op("stablehlo.gather", [operand, indices], ctx.avals_out[0],
                {"dimension_numbers": attr, "indices_are_sorted": _bool(indices_are_sorted),
                 "slice_sizes": i64_array(slice_sizes)})


def _gather_jvp(primals, tangents, **params):
  operand, indices = primals
  out = gather_p.bind(operand, indices, **params)
  if type(tangents[0]) is Zero:
    return out, Zero(get_aval(out))
  if params["fill_value"] is not None:  # (out-of-bounds slices have no tangent)
    params = dict(params, fill_value=0)
  return out, gather_p.bind(tangents[0], indices, **params)


def _gather_transpose(ct, operand, indices, *, dimension_numbers, slice_sizes,
                      indices_are_sorted, unique_indices, mode, fill_value):
  aval = operand.aval
  if type(ct) is Zero:
    return [Zero(aval), None]
  dn = dimension_numbers
  sdn = ScatterDimensionNumbers(dn.offset_dims, dn.collapsed_slice_dims, dn.start_index_map,
                                dn.operand_batching_dims, dn.start_indices_batching_dims)
  zeros = shapes.full(aval.shape, 0, aval.dtype, sharding=aval._sharding)
  return [scatter_add(zeros, indices, ct, sdn, indices_are_sorted=indices_are_sorted,
                      unique_indices=unique_indices, mode=mode), None]


def _shift(dims):
  """``dims`` one further on, as NumPy integers (as JAX's batching rules compute them: its
  jaxprs print them so)."""
  return tuple(np.add(1, dims)) if len(dims) else ()


def _gather_batch(axis, args, dims, *, dimension_numbers, slice_sizes, **params):
  operand, indices = args
  od, idd = dims
  dn = dimension_numbers
  if idd is None:  # the batch axis becomes one more (full) slice dimension, first in output
    operand = batching.moveaxis(operand, od, 0)
    new = GatherDimensionNumbers((0,) + _shift(dn.offset_dims), _shift(dn.collapsed_slice_dims),
                                 _shift(dn.start_index_map), _shift(dn.operand_batching_dims),
                                 dn.start_indices_batching_dims)
    return gather_p.bind(operand, indices, dimension_numbers=new,
                         slice_sizes=(axis.size,) + tuple(slice_sizes), **params), 0
  indices = batching.moveaxis(indices, idd, 0)
  if od is None:  # one more batch dimension of indices, first in output (whose indices
    # may no longer be sorted or unique, as JAX's rule says)
    new = dn._replace(offset_dims=tuple(d + 1 for d in dn.offset_dims),
                      start_indices_batching_dims=_shift(dn.start_indices_batching_dims))
    params = dict(params, indices_are_sorted=False, unique_indices=False)
    return gather_p.bind(operand, indices, dimension_numbers=new, slice_sizes=slice_sizes,
                         **params), 0
  operand = batching.moveaxis(operand, od, 0)
  new = GatherDimensionNumbers(_shift(dn.offset_dims), _shift(dn.collapsed_slice_dims),
                               _shift(dn.start_index_map),
                               (0,) + _shift(dn.operand_batching_dims),
                               (0,) + _shift(dn.start_indices_batching_dims))
  return gather_p.bind(operand, indices, dimension_numbers=new,
                       slice_sizes=(min(axis.size, 1),) + tuple(slice_sizes), **params), 0


def _gather_sharding(operand, indices, *, dimension_numbers, slice_sizes, **params):
  """JAX's rule: operand dimensions taken whole keep their split (as the output's offset
  dimensions), batch dimensions take the indices' split or the operand's (for vmap's
  batching dimensions); a split operand dimension indexed into (``x[i]``, ``take`` along
  it), batching dimensions split differently, or indices split elsewhere than their batch
  dimensions leave the result's split ambiguous: JAX's ShardingTypeError."""
  dn = dimension_numbers
  ospec, ispec = spec_of(operand), list(spec_of(indices))
  if (any(slice_sizes[d] != operand.shape[d] and ospec[d] is not None
          for d in dn.start_index_map)
      or any(ospec[o] is not None and ispec[i] is not None and ospec[o] != ispec[i]
             for o, i in zip(dn.operand_batching_dims, dn.start_indices_batching_dims))
      or any(p is not None for i, p in enumerate(ispec)
             if i not in dn.start_indices_batching_dims)):
    raise ShardingTypeError(
        "Use `.at[...].get(out_sharding=)` to provide output PartitionSpec for the gather "
        "indexing as out sharding could not be resolved unambiguously (or would require "
        f"collectives on inputs). Got operand={operand!r}, indices={indices!r}")
  for o, i in zip(dn.operand_batching_dims, dn.start_indices_batching_dims):
    ispec[i] = ispec[i] or ospec[o]
  offsets = iter([p for d, p in enumerate(ospec)
                  if d not in dn.collapsed_slice_dims and d not in dn.operand_batching_dims])
  batch = iter(ispec[:-1])
  parts = [next(offsets) if i in dn.offset_dims else next(batch)
           for i in range(len(dn.offset_dims) + indices.ndim - 1)]
  out = _gather_abstract_eval(operand, indices, dimension_numbers=dn, slice_sizes=slice_sizes,
                              **params)
  return result_sharding("gather", [operand, indices], out.shape, out.dtype, parts)


gather_p = standard_primitive("gather", _gather_abstract_eval, _gather_lowering)
gather_p.sharding_rule = _gather_sharding
gather_p.jvp = _gather_jvp
gather_p.transpose = _gather_transpose
gather_p.batch = _gather_batch


def _gather_physical_lowering(ctx, operand, indices, *, dimension_numbers, slice_sizes,
                              **params):
  """Gathers of PRNG keys: each key's stored trailing dims become trailing offset dims."""
  extra = stored_dims(ctx.avals_in[0])
  out_ndim = ctx.avals_out[0].ndim
  dn = dimension_numbers._replace(
      offset_dims=(*dimension_numbers.offset_dims, *range(out_ndim, out_ndim + len(extra))))
  if params["mode"] is GatherScatterMode.FILL_OR_DROP:  # (the key data filled)
    params = {k: v for k, v in params.items() if k != "mode"}
    return _lower_fill(ctx, operand, indices, [physical_aval(ctx.avals_in[0]), ctx.avals_in[1]],
                       dimension_numbers=dn, slice_sizes=(*slice_sizes, *extra), **params)
  return _gather_lowering(ctx, operand, indices, dimension_numbers=dn,
                          slice_sizes=(*slice_sizes, *extra), **params)


gather_p.physical_lowering = _gather_physical_lowering


def default_fill_value(dtype):
  """JAX's fill for out-of-bounds gathers (a Python scalar, as JAX's param): NaN, True, the
  lowest signed / highest unsigned int."""
  dtype = np.dtype(dtype)
  if dtypes.is_inexact(dtype):
    return float("nan")
  if dtype == np.bool_:
    return True
  info = np.iinfo(dtype)
  return int(info.max if dtypes.is_unsigned(dtype) else info.min)


def _in_bounds(indices, operand_shape, index_map, window):
  """A boolean mask over the index batch: every start index keeps its window in bounds."""
  aval = get_aval(indices)
  upper = np.array([operand_shape[d] - window[d] for d in index_map], aval.dtype)
  upper = shapes.broadcast_in_dim(upper, aval.shape, (aval.ndim - 1,))
  ok = ew.bitwise_and(ew.ge(indices, np.zeros((), aval.dtype)[()]), ew.le(indices, upper))
  return reduce_and(ok, (aval.ndim - 1,))


def _gather_fill(operand, indices, *, dimension_numbers, slice_sizes, fill_value, **params):
  """A FILL_OR_DROP gather as lowered: a clamping gather, its slices that start out of
  bounds replaced by ``fill_value``."""
  op_aval = get_aval(operand)
  out = gather_p.bind(operand, indices, dimension_numbers=dimension_numbers,
                      slice_sizes=slice_sizes, mode=GatherScatterMode.CLIP, fill_value=None,
                      **params)
  mask = _in_bounds(indices, op_aval.shape, dimension_numbers.start_index_map, slice_sizes)
  out_aval = get_aval(out)
  batch_pos = tuple(i for i in range(out_aval.ndim) if i not in dimension_numbers.offset_dims)
  mask = shapes.broadcast_in_dim(mask, out_aval.shape, batch_pos)
  fill = default_fill_value(op_aval.dtype) if fill_value is None else fill_value
  fill = shapes.full(out_aval.shape, ew.convert_element_type(fill, op_aval.dtype,
                                                             op_aval.weak_type))
  return ew.select_n(mask, fill, out)


def _lower_fill(ctx, operand, indices, avals, **params):
  """Emits ``_gather_fill`` at ``avals`` (their splits left to the partitioner)."""
  closed = trace_to_jaxpr(lambda o, i: [_gather_fill(o, i, **params)],
                          [a.update(sharding=None) for a in avals])
  return ctx.lower_jaxpr(closed.jaxpr, closed.consts, [operand, indices])[0]


def clamp_indices(indices, operand_shape, index_map, window):
  aval = get_aval(indices)
  upper = np.array([max(operand_shape[d] - window[d], 0) for d in index_map], aval.dtype)
  upper = shapes.broadcast_in_dim(upper, aval.shape, (aval.ndim - 1,))
  return ew.max(ew.min(indices, upper), shapes.full(aval.shape, 0, aval.dtype))


def gather(operand, start_indices, dimension_numbers, slice_sizes, *, unique_indices=False,
           indices_are_sorted=False, mode=None, fill_value=None):
  """Gathers slices of ``operand`` of ``slice_sizes`` starting at ``start_indices``; with
  mode FILL_OR_DROP, a slice starting out of bounds is ``fill_value`` (a static scalar,
  by default ``default_fill_value``)."""
  dn = _tuples(dimension_numbers)
  slice_sizes = tuple(map(dim_or_int, slice_sizes))
  # as JAX, a bare lax.gather promises in-bounds indices (the backend clamps)
  mode = GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else \
      GatherScatterMode.from_any(mode)
  if mode is not GatherScatterMode.FILL_OR_DROP:
    fill_value = None
  elif fill_value is None:  # (PRNG keys: their data's)
    fill_value = default_fill_value(physical_aval(get_aval(operand)).dtype)
  else:
    fill_value = concrete_or_error(fill_value, "fill_value")
    if isinstance(fill_value, np.ndarray) and fill_value.ndim == 0:
      fill_value = fill_value.item()
  return gather_p.bind(operand, start_indices, dimension_numbers=dn, slice_sizes=slice_sizes,
                       indices_are_sorted=bool(indices_are_sorted),
                       unique_indices=bool(unique_indices), mode=mode, fill_value=fill_value)


# ---------------------------------------------------------------------------------------
# scatter family

# Each combining scatter's ``update_jaxpr`` (JAX's param, on two scalars of the operand's
# dtype: its element and the update) is traced from these; a plain ``scatter``'s is None
# (the update replaces the element). Booleans add as ``or`` and multiply as ``and``.
_COMBINERS = {"scatter-add": ew.add, "scatter-mul": ew.mul, "scatter-min": ew.min,
              "scatter-max": ew.max, "scatter-sub": ew.sub}
_BOOL_COMBINERS = {"scatter-add": ew.bitwise_or, "scatter-mul": ew.bitwise_and}


@functools.lru_cache(maxsize=None)
def update_jaxpr(name: str, dtype: np.dtype):
  """The ``update_jaxpr`` of scatter primitive ``name`` over ``dtype`` (one per pair, so
  equal params compare equal)."""
  if name == "scatter":
    return None
  combine = (_BOOL_COMBINERS if dtype == np.bool_ else {}).get(name, _COMBINERS[name])
  scalar = ShapedArray((), dtype)
  return trace_to_jaxpr(lambda a, b: [combine(a, b)], [scalar, scalar]).jaxpr


def _check_scatter_dims(operand, indices, updates, dn) -> None:
  """JAX's (and XLA's verifier's) checks of scatter dimension numbers, in JAX's order and
  words: an invalid scatter is refused here, naming the field, not by XLA."""
  _sorted(dn.update_window_dims, "update_window_dims", "scatter")
  _distinct(dn.update_window_dims, "update_window_dims", "scatter")
  _in_range(dn.update_window_dims, updates.ndim, "update_window_dims", "scatter")
  _sorted(dn.inserted_window_dims, "inserted_window_dims", "scatter")
  _distinct(dn.inserted_window_dims, "inserted_window_dims", "scatter")
  _in_range(dn.inserted_window_dims, operand.ndim, "inserted_window_dims", "scatter")
  _sorted(dn.operand_batching_dims, "operand_batching_dims", "scatter")
  _distinct(dn.operand_batching_dims, "operand_batching_dims", "scatter")
  _in_range(dn.operand_batching_dims, operand.ndim, "operand_batching_dims", "scatter")
  for a, b, x in ((dn.inserted_window_dims, dn.operand_batching_dims, "inserted_window_dims"),
                  (dn.scatter_dims_to_operand_dims, dn.operand_batching_dims,
                   "scatter_dims_to_operand_dims")):
    if set(a) & set(b):
      raise TypeError(f"{x} and operand_batching_dims in scatter op must be disjoint; got: "
                      f"{a} and {b}.")
  window = (len(dn.update_window_dims) + len(dn.inserted_window_dims)
            + len(dn.operand_batching_dims))
  if operand.ndim != window:
    raise TypeError(f"Scatter op has window of size {window}; doesn't match operand of rank "
                    f"{operand.ndim}.")
  if indices.ndim and len(dn.scatter_dims_to_operand_dims) != indices.shape[-1]:
    raise TypeError(f"Scatter op has {len(dn.scatter_dims_to_operand_dims)} elements in "
                    "scatter_dims_to_operand_dims and the bound of dimension "
                    f"index_vector_dim={indices.ndim - 1} of indices is {indices.shape[-1]}. "
                    "These two numbers must be equal")
  for i, d in enumerate(dn.scatter_dims_to_operand_dims):
    if not 0 <= d < operand.ndim:
      raise TypeError(f"Invalid scatter_dims_to_operand_dims mapping; domain is "
                      f"[0, {operand.ndim}), got: {i}->{d}.")
  _distinct(dn.scatter_dims_to_operand_dims, "scatter_dims_to_operand_dims", "scatter")


def _scatter_abstract_eval(operand, indices, updates, *, dimension_numbers, **params):
  if operand.dtype != updates.dtype:
    raise TypeError(f"scatter operand and updates must have the same dtype, got "
                    f"{operand.dtype.name} and {updates.dtype.name}")
  if not dtypes.is_integer(indices.dtype):
    raise ValueError(f"indices must have an integer type, got {indices.dtype.name}")
  dn = dimension_numbers
  rank = max(indices.ndim, 1) - 1 + len(dn.update_window_dims)
  if updates.ndim != rank:
    raise TypeError(f"Updates tensor must be of rank {rank}; got {updates.ndim}.")
  _check_scatter_dims(operand, indices, updates, dn)
  if not indices.ndim or indices.shape[-1] != len(dn.scatter_dims_to_operand_dims):
    raise TypeError("scatter indices last dimension must equal "
                    f"len(scatter_dims_to_operand_dims), got indices shape {indices.shape}")
  scatter_dims = [d for d in range(updates.ndim) if d not in dn.update_window_dims]
  for i, d in enumerate(scatter_dims):
    if updates.shape[d] != indices.shape[i]:
      raise TypeError("Bounds of the scatter dimensions of updates must be the same as the "
                      "bounds of the corresponding dimensions of scatter indices. For scatter "
                      f"dimension {i}, updates bound is {updates.shape[d]}, indices bound is "
                      f"{indices.shape[i]}.")
  window_operand_dims = [d for d in range(operand.ndim) if d not in dn.inserted_window_dims
                         and d not in dn.operand_batching_dims]
  for d, od in zip(dn.update_window_dims, window_operand_dims):
    if updates.shape[d] > operand.shape[od]:
      raise TypeError("Bounds of the window dimensions of updates must not exceed the bounds "
                      f"of the corresponding dimensions of operand. For dimension {d}, updates "
                      f"bound is {updates.shape[d]}, operand bound is {operand.shape[od]}.")
  return operand


def _scatter_lowering(ctx, operand, indices, updates, *, dimension_numbers,
                      indices_are_sorted, unique_indices, mode, update_jaxpr, update_consts):
  dn = dimension_numbers
  avals_in, out_aval = list(ctx.avals_in), ctx.avals_out[0]
  scalar = ShapedArray((), avals_in[0].dtype)
  if mode is GatherScatterMode.CLIP:  # (clamped here, not in the jaxpr, as JAX lowers it)
    op_aval, idx_aval, upd_aval = avals_in
    _, sizes = _gather_dims_for(dn, op_aval.shape, upd_aval.shape)
    closed = trace_to_jaxpr(lambda i: [clamp_indices(i, op_aval.shape,
                                                     dn.scatter_dims_to_operand_dims, sizes)],
                            [idx_aval.update(sharding=None)])
    indices = ctx.lower_jaxpr(closed.jaxpr, closed.consts, [indices])[0]

  def body(sub, args):
    if update_jaxpr is None:
      return [args[1]]
    return sub.lower_jaxpr(update_jaxpr, update_consts, args)
  region = ctx.region([scalar, scalar], body)
  attr = _dims_attr("scatter", {
      "update_window_dims": dn.update_window_dims,
      "inserted_window_dims": dn.inserted_window_dims,
      "input_batching_dims": dn.operand_batching_dims,
      "scatter_indices_batching_dims": dn.scatter_indices_batching_dims,
      "scatter_dims_to_operand_dims": dn.scatter_dims_to_operand_dims},
      avals_in[1].ndim - 1)
  return ctx.op("stablehlo.scatter", [operand, indices, updates], out_aval,
                {"scatter_dimension_numbers": attr,
                 "indices_are_sorted": _bool(indices_are_sorted),
                 "unique_indices": _bool(unique_indices)}, regions=[region],
                in_avals=avals_in)


def _gather_dims_for(dn: ScatterDimensionNumbers, operand_shape, updates_shape):
  """The gather reading exactly the windows a scatter writes."""
  gdn = GatherDimensionNumbers(dn.update_window_dims, dn.inserted_window_dims,
                               dn.scatter_dims_to_operand_dims, dn.operand_batching_dims,
                               dn.scatter_indices_batching_dims)
  unit = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
  windows = iter(updates_shape[d] for d in dn.update_window_dims)
  sizes = tuple(1 if i in unit else next(windows) for i in range(len(operand_shape)))
  return gdn, sizes


def _gather_updates(x, indices, updates_shape, dn, params):
  """The windows of ``x`` a scatter with ``params`` writes, read with the scatter's mode (a
  dropped update's window reads 0; a clipped one's, the clamped window)."""
  gdn, sizes = _gather_dims_for(dn, get_aval(x).shape, updates_shape)
  mode = params["mode"]
  return gather(x, indices, gdn, sizes, indices_are_sorted=params["indices_are_sorted"],
                unique_indices=params["unique_indices"], mode=mode,
                fill_value=0 if mode is GatherScatterMode.FILL_OR_DROP else None)


def _linear_scatter_jvp(prim, zeros_first: bool = False):
  """The JVP of a scatter linear in operand and updates; ``zeros_first``: zero tangents
  are made before the primal scatter (as JAX's scatter, not its scatter-add, orders them)."""
  def jvp(primals, tangents, **params):
    x, i, u = primals
    tx, tu = tangents[0], tangents[2]
    if type(tx) is Zero and type(tu) is Zero:
      out = prim.bind(x, i, u, **params)
      return out, Zero(get_aval(out))
    if zeros_first:
      tx, tu = ad.instantiate(tx), ad.instantiate(tu)
    out = prim.bind(x, i, u, **params)
    return out, prim.bind(ad.instantiate(tx), i, ad.instantiate(tu), **params)
  return jvp


def _scatter_jvp(primals, tangents, *, dimension_numbers, **params):
  """scatter's JVP.  Where indices may repeat, which update lands is XLA's choice; as in
  JAX, every update gets an id, the ids are scattered the same way, and the values and
  tangents of the updates whose id landed (and of the operand elements none overwrote) are
  scatter-added."""
  kw = dict(dimension_numbers=dimension_numbers, **params)
  if params["unique_indices"]:
    return _unique_scatter_jvp(primals, tangents, **kw)
  x, i, u = primals
  tx, tu = tangents[0], tangents[2]
  if type(tx) is Zero and type(tu) is Zero:
    out = scatter_p.bind(x, i, u, **kw)
    return out, Zero(get_aval(out))
  tx, tu = ad.instantiate(tx), ad.instantiate(tu)
  x_shape, u_shape = get_aval(x).shape, get_aval(u).shape
  ids_shape = tuple(1 if d in dimension_numbers.update_window_dims else n
                    for d, n in enumerate(u_shape))
  n_ids = int(np.prod(ids_shape))
  id_dtype = np.dtype(np.uint32 if n_ids < 2 ** 32 else np.uint64)
  update_ids = ew.add(shapes.reshape(shapes.broadcasted_iota(id_dtype, (n_ids,), 0),
                                     ids_shape), shapes.full(u_shape, 1, id_dtype))
  scattered_ids = scatter_p.bind(shapes.full(x_shape, 0, id_dtype), i, update_ids, **kw)
  gdn, sizes = _gather_dims_for(dimension_numbers, x_shape, u_shape)
  landed_ids = gather(scattered_ids, i, gdn, sizes,
                      mode=GatherScatterMode.PROMISE_IN_BOUNDS)

  def kept(v):  # an operand-shaped value where no update landed, else 0
    untouched = ew.eq(scattered_ids, shapes.full(x_shape, 0, id_dtype))
    return ew.select_n(untouched, shapes.full(x_shape, 0, get_aval(v).dtype), v)

  def landed(v):  # an updates-shaped value where its update landed, else 0
    return ew.select_n(ew.eq(update_ids, landed_ids),
                       shapes.full(u_shape, 0, get_aval(v).dtype), v)
  add_kw = _adding(dimension_numbers, params, get_aval(x).dtype)
  x, u, tx, tu = kept(x), landed(u), kept(tx), landed(tu)
  return scatter_add_p.bind(x, i, u, **add_kw), scatter_add_p.bind(tx, i, tu, **add_kw)


def _scatter_transpose(is_add):
  def transpose(ct, x, i, u, *, dimension_numbers, **params):
    u_aval = u.aval if ad.is_undefined(u) else get_aval(u)
    if type(ct) is Zero:
      return [Zero(x.aval) if ad.is_undefined(x) else None, None,
              Zero(u_aval) if ad.is_undefined(u) else None]
    ct_x = ct_u = None
    if ad.is_undefined(x):
      ct_x = ct if is_add else scatter_p.bind(
          ct, i, shapes.full(u_aval.shape, 0, u_aval.dtype),
          dimension_numbers=dimension_numbers, **params)
    if ad.is_undefined(u):  # (a gather with its default flags, as JAX's)
      ct_u = _gather_updates(ct, i, u_aval.shape, dimension_numbers,
                             dict(params, indices_are_sorted=False, unique_indices=False))
    return [ct_x, None, ct_u]
  return transpose


def _adding(dimension_numbers, params, dtype) -> dict:
  """A scatter's params for a ``scatter-add`` over the same windows."""
  return dict(params, dimension_numbers=dimension_numbers,
              update_jaxpr=update_jaxpr("scatter-add", dtype), update_consts=())


def _scatter_mul_jvp(primals, tangents, *, dimension_numbers, **params):
  """As JAX's: linear in the operand; in the updates, ``x * (the scattered tangents)`` (which
  is their derivative only where each element is written once: unique indices)."""
  x, i, u = primals
  tx, tu = tangents[0], tangents[2]
  kw = dict(dimension_numbers=dimension_numbers, **params)
  out = scatter_mul_p.bind(x, i, u, **kw)
  terms = []
  if type(tx) is not Zero:
    terms.append(scatter_mul_p.bind(tx, i, u, **kw))
  if type(tu) is not Zero:
    if not params["unique_indices"]:
      raise NotImplementedError(
          "scatter_mul gradients are only implemented if `unique_indices=True`")
    x_aval = get_aval(x)
    terms.append(ew.mul(x, scatter_add_p.bind(
        shapes.full(x_aval.shape, 0, x_aval.dtype), i, tu,
        **_adding(dimension_numbers, params, x_aval.dtype))))
  if not terms:
    return out, Zero(get_aval(out))
  return out, terms[0] if len(terms) == 1 else ad.add_tangents(*terms)


def _scatter_mul_transpose(ct, x, i, u, *, dimension_numbers, **params):
  if ad.is_undefined(u):
    raise NotImplementedError("scatter_mul is linear only in its operand")
  if type(ct) is Zero:
    return [Zero(x.aval), None, None]
  return [scatter_mul_p.bind(ct, i, u, dimension_numbers=dimension_numbers, **params),
          None, None]


def _chooser_scatter_jvp(prim):
  """min/max, as JAX's: where several values contend for an element, its tangent is the
  average of the winners' (the operand's own among them when it is retained)."""
  def jvp(primals, tangents, *, dimension_numbers, **params):
    x, i, u = primals
    out = prim.bind(x, i, u, dimension_numbers=dimension_numbers, **params)
    tx, tu = tangents[0], tangents[2]
    if type(tx) is Zero and type(tu) is Zero:
      return out, Zero(get_aval(out))
    tx, tu = ad.instantiate(tx), ad.instantiate(tu)
    x_aval, u_aval = get_aval(x), get_aval(u)
    gdn, sizes = _gather_dims_for(dimension_numbers, x_aval.shape, u_aval.shape)
    take = lambda v: gather(v, i, gdn, sizes)
    zeros_u = lambda: shapes.full(u_aval.shape, 0, u_aval.dtype)
    ones_u = lambda: shapes.full(u_aval.shape, 1, u_aval.dtype)
    plain_add = dict(update_jaxpr=update_jaxpr("scatter-add", x_aval.dtype), update_consts=(),
                     dimension_numbers=dimension_numbers, indices_are_sorted=False,
                     unique_indices=False, mode=GatherScatterMode.FILL_OR_DROP)
    select = lambda pred, on_true, on_false: ew.select_n(pred, on_false, on_true)

    def count(updates):  # (the operand's zeros made first, as in JAX)
      zeros_x = shapes.full(x_aval.shape, 0, x_aval.dtype)
      return take(scatter_add_p.bind(zeros_x, i, updates(), **plain_add))
    initial, target = take(x), take(out)
    won, retained = ew.eq(u, target), ew.eq(initial, target)
    n_won = count(lambda: select(won, ones_u(), zeros_u()))
    n_refs = count(ones_u)
    one = np.array(1, u_aval.dtype)  # (typed: a Python float is float64 under x64)
    u_share = select(retained, ew.div(one, ew.add(n_won, one)), ew.div(one, n_won))
    u_coef = select(won, u_share, zeros_u())
    x_share = select(retained, ew.div(one, ew.add(n_won, one)), zeros_u())
    x_coef = ew.div(ew.add(np.array(-1, u_aval.dtype), x_share), n_refs)
    t_updates = ew.add(ew.mul(take(tx), x_coef), ew.mul(tu, u_coef))
    return out, scatter_add_p.bind(tx, i, t_updates,
                                   **_adding(dimension_numbers, params, x_aval.dtype))
  return jvp


def _scatter_batch(prim):
  def rule(axis, args, dims, *, dimension_numbers, **params):
    (x, i, u), (dx, di, du) = args, dims
    x, u = batching.bdim_to_front(x, dx, axis.size), batching.bdim_to_front(u, du, axis.size)
    dn = dimension_numbers
    if di is None:  # the batch axis is one more window dimension of the updates, as JAX
      new = ScatterDimensionNumbers((0,) + _shift(dn.update_window_dims),
                                    _shift(dn.inserted_window_dims),
                                    _shift(dn.scatter_dims_to_operand_dims),
                                    _shift(dn.operand_batching_dims),
                                    dn.scatter_indices_batching_dims)
      return prim.bind(x, i, u, dimension_numbers=new, **params), 0
    i = batching.bdim_to_front(i, di, axis.size)
    new = ScatterDimensionNumbers(_shift(dn.update_window_dims),
                                  _shift(dn.inserted_window_dims),
                                  _shift(dn.scatter_dims_to_operand_dims),
                                  (0,) + _shift(dn.operand_batching_dims),
                                  (0,) + _shift(dn.scatter_indices_batching_dims))
    return prim.bind(x, i, u, dimension_numbers=new, **params), 0
  return rule


def _make_scatter(name):
  combine = {"scatter-add": "add", "scatter-mul": "mul"}.get(name)

  def abstract_eval(operand, indices, updates, **params):
    if combine and operand.dtype == np.bool_:  # (lax's add/mul reject bool, as JAX's)
      raise TypeError(f"{combine} does not accept dtype bool at position 0. Accepted dtypes "
                      "at position 0 are subtypes of integer, floating, complexfloating.")
    return _scatter_abstract_eval(operand, indices, updates, **params)
  prim = standard_primitive(name, abstract_eval, _scatter_lowering)
  prim.batch = _scatter_batch(prim)
  prim.sharding_rule = _scatter_sharding
  return prim


def _scatter_sharding(operand, indices, updates, *, dimension_numbers, **params):
  """JAX's rule (a gather's, read backwards): batch dimensions of the operand, indices and
  updates agree (or are unsplit), window dimensions the updates cover whole are split as
  the operand's, and everything else -- the windows' other dimensions, the dimensions
  updates are inserted into, the query dimensions of indices and updates, the index
  vector -- is unsplit; the result is the operand's split, completed from the updates'
  and the indices'. Otherwise the result's split is ambiguous: JAX's ShardingTypeError."""
  dn = dimension_numbers
  ospec, ispec, uspec = spec_of(operand), spec_of(indices), spec_of(updates)
  if all(p is None for p in (*ospec, *ispec, *uspec)):
    return None
  queries = [d for d in range(updates.ndim) if d not in dn.update_window_dims]
  batch = list(zip(dn.operand_batching_dims, dn.scatter_indices_batching_dims,
                   [queries[i] for i in dn.scatter_indices_batching_dims]))
  windows = list(zip(dn.update_window_dims,
                     [d for d in range(operand.ndim) if d not in dn.inserted_window_dims
                      and d not in dn.operand_batching_dims]))
  if not (all(len({p for p in (ospec[o], ispec[i], uspec[u]) if p is not None}) <= 1
              for o, i, u in batch)
          and all((updates.shape[u] == operand.shape[o] and uspec[u] == ospec[o])
                  or (uspec[u] is None and ospec[o] is None) for u, o in windows)
          and all(ospec[d] is None for d in dn.inserted_window_dims)
          and all(uspec[d] is None for d in queries
                  if d not in [u for _, _, u in batch])
          and all(p is None for d, p in enumerate(ispec)
                  if d not in dn.scatter_indices_batching_dims)):
    raise ShardingTypeError(
        "Use `.at[...].set/add/mul/...(out_sharding=)` to provide output PartitionSpec for "
        "the scatter update as out sharding could not be resolved unambiguously (or would "
        f"require collectives on inputs). Got operand={operand!r}, indices={indices!r}, "
        f"updates={updates!r}")
  out = list(ospec)
  for o, i, u in batch:
    out[o] = out[o] or ispec[i] or uspec[u]
  for u, o in windows:
    out[o] = out[o] or uspec[u]
  return result_sharding("scatter", [operand, indices, updates], operand.shape,
                         operand.dtype, out)


scatter_p = _make_scatter("scatter")


def _scatter_physical_lowering(ctx, operand, indices, updates, *, dimension_numbers, **params):
  """Writing PRNG keys: each key's stored trailing dims become trailing window dims."""
  extra = len(stored_dims(ctx.avals_in[0]))
  upd_ndim = ctx.avals_in[2].ndim
  dn = dimension_numbers._replace(update_window_dims=(
      *dimension_numbers.update_window_dims, *range(upd_ndim, upd_ndim + extra)))
  ctx.avals_in = [physical_aval(ctx.avals_in[0]), ctx.avals_in[1],
                  physical_aval(ctx.avals_in[2])]
  return scatter_p.lowering(ctx, operand, indices, updates, dimension_numbers=dn, **params)


scatter_p.physical_lowering = _scatter_physical_lowering
scatter_add_p = _make_scatter("scatter-add")
scatter_mul_p = _make_scatter("scatter-mul")
scatter_min_p = _make_scatter("scatter-min")
scatter_max_p = _make_scatter("scatter-max")
_unique_scatter_jvp = _linear_scatter_jvp(scatter_p, zeros_first=True)
scatter_p.jvp = _scatter_jvp
scatter_p.transpose = _scatter_transpose(is_add=False)
scatter_add_p.jvp = _linear_scatter_jvp(scatter_add_p)
scatter_add_p.transpose = _scatter_transpose(is_add=True)
scatter_mul_p.jvp = _scatter_mul_jvp
scatter_mul_p.transpose = _scatter_mul_transpose
scatter_min_p.jvp = _chooser_scatter_jvp(scatter_min_p)
scatter_max_p.jvp = _chooser_scatter_jvp(scatter_max_p)


def _scatter_fn(prim):
  def scatter_fn(operand, scatter_indices, updates, dimension_numbers, *,
                 indices_are_sorted=False, unique_indices=False, mode=None):
    dn = _tuples(dimension_numbers)
    mode = GatherScatterMode.from_any(mode)
    return prim.bind(operand, scatter_indices, updates, dimension_numbers=dn,
                     indices_are_sorted=bool(indices_are_sorted),
                     unique_indices=bool(unique_indices), mode=mode,
                     update_jaxpr=update_jaxpr(prim.name, get_aval(operand).dtype),
                     update_consts=())
  scatter_fn.__name__ = prim.name.replace("-", "_")
  scatter_fn.__doc__ = f"``{prim.name}``: writes ``updates`` into windows of ``operand``."
  return scatter_fn


scatter = _scatter_fn(scatter_p)
scatter_add = _scatter_fn(scatter_add_p)
scatter_mul = _scatter_fn(scatter_mul_p)
scatter_min = _scatter_fn(scatter_min_p)
scatter_max = _scatter_fn(scatter_max_p)


# ---------------------------------------------------------------------------------------
# vmap of dynamic_slice / dynamic_update_slice with batched start indices

def _stacked_indices(axis, idxs, idims):
  """The start indices as (batch, n) gather indices, each column broadcast (as JAX's)."""
  dt = np.int64 if any(get_aval(i).dtype == np.int64 for i in idxs) else np.int32
  cols = [shapes.broadcast_in_dim(
      ew.convert_element_type(i if d is None else batching.moveaxis(i, d, 0), dt),
      (axis.size, 1), () if d is None else (0,)) for i, d in zip(idxs, idims)]
  return shapes.concatenate(cols, 1) if cols else shapes.full((axis.size, 0), 0, dt)


def batched_dynamic_slice(axis, x, xd, idxs, idims, slice_sizes):
  """vmap of dynamic_slice with batched start indices: a gather, batched at dim 0."""
  n = len(slice_sizes)
  indices = _stacked_indices(axis, idxs, idims)
  if xd is None:
    dn = GatherDimensionNumbers(tuple(range(1, n + 1)), (), tuple(range(n)))
    return gather(x, indices, dn, slice_sizes, mode=GatherScatterMode.CLIP)
  x = batching.moveaxis(x, xd, 0)
  dn = GatherDimensionNumbers(_shift(range(n)), (), _shift(range(n)), (0,), (0,))
  return gather(x, indices, dn, (1,) + tuple(slice_sizes), mode=GatherScatterMode.CLIP,
                indices_are_sorted=True, unique_indices=True)


def batched_dynamic_update_slice(axis, x, xd, upd, ud, idxs, idims):
  """vmap of dynamic_update_slice: a scatter (as JAX, so weak as the operand), batched at
  dim 0; start indices shared by the batch index the other dimensions."""
  x = batching.bdim_to_front(x, xd, axis.size)
  n = len(idxs)
  if all(d is None for d in idims):
    dt = np.int64 if any(get_aval(i).dtype == np.int64 for i in idxs) else np.int32
    indices = shapes.concatenate([shapes.broadcast_in_dim(ew.convert_element_type(i, dt), (1,), ())
                                  for i in idxs], 0) if idxs else shapes.full((0,), 0, dt)
    upd = batching.bdim_to_front(upd, ud, axis.size)  # (after the indices, as JAX)
    dn = ScatterDimensionNumbers((0,) + _shift(range(n)), (), _shift(range(n)))
    return scatter(x, indices, upd, dn, indices_are_sorted=True, unique_indices=True,
                   mode=GatherScatterMode.CLIP)
  indices = _stacked_indices(axis, idxs, idims)  # (before the updates' broadcast, as JAX)
  upd = batching.bdim_to_front(upd, ud, axis.size)
  dn = ScatterDimensionNumbers(_shift(range(n)), (), _shift(range(n)), (0,), (0,))
  return scatter(x, indices, upd, dn, indices_are_sorted=True, unique_indices=True,
                 mode=GatherScatterMode.CLIP)


def _dynamic_slice_batch(axis, args, dims, *, slice_sizes):
  x, *idxs = args
  xd, *idims = dims
  if all(d is None for d in idims):
    idxs = list(idxs)
    idxs.insert(xd, np.zeros((), get_aval(idxs[0]).dtype if idxs else np.int32)[()])
    sizes = list(slice_sizes)
    sizes.insert(xd, axis.size)
    return shapes.dynamic_slice_p.bind(x, *idxs, slice_sizes=tuple(sizes)), xd
  return batched_dynamic_slice(axis, x, xd, idxs, idims, slice_sizes), 0


def _dynamic_update_slice_batch(axis, args, dims):
  x, upd, *idxs = args
  xd, ud, *idims = dims
  return batched_dynamic_update_slice(axis, x, xd, upd, ud, idxs, idims), 0


# dynamic_slice and dynamic_update_slice (shapes.py) batch to a gather and a scatter: their
# batching rules are registered here, beside gather and scatter
shapes.dynamic_slice_p.batch = _dynamic_slice_batch
shapes.dynamic_update_slice_p.batch = _dynamic_update_slice_batch


# ---------------------------------------------------------------------------------------
# scatter_sub: operand[idx] -= updates

scatter_sub_p = _make_scatter("scatter-sub")
scatter_sub_p.jvp = _linear_scatter_jvp(scatter_sub_p)
_add_transpose = _scatter_transpose(is_add=True)


def _scatter_sub_transpose(ct, x, i, u, **params):
  ct_x, _, ct_u = _add_transpose(ct, x, i, u, **params)
  if ct_u is not None and type(ct_u) is not Zero:
    ct_u = ew.neg(ct_u)
  return [ct_x, None, ct_u]


scatter_sub_p.transpose = _scatter_sub_transpose
scatter_sub = _scatter_fn(scatter_sub_p)


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
  dn = GatherDimensionNumbers(offset_dims=tuple(range(1, len(rest) + 1)),
                                 collapsed_slice_dims=tuple(sorted(axes)),
                                 start_index_map=axes)
  sizes = tuple(1 if d in axes else shape[d] for d in range(len(shape)))
  return gather(src, indices, dn, sizes, mode=GatherScatterMode.PROMISE_IN_BOUNDS)


def scatter_apply(operand, scatter_indices, func: Callable, dimension_numbers, *,
                  update_shape=(), indices_are_sorted=False, unique_indices=False,
                  mode=None):
  """Applies ``func`` to each entry of ``operand`` the scatter addresses, once per time
  it is addressed (``update_shape`` is the shape of the scatter's updates). Not
  differentiable, as in JAX."""
  if isinstance(operand, ad.JVPTracer):
    raise NotImplementedError("scatter_apply JVP not implemented")
  aval = get_aval(operand)
  hits = scatter_add(shapes.full(aval.shape, 0, np.int32), scatter_indices,
                        shapes.full(tuple(update_shape), 1, np.int32), dimension_numbers,
                        indices_are_sorted=indices_are_sorted,
                        unique_indices=unique_indices, mode=mode)
  rounds = reduce_max(hits, tuple(range(aval.ndim))) if aval.ndim else hits

  def body(carry):
    i, x = carry
    return ew.add(i, np.int32(1)), ew.select_n(ew.lt(i, hits), x, func(x))
  return while_loop(lambda c: ew.lt(c[0], rounds), body, (np.int32(0), operand))[1]
