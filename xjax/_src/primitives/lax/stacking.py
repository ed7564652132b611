"""Joining and cutting arrays along an axis: ``stack``, ``unstack``, ``tile`` (``split``,
concatenate's transpose, is in shapes.py).

Each is a primitive (as in JAX), lowered through the slices, broadcasts and
concatenations it stands for. All are linear: stack and unstack transpose to each other,
and tile transposes to a sum over its copies."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from xjax._src.core.avals import ShapedArray
from xjax._src.core.values import get_aval
from xjax._src.core.avals import spec_of
from xjax._src.foundations.sharding import ShardingTypeError, typed_sharding
from xjax._src.interpreters import ad, batching
from xjax._src.interpreters.ad import Zero
from xjax._src.primitives.lax.shapes import (_instantiated, _linear_jvp, broadcast_in_dim,
                                             concatenate, expand_dims, index_in_dim,
                                             normalize_axis, reshape, same_sharding)
from xjax._src.primitives.lax.operand_checks import check_same_dtypes
from xjax._src.primitives.lax.primitive_builders import lowering_from, standard_primitive
from xjax._src.primitives.lax.reductions import reduce_sum


# ---------------------------------------------------------------------------------------
# stack / unstack

def _stack_abstract_eval(*xs, axis):
  if len({x.shape for x in xs}) > 1:
    raise ValueError("All input arrays must have the same shape. Got "
                     f"{', '.join(str(x.shape) for x in xs)}.")
  check_same_dtypes("stack", xs)
  x = xs[0]
  if not 0 <= axis <= x.ndim:
    raise ValueError(f"axis {axis} is out of bounds for array of dimension {x.ndim + 1}")
  return ShapedArray(x.shape[:axis] + (len(xs),) + x.shape[axis:], x.dtype,
                     all(a.weak_type for a in xs))


def _stack_batch(axis_data, args, dims, *, axis):
  xs = [batching.matchaxis(x, d, 0, axis_data.size) for x, d in zip(args, dims)]
  return stack_p.bind(*xs, axis=axis + 1), 0


stack_p = standard_primitive("stack", _stack_abstract_eval, lowering_from(
    lambda *xs, axis: concatenate([expand_dims(x, (axis,)) for x in xs], axis)))
stack_p.jvp = _linear_jvp(stack_p)
stack_p.transpose = lambda ct, *xs, axis: list(unstack_p.bind(ad.instantiate(ct), axis=axis))
stack_p.batch = _stack_batch


def _stack_sharding(*xs, axis):
  """The operands' common split (JAX's concatenate rule), the new dimension unsplit."""
  sharding = same_sharding(xs)
  if sharding is None:
    return None
  spec = tuple(sharding.spec)
  return typed_sharding(sharding.mesh, spec[:axis] + (None,) + spec[axis:])


stack_p.sharding_rule = _stack_sharding


def stack(operands: Sequence, axis: int = 0):
  """Stacks equal-shaped ``operands`` along a new ``axis``."""
  operands = list(operands)
  if not operands:
    raise ValueError("stack requires at least one operand")
  axis = normalize_axis(axis, get_aval(operands[0]).ndim + 1, "stack")
  return stack_p.bind(*operands, axis=axis)


def _unstack_abstract_eval(x, *, axis):
  if not 0 <= axis < x.ndim:
    raise ValueError(f"axis {axis} is out of bounds for array of dimension {x.ndim}")
  return [x.update(shape=x.shape[:axis] + x.shape[axis + 1:])] * x.shape[axis]


def _unstack_batch(axis_data, args, dims, *, axis):
  (x,), (d,) = args, dims
  outs = unstack_p.bind(x, axis=axis + (d <= axis))
  return outs, [d if d <= axis else d - 1] * len(outs)


unstack_p = standard_primitive("unstack", _unstack_abstract_eval, lowering_from(
    lambda x, axis: [index_in_dim(x, i, axis, keepdims=False)
                     for i in range(get_aval(x).shape[axis])]), multiple_results=True)
unstack_p.host_kernel = lambda avals, out_avals, *, axis: lambda x: list(np.moveaxis(x, axis, 0))
unstack_p.jvp = _linear_jvp(unstack_p)
unstack_p.transpose = lambda cts, x, *, axis: [stack_p.bind(*_instantiated(cts), axis=axis)]
unstack_p.batch = _unstack_batch


def _unstack_sharding(x, *, axis):
  """JAX's rule: ``x``'s split without ``axis``, which must not be split."""
  spec = spec_of(x)
  if spec[axis] is not None:
    raise ShardingTypeError(f"unstack operand cannot be sharded on the unstacking axis {axis}. "
                            f"Got operand type={x.str_short(short_dtypes=True)}")
  parts = spec[:axis] + spec[axis + 1:]
  out = typed_sharding(x._sharding.mesh, parts) if any(p is not None for p in parts) else None
  return [out] * x.shape[axis]


unstack_p.sharding_rule = _unstack_sharding


def unstack(x, axis: int = 0) -> tuple:
  """The slices of ``x`` along ``axis``, as a tuple."""
  axis = normalize_axis(axis, get_aval(x).ndim, "unstack")
  return tuple(unstack_p.bind(x, axis=axis))


# ---------------------------------------------------------------------------------------
# tile

def _tile_abstract_eval(x, *, reps):
  if len(reps) != x.ndim:
    raise TypeError(f"reps length must be equal to the ndim of x, got len(reps)={len(reps)} "
                    f"and x.ndim={x.ndim}.")
  if any(r < 0 for r in reps):
    raise ValueError(f"tile reps must be non-negative, got {reps}")
  return x.update(shape=tuple(r * s for r, s in zip(reps, x.shape)))


def _tile_copies(x, *, reps):
  """Copies as a leading size-``r`` dimension before each dimension, then merged (a key's
  stored trailing dimensions are copied once) into the operand's split."""
  aval = get_aval(x)
  shape = aval.shape
  reps = tuple(reps) + (1,) * (len(shape) - len(reps))
  inter = tuple(d for r, s in zip(reps, shape) for d in (r, s))
  x = broadcast_in_dim(x, inter, tuple(range(1, 2 * len(shape), 2)))
  split = None if aval._sharding is None else typed_sharding(aval._sharding.mesh, spec_of(aval))
  return reshape(x, tuple(r * s for r, s in zip(reps, shape)), out_sharding=split)


def _tile_transpose(ct, x, *, reps):
  aval = x.aval
  if type(ct) is Zero:
    return [Zero(aval)]
  inter = tuple(d for r, s in zip(reps, aval.shape) for d in (r, s))
  return [reduce_sum(reshape(ct, inter), tuple(range(0, 2 * aval.ndim, 2)))]


tile_p = standard_primitive("tile", _tile_abstract_eval, lowering_from(_tile_copies))
tile_p.jvp = _linear_jvp(tile_p)
tile_p.transpose = _tile_transpose
tile_p.batch = lambda axis_data, args, dims, *, reps: (
    tile_p.bind(args[0], reps=reps[:dims[0]] + (1,) + reps[dims[0]:]), dims[0])



def _tile_sharding(x, *, reps):
  """JAX's rule: ``x``'s split, which no repeated dimension may have."""
  for d, (p, r) in enumerate(zip(spec_of(x), reps)):
    if p is not None and r != 1:
      raise ShardingTypeError(f"Operand cannot be sharded on dimension {d} when the tiling is "
                              f"non-trivial. Got input type: {x.str_short(False)} with reps: "
                              f"{tuple(reps)}")
  return x._sharding


tile_p.sharding_rule = _tile_sharding


def tile(operand, reps: Sequence[int]):
  """``operand`` repeated ``reps[i]`` times along each dimension ``i``."""
  return tile_p.bind(operand, reps=tuple(int(r) for r in reps))
