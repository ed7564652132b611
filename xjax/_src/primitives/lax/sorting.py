"""Sorting: ``sort`` (multi-operand, lexicographic on the first ``num_keys``) and ``top_k``.

Floats compare in a total order in which ``-0.0 == 0.0`` and every NaN sorts last.
Derivatives permute tangents with the sort permutation, applied as a one-hot contraction
(linear, so it transposes).
"""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.backend.lowering import compare_attributes, i64_array
from xjax._src.core.avals import ShapedArray, spec_of, tangent_aval
from xjax._src.foundations.sharding import ShardingTypeError
from xjax._src.core.trace import Tracer
from xjax._src.core.values import get_aval
from xjax._src.interpreters import batching
from xjax._src.interpreters.ad import Zero
from xjax._src.primitives.lax import shapes
from xjax._src.primitives.lax.gather_scatter import (GatherDimensionNumbers, GatherScatterMode,
                                                      gather)
from xjax._src.primitives.lax.primitive_builders import standard_primitive

_BOOL = ShapedArray((), np.bool_)


def _compare(sub, a, b, direction, aval):
  return sub.op("stablehlo.compare", [a, b], _BOOL,
                compare_attributes(direction, aval.dtype, total_order=True),
                in_avals=[aval, aval])


def _canonical_float(sub, x, aval):
  """Maps -0.0 to 0.0 and every NaN to the positive quiet NaN (which sorts last)."""
  zero = sub.constant(np.zeros((), aval.dtype), aval)
  nan = sub.constant(np.array(np.nan, aval.dtype), aval)
  cmp = lambda a, b, d: sub.op("stablehlo.compare", [a, b], _BOOL, compare_attributes(d),
                               in_avals=[aval, aval])
  x = sub.op("stablehlo.select", [cmp(x, zero, "EQ"), zero, x], aval, in_avals=[_BOOL, aval, aval])
  return sub.op("stablehlo.select", [cmp(x, x, "NE"), nan, x], aval, in_avals=[_BOOL, aval, aval])


def _lex_less(sub, pairs, avals, direction="LT"):
  """Lexicographic comparison of key pairs ``[(a0, b0), (a1, b1), ...]``."""
  expanded = []
  for (a, b), aval in zip(pairs, avals):
    if dtypes.is_complex(aval.dtype):  # complex keys order by (real, imag)
      part = ShapedArray((), dtypes.finfo(aval.dtype).dtype)
      for name in ("stablehlo.real", "stablehlo.imag"):
        expanded.append(((sub.op(name, [a], part, in_avals=[aval]),
                          sub.op(name, [b], part, in_avals=[aval])), part))
    else:
      expanded.append(((a, b), aval))
  result = None
  for (a, b), aval in reversed(expanded):
    if dtypes.is_inexact(aval.dtype):
      a, b = _canonical_float(sub, a, aval), _canonical_float(sub, b, aval)
    less = _compare(sub, a, b, direction, aval)
    if result is None:
      result = less
    else:
      eq = _compare(sub, a, b, "EQ", aval)
      result = sub.op("stablehlo.or", [less, sub.op("stablehlo.and", [eq, result], _BOOL)],
                      _BOOL)
  return result


def lower_sort(ctx, operands, avals, dimension, is_stable, num_keys, direction="LT"):
  scalars = [ShapedArray((), a.dtype) for a in avals]
  arg_avals = [s for s in scalars for _ in range(2)]

  def body(sub, args):
    pairs = [(args[2 * i], args[2 * i + 1]) for i in range(num_keys)]
    return [_lex_less(sub, pairs, scalars[:num_keys], direction)]
  reg = ctx.region(arg_avals, body)
  return ctx.op("stablehlo.sort", list(operands), list(avals),
                {"dimension": f"{dimension} : i64",
                 "is_stable": "true" if is_stable else "false"},
                regions=[reg], in_avals=list(avals))


def _sort_abstract_eval(*xs, dimension, is_stable, num_keys):
  if not xs:
    raise TypeError("sort requires at least one operand")
  shape = xs[0].shape
  if any(x.shape != shape for x in xs):
    raise TypeError(f"sort requires all operands to have the same shape, got "
                    f"{', '.join(str(x.shape) for x in xs)}")
  if not 0 <= dimension < len(shape):
    raise ValueError(f"sort: dimension {dimension} is out of bounds for shape {shape}")
  if not 1 <= num_keys <= len(xs):
    raise ValueError(f"sort: num_keys={num_keys} must be between 1 and the number of "
                     f"operands ({len(xs)})")
  return [ShapedArray(x.shape, x.dtype, x.weak_type) for x in xs]


def _sort_lowering(ctx, *xs, dimension, is_stable, num_keys):
  outs = lower_sort(ctx, xs, ctx.avals_out, dimension, is_stable, num_keys)
  return outs if isinstance(outs, list) else [outs]


def permute_along(t, perm, dimension, index_type=int):
  """``take_along_axis(t, perm, dimension)`` as one gather batched over the other dimensions
  (as JAX's sort and top_k JVPs: linear in ``t``, weak as ``t``, transposing to a strong
  scatter-add); the batching dimensions are of ``index_type`` (sort's are NumPy's, as
  JAX computes them)."""
  nd = get_aval(t).ndim
  others = tuple(index_type(d) for d in range(nd) if d != dimension)
  dn = GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(dimension,),
                              start_index_map=(dimension,), operand_batching_dims=others,
                              start_indices_batching_dims=others)
  idx = shapes.expand_dims(perm, (nd,))
  return gather(t, idx, dn, (1,) * nd, mode=GatherScatterMode.PROMISE_IN_BOUNDS)


def _sort_jvp(primals, tangents, *, dimension, is_stable, num_keys):
  shape = get_aval(primals[0]).shape
  iota = shapes.broadcasted_iota(np.uint32, shape, dimension)  # unsigned, as JAX
  outs = sort_p.bind(*primals, iota, dimension=dimension, is_stable=is_stable,
                     num_keys=num_keys)
  perm = outs[-1]
  out_t = [t if type(t) is Zero else permute_along(t, perm, dimension, np.int64)
           for t in tangents]
  return outs[:-1], out_t


def _sort_batch(axis, args, dims, *, dimension, is_stable, num_keys):
  # Keep the batch dimension where the (first) batched operand has it.
  bdim = next(d for d in dims if d is not None)
  xs = [batching.matchaxis(x, d, bdim, axis.size) for x, d in zip(args, dims)]
  new_dim = dimension + (dimension >= bdim)
  outs = sort_p.bind(*xs, dimension=new_dim, is_stable=is_stable, num_keys=num_keys)
  return outs, [bdim] * len(outs)


sort_p = standard_primitive("sort", _sort_abstract_eval, _sort_lowering, multiple_results=True)


def _sort_sharding(*xs, dimension, is_stable, num_keys):
  """The operands' split (argsort's index operand takes the keys'), which must leave the
  sorted dimension whole (as JAX's)."""
  for x in xs:
    if spec_of(x)[dimension] is not None:
      raise ShardingTypeError("Arguments to sort must be unsharded over the sorting dimension. "
                              f"Got arg sharding={x.sharding} and sorting dimension={dimension}")
  common = next(x._sharding for x in xs if x._sharding is not None)
  return [common] * len(xs)


sort_p.sharding_rule = _sort_sharding
sort_p.jvp = _sort_jvp
sort_p.batch = _sort_batch


def sort(operand, dimension: int = -1, is_stable: bool = True, num_keys: int = 1):
  """Sorts ``operand`` (an array or a sequence of arrays, keyed lexicographically by the
  first ``num_keys``) along ``dimension``."""
  single = not isinstance(operand, (tuple, list))
  ops = [operand] if single else list(operand)
  if not ops:
    raise TypeError("sort requires at least one operand")
  ndim = get_aval(ops[0]).ndim
  if ndim == 0:
    raise TypeError("sort requires operands of rank >= 1, got a scalar")
  if not -ndim <= dimension < ndim:
    raise ValueError(f"sort: dimension {dimension} is out of bounds for rank {ndim}")
  outs = sort_p.bind(*ops, dimension=int(dimension) % ndim, is_stable=bool(is_stable),
                     num_keys=int(num_keys))
  return outs[0] if single else tuple(outs)


def sort_key_val(keys, values, dimension: int = -1, is_stable: bool = True):
  return sort((keys, values), dimension, is_stable, 1)


# ---------------------------------------------------------------------------------------
# top_k

def _top_k_abstract_eval(x, *, k, axis):
  if dtypes.is_complex(x.dtype):
    raise ValueError("top_k is not compatible with complex inputs.")
  if k < 0:
    raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
  if x.ndim == 0:
    raise TypeError(f"top_k operand must have >= 1 dimension, got {x.shape}")
  if not 0 <= axis < x.ndim:
    raise ValueError(f"axis argument out of range: {axis=} for operand.shape={x.shape}")
  if x.shape[axis] < k:
    raise ValueError("k argument to top_k must be no larger than size along axis; got "
                     f"{k=} with shape={list(x.shape)} and {axis=}")
  if spec_of(x)[axis] is not None:
    raise ShardingTypeError("The input should be unsharded over the axis along which to "
                            f"compute the top_k values. Got input type={x} and axis={axis}")
  shape = x.shape[:axis] + (k,) + x.shape[axis + 1:]
  # both updates of the operand's type, the indices too keeping its weak type (as JAX)
  return [x.update(shape=shape), x.update(shape=shape, dtype=np.dtype(np.int32))]


def _top_k_lowering(ctx, x, *, k, axis):
  """A descending stable sort of (x, iota) along the last axis, cut to ``k`` (the operand
  swapped so ``axis`` is last, and back, as JAX)."""
  aval = ctx.avals_in[0]
  nd = aval.ndim
  perm = list(range(nd))
  perm[axis], perm[-1] = perm[-1], perm[axis]
  if axis != nd - 1:
    aval = aval.update(shape=tuple(aval.shape[p] for p in perm))
    x = ctx.op("stablehlo.transpose", [x], aval, {"permutation": i64_array(perm)},
               in_avals=[ctx.avals_in[0]])
  idx_aval = ShapedArray(aval.shape, np.int32)
  idx = ctx.op("stablehlo.iota", [], idx_aval, {"iota_dimension": f"{nd - 1} : i64"},
               in_avals=[])
  vals, ids = lower_sort(ctx, [x, idx], [aval, idx_aval], nd - 1, True, 1, "GT")
  cut = aval.shape[:-1] + (k,)
  attrs = {"start_indices": f"array<i64: {', '.join(['0'] * nd)}>",
           "limit_indices": f"array<i64: {', '.join(str(d) for d in cut)}>",
           "strides": f"array<i64: {', '.join(['1'] * nd)}>"}
  outs = [ctx.op("stablehlo.slice", [vals], aval.update(shape=cut), attrs, in_avals=[aval]),
          ctx.op("stablehlo.slice", [ids], idx_aval.update(shape=cut), attrs,
                 in_avals=[idx_aval])]
  if axis == nd - 1:
    return outs
  return [ctx.op("stablehlo.transpose", [o], out, {"permutation": i64_array(perm)})
          for o, out in zip(outs, ctx.avals_out)]


def _top_k_jvp(primals, tangents, *, k, axis):
  (x,), (t,) = primals, tangents
  vals, idx = top_k_p.bind(x, k=k, axis=axis)
  if type(t) is Zero:
    return [vals, idx], [Zero(tangent_aval(get_aval(vals))), Zero(tangent_aval(get_aval(idx)))]
  return [vals, idx], [permute_along(t, idx, axis), Zero(tangent_aval(get_aval(idx)))]


def _top_k_batch(batch_axis, args, dims, *, k, axis):
  (x,), (d,) = args, dims
  return top_k_p.bind(x, k=k, axis=axis + 1 if d <= axis else axis), [d, d]


top_k_p = standard_primitive("top_k", _top_k_abstract_eval, _top_k_lowering,
                             multiple_results=True)
top_k_p.jvp = _top_k_jvp
top_k_p.batch = _top_k_batch


def top_k(operand, k: int, *, axis: int = -1):
  """The ``k`` largest entries along ``axis`` (the last by default) and their int32
  indices; equal entries in index order."""
  # (JAX checks the sign first: a traced k is its TracerBoolConversionError)
  if (k < 0 if isinstance(k, Tracer) else int(k) < 0):
    raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
  k = int(k)
  ndim = get_aval(operand).ndim
  if not -ndim <= axis < ndim:
    raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
  return list(top_k_p.bind(operand, k=k, axis=axis % ndim))  # (a list, as JAX's)
