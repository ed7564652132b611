"""Collective primitives over named axes: psum, pmean, pmax, pmin, all_gather, axis_index,
ppermute.

A named axis comes from ``vmap(..., axis_name=...)``.  Each primitive is marked
``is_collective``, so the batching trace owning the axis runs its batch rule even when the
operand is unbatched; the rule computes the collective over the batch dimension.  Outside
such a trace the axis name is unbound, and evaluation raises ``NameError`` as JAX does.
"""
from __future__ import annotations

import numpy as np

from xjax._src import tree_util
from xjax._src.core.avals import ShapedArray
from xjax._src.core.trace import Primitive
from xjax._src.core.values import get_aval
from xjax._src.interpreters import ad, batching
from xjax._src.lax import elementwise, reductions, shapes


def _names(axis_name) -> tuple:
  return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


def _unbound(*_, axis_name, **__):
  raise NameError(f"unbound axis name: {_names(axis_name)[0]}")


def _collective(name: str, abstract_eval) -> Primitive:
  prim = Primitive(name)
  prim.is_collective = True
  prim.abstract_eval = abstract_eval
  prim.impl = _unbound
  prim.lowering = lambda ctx, *args, **params: _unbound(**params)
  return prim


def _same_aval(x, **_):
  return x


def _rest(axis, axis_name):
  """The axis names other than ``axis``'s, or None when ``axis`` is not among them."""
  names = _names(axis_name)
  if axis.name not in names:
    return None
  return tuple(n for n in names if n != axis.name)


# ---------------------------------------------------------------------------------------
# psum / pmax / pmin: reduce over the named axes; the result is the same for every member.

def _reducer_batch(prim, reduce, scale_unbatched):
  def rule(axis, args, dims, *, axis_name):
    (x,), (d,) = args, dims
    rest = _rest(axis, axis_name)
    if rest is None:  # another (outer) axis: the collective acts per batch element
      return prim.bind(x, axis_name=axis_name), d
    if d is None:
      out = scale_unbatched(x, axis.size)
    else:
      out = reduce(x, (d,))
    if rest:
      out = prim.bind(out, axis_name=rest if len(rest) > 1 else rest[0])
    return out, None
  return rule


def _psum_unbatched(x, size):
  aval = get_aval(x)
  return elementwise.mul(x, elementwise.convert_element_type(np.array(size, aval.dtype),
                                                             aval.dtype, aval.weak_type))


def _psum_transpose(ct, x, *, axis_name):
  return [psum_p.bind(ad.instantiate(ct), axis_name=axis_name)]


psum_p = _collective("psum", _same_aval)
ad.deflinear(psum_p, _psum_transpose)
psum_p.batch = _reducer_batch(psum_p, reductions.reduce_sum,
                              _psum_unbatched)
pmax_p = _collective("pmax", _same_aval)
pmax_p.batch = _reducer_batch(pmax_p, reductions.reduce_max,
                              lambda x, _: x)
pmin_p = _collective("pmin", _same_aval)
pmin_p.batch = _reducer_batch(pmin_p, reductions.reduce_min,
                              lambda x, _: x)


def _tree_bind(prim, x, axis_name):
  return tree_util.tree_map(lambda leaf: prim.bind(leaf, axis_name=axis_name), x)


def psum(x, axis_name):
  """Sums ``x`` (a pytree) over the named axis (or tuple of axes)."""
  return _tree_bind(psum_p, x, axis_name)


def pmax(x, axis_name):
  """The maximum of ``x`` (a pytree) over the named axis (or tuple of axes)."""
  return _tree_bind(pmax_p, x, axis_name)


def pmin(x, axis_name):
  """The minimum of ``x`` (a pytree) over the named axis (or tuple of axes)."""
  return _tree_bind(pmin_p, x, axis_name)


def pmean(x, axis_name):
  """The mean of ``x`` (a pytree) over the named axis (or tuple of axes)."""
  n = psum(1, axis_name)
  return tree_util.tree_map(
      lambda leaf: elementwise.div(psum(leaf, axis_name),
                                   elementwise.convert_element_type(n, get_aval(leaf).dtype)),
      x)


# ---------------------------------------------------------------------------------------
# axis_index: each member's position along the axis.

def _axis_index_abstract_eval(*, axis_name):
  return ShapedArray((), np.dtype(np.int32))


def _axis_index_batch(axis, args, dims, *, axis_name):
  return shapes.iota(np.int32, axis.size), 0


axis_index_p = _collective("axis_index", _axis_index_abstract_eval)
axis_index_p.batch = _axis_index_batch


def axis_index(axis_name):
  """The index of this member along the named axis (an int32 scalar)."""
  return axis_index_p.bind(axis_name=axis_name)


# ---------------------------------------------------------------------------------------
# all_gather: every member receives the stack (or concatenation) of all members' values.

def _all_gather_abstract_eval(x, *, axis_name, axis, axis_size, tiled):
  shape = list(x.shape)
  if tiled:
    shape[axis] *= axis_size
  else:
    shape.insert(axis, axis_size)
  return ShapedArray(tuple(shape), x.dtype, x.weak_type)


def _all_gather_batch(bt_axis, args, dims, *, axis_name, axis, axis_size, tiled):
  (x,), (d,) = args, dims
  params = dict(axis_name=axis_name, axis=axis, axis_size=axis_size, tiled=tiled)
  if _rest(bt_axis, axis_name) is None:  # another (outer) axis: gather per batch element
    x = batching.moveaxis(x, d, 0)
    return all_gather_p.bind(x, **{**params, "axis": axis + 1}), 0
  stacked = batching.matchaxis(x, d, axis, bt_axis.size)
  if tiled:
    shape = list(get_aval(stacked).shape)
    shape[axis:axis + 2] = [shape[axis] * shape[axis + 1]]
    stacked = shapes.reshape(stacked, tuple(shape))
  return stacked, None


def _all_gather_transpose(ct, x, *, axis_name, axis, axis_size, tiled):
  """Each member's cotangent is its own block of the sum of all members' cotangents."""
  if type(ct) is ad.Zero:
    return [ad.Zero(x.aval)]
  total = psum_p.bind(ct, axis_name=axis_name)
  index = axis_index_p.bind(axis_name=axis_name)
  if tiled:
    block = x.aval.shape[axis]
    start = elementwise.mul(index, np.int32(block))
    return [shapes.dynamic_slice_in_dim(total, start, block, axis)]
  return [shapes.dynamic_index_in_dim(total, index, axis, keepdims=False)]


all_gather_p = _collective("all_gather", _all_gather_abstract_eval)
all_gather_p.batch = _all_gather_batch
ad.deflinear(all_gather_p, _all_gather_transpose)


def all_gather(x, axis_name, *, axis: int = 0, tiled: bool = False):
  """Gathers ``x`` (a pytree) from every member of the named axis, stacked along ``axis``
  (concatenated along it when ``tiled``)."""
  names = _names(axis_name)
  if len(names) > 1:
    return tree_util.tree_map(lambda leaf: _gather_many(leaf, names, axis, tiled), x)

  def gather(leaf):
    aval = get_aval(leaf)
    rank = aval.ndim + (0 if tiled else 1)
    if not -rank <= axis < rank:
      raise ValueError(f"all_gather: axis {axis} is out of bounds for an operand of rank "
                       f"{aval.ndim}{'' if tiled else ' (plus the gathered axis)'}")
    size = batching.axis_size(_names(axis_name)[0])
    return all_gather_p.bind(leaf, axis_name=axis_name, axis=axis % rank, axis_size=size,
                             tiled=tiled)
  return tree_util.tree_map(gather, x)


def _gather_many(leaf, names, axis, tiled):
  """Gathers over several axis names as over their product, the first name major: one
  stacked gather per name (last name first), then the new axes merged into one."""
  aval = get_aval(leaf)
  rank = aval.ndim + (0 if tiled else 1)
  if not -rank <= axis < rank:
    raise ValueError(f"all_gather: axis {axis} is out of bounds for an operand of rank "
                     f"{aval.ndim}{'' if tiled else ' (plus the gathered axis)'}")
  axis %= rank
  for name in reversed(names):
    leaf = all_gather(leaf, name, axis=axis)
  shape = get_aval(leaf).shape
  merged = len(names) + (1 if tiled else 0)
  size = int(np.prod(shape[axis:axis + merged], dtype=np.int64))
  return shapes.reshape(leaf, shape[:axis] + (size,) + shape[axis + merged:])


# ---------------------------------------------------------------------------------------
# ppermute: member ``src`` sends its value to member ``dst`` for each (src, dst) pair;
# members that receive nothing get zeros.

def _ppermute_batch(axis, args, dims, *, axis_name, perm):
  (x,), (d,) = args, dims
  if _rest(axis, axis_name) is None:
    return ppermute_p.bind(x, axis_name=axis_name, perm=perm), d
  x = batching.bdim_to_front(x, d, axis.size)
  sources = dict((dst, src) for src, dst in perm)
  first = shapes.slice_in_dim(x, 0, 1)
  zero = shapes.full(get_aval(first).shape, 0, get_aval(x).dtype)
  parts = [shapes.slice_in_dim(x, sources[i], sources[i] + 1) if i in sources else zero
           for i in range(axis.size)]
  return shapes.concatenate(parts, 0), 0


def _ppermute_transpose(ct, x, *, axis_name, perm):
  inverse = tuple((dst, src) for src, dst in perm)
  return [ppermute_p.bind(ad.instantiate(ct), axis_name=axis_name, perm=inverse)]


ppermute_p = _collective("ppermute", _same_aval)
ad.deflinear(ppermute_p, _ppermute_transpose)
ppermute_p.batch = _ppermute_batch


def ppermute(x, axis_name, perm):
  """Sends ``x`` (a pytree) between members of the named axis along ``perm``, a sequence
  of (source, destination) index pairs."""
  perm = tuple((int(s), int(t)) for s, t in perm)
  srcs, dsts = [s for s, _ in perm], [t for _, t in perm]
  if len(set(srcs)) != len(srcs) or len(set(dsts)) != len(dsts):
    raise ValueError(f"ppermute sources and destinations must be unique, got {perm}.")
  return tree_util.tree_map(lambda leaf: ppermute_p.bind(leaf, axis_name=axis_name,
                                                         perm=perm), x)


def axis_size(axis_name):
  """The size of the named (vmapped) axis ``axis_name``; a tuple of names multiplies."""
  names = axis_name if isinstance(axis_name, (tuple, list)) else (axis_name,)
  return int(np.prod([batching.axis_size(n) for n in names], dtype=np.int64))


# ---------------------------------------------------------------------------------------
# all_to_all: member j receives block j of every member's ``split_axis``, stacked along
# ``concat_axis`` (concatenated there when ``tiled``).

def _all_to_all_abstract_eval(x, *, axis_name, split_axis, concat_axis, axis_size, tiled):
  shape = list(x.shape)
  if tiled:
    shape[split_axis] //= axis_size
    shape[concat_axis] *= axis_size
  else:
    del shape[split_axis]
    shape.insert(concat_axis, axis_size)
  return ShapedArray(tuple(shape), x.dtype, x.weak_type)


def _all_to_all_batch(axis, args, dims, *, axis_name, split_axis, concat_axis, axis_size,
                      tiled):
  (x,), (d,) = args, dims
  params = dict(axis_name=axis_name, axis_size=axis_size, tiled=tiled)
  x = batching.bdim_to_front(x, d, axis.size)
  if _rest(axis, axis_name) is None:  # another (outer) axis: per batch element
    return all_to_all_p.bind(x, split_axis=split_axis + 1, concat_axis=concat_axis + 1,
                             **params), 0
  if _rest(axis, axis_name):
    raise NotImplementedError("all_to_all over several axis names is not supported by xjax")
  n, shape = axis.size, get_aval(x).shape          # x[i, ...]: member i's operand
  if tiled:                                        # split_axis -> (block j, within-block)
    shape = shape[:split_axis + 1] + (n, shape[split_axis + 1] // n) + shape[split_axis + 2:]
    x = shapes.reshape(x, shape)
  x = batching.moveaxis(x, split_axis + 1, 0)      # [j, i, rest...]
  if not tiled:
    return batching.moveaxis(x, 1, concat_axis + 1), 0
  x = batching.moveaxis(x, 1, concat_axis + 1)     # i just before the concat axis: merge them
  shape = get_aval(x).shape
  merged = shape[:concat_axis + 1] + (n * shape[concat_axis + 2],) + shape[concat_axis + 3:]
  return shapes.reshape(x, merged), 0


def _all_to_all_transpose(ct, x, *, split_axis, concat_axis, **params):
  return [all_to_all_p.bind(ad.instantiate(ct), split_axis=concat_axis,
                            concat_axis=split_axis, **params)]


all_to_all_p = _collective("all_to_all", _all_to_all_abstract_eval)
all_to_all_p.batch = _all_to_all_batch
ad.deflinear(all_to_all_p, _all_to_all_transpose)


def all_to_all(x, axis_name, split_axis: int, concat_axis: int, *, axis_index_groups=None,
               tiled: bool = False):
  """Member j of the named axis receives block j of every member's ``split_axis`` of ``x``
  (a pytree), stacked along ``concat_axis`` (concatenated along it when ``tiled``)."""
  if axis_index_groups is not None:
    raise NotImplementedError("all_to_all: axis_index_groups is not supported by xjax")

  def one(leaf):
    aval = get_aval(leaf)
    size = axis_size(axis_name)
    split, concat = split_axis % aval.ndim, concat_axis % aval.ndim
    if aval.shape[split] % size if tiled else aval.shape[split] != size:
      raise ValueError(f"all_to_all: the split axis {split_axis} has size {aval.shape[split]}, "
                       f"which must {'be divisible by' if tiled else 'equal'} the size {size} of "
                       f"axis {axis_name!r}")
    return all_to_all_p.bind(leaf, axis_name=axis_name, split_axis=split, concat_axis=concat,
                             axis_size=size, tiled=tiled)
  return tree_util.tree_map(one, x)


def pswapaxes(x, axis_name, axis: int, *, axis_index_groups=None):
  """Swaps the named axis with positional axis ``axis`` of ``x``: ``all_to_all`` tiled on it."""
  return all_to_all(x, axis_name, axis, axis, axis_index_groups=axis_index_groups, tiled=True)
