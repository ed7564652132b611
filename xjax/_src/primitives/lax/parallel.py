"""Collective primitives over named axes: psum, pmean, pmax, pmin, all_gather, axis_index,
ppermute, pshuffle, all_to_all, psum_scatter.

A named axis comes from ``vmap(..., axis_name=...)`` or from the mesh of a ``shard_map``
(and ``pmap``, built on it).  Each primitive is marked ``is_collective``, so the batching
trace owning a vmapped axis runs its batch rule even when the operand is unbatched; the rule
computes the collective over the batch dimension.  Inside a shard_map body the primitives
lower to XLA's collectives (``all_reduce``, ``all_gather``, ``collective_permute``,
``all_to_all``, ``reduce_scatter``) over the devices that differ only along the named mesh
axes.  ``make_jaxpr``'s ``axis_env`` binds names too.  The user-facing functions check, as
they trace, that their names are bound, and raise JAX's ``NameError`` otherwise (rules that
re-evaluate a traced body bind the primitives, which do not check).
"""
from __future__ import annotations

import functools

import numpy as np

from xjax._src.foundations import dtypes, tree_util
from xjax._src.core import varying
from xjax._src.core.avals import ShapedArray, ordered_axes, vma_of
from xjax._src.core.trace import Primitive, Tracer, current_trace, eval_trace
from xjax._src.core.values import get_aval
from xjax._src.foundations.sharding import check_typed_shape, partial_manual_hlo_text
from xjax._src.interpreters import ad, batching
from xjax._src.interpreters.staging import trace_to_jaxpr
from xjax._src.primitives.lax import elementwise, reductions, shapes


def _names(axis_name) -> tuple:
  return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


def _unbound(*_, axis_name=None, axes=None, **__):
  raise NameError(f"unbound axis name: {_names(axis_name if axes is None else axes)[0]}")


def check_bound(axis_name, api_name: str) -> None:
  """JAX's NameError when a name in ``axis_name`` is bound by no ``vmap``, ``shard_map``,
  ``pmap`` or ``make_jaxpr(axis_env=...)`` (``api_name``: the collective JAX names)."""
  bound = batching.axis_names()
  for name in _names(axis_name):
    if not isinstance(name, int) and name not in bound:
      raise NameError(f"Found an unbound axis name: {name}. To fix this, please call "
                      f"{api_name} under `jax.shard_map`.")


def _collective(name: str, abstract_eval, lowering=None, impl=_unbound,
                vma_rule=None) -> Primitive:
  """A collective over named axes; ``vma_rule(*avals, **params)``: the manual axes its
  result varies over (by default, its operand's)."""
  prim = Primitive(name)
  prim.is_collective = True
  prim.abstract_eval = abstract_eval
  prim.vma_rule = vma_rule or _operand_vma
  prim.impl = impl
  prim.lowering = lowering or (lambda ctx, *args, **params: _unbound(**params))
  return prim


def _operand_vma(*avals, **_):
  """A collective that keeps each member's own value varies as its operands do."""
  return frozenset().union(*map(vma_of, avals))


# ---------------------------------------------------------------------------------------
# Lowering inside a shard_map body: the module's innermost manual mesh binds the names.

def _mesh_positions(ctx, axis_name):
  """(mesh, the partition ids of its devices with the named axes last, group size)."""
  names = _names(axis_name)
  mesh = ctx.module.manual[-1] if ctx.module.manual else None
  for n in names:
    if mesh is None or n not in mesh.axis_names:
      raise NameError(f"unbound axis name: {n}")
  ids = np.vectorize(ctx.module.logical.__getitem__, otypes=[np.int64])(mesh.devices)
  rest = [i for i, a in enumerate(mesh.axis_names) if a not in names]
  ids = np.transpose(ids, rest + [mesh.axis_names.index(n) for n in names])
  size = int(np.prod([mesh.shape[n] for n in names], dtype=np.int64))
  return mesh, ids.reshape(-1, size), size


def _group_attrs(ctx, axis_name) -> dict:
  _, groups, _ = _mesh_positions(ctx, axis_name)
  rows = ", ".join("[" + ", ".join(map(str, g)) + "]" for g in groups)
  return {"channel_handle": f"#stablehlo.channel_handle<handle = {ctx.module.next_channel()}, "
                            "type = 1>",
          "replica_groups": f"dense<[{rows}]> : tensor<{groups.shape[0]}x{groups.shape[1]}xi64>",
          "use_global_device_ids": "unit"}


def _reducer(op: str):
  def region(ctx, aval):
    scalar = ShapedArray((), aval.dtype)
    return ctx.region([scalar, scalar], lambda sub, a: [sub.op(op, a, scalar)])
  return region


def _all_reduce_lowering(op: str, reduce):
  """The lowering of a reduction over ``axes``: its positional axes (a vmapped axis, as
  JAX's batching rule names it) reduced as ``reduce`` does, then an ``all_reduce`` over the
  named ones."""
  def lowering(ctx, x, *, axes, axis_index_groups=None):
    positional, names = _split_axes(axes)
    if positional:
      x, = ctx.lower_jaxpr(_reduce_jaxpr(reduce, ctx.avals_in[0], positional).jaxpr, (), [x])
    if not names:
      return x
    aval = ctx.avals_out[0]
    return ctx.op("stablehlo.all_reduce", [x], aval, _group_attrs(ctx, names),
                  regions=[_reducer(op)(ctx, aval)])
  return lowering


@functools.lru_cache(maxsize=256)
def _reduce_jaxpr(reduce, aval, axes):
  return trace_to_jaxpr(lambda x: [reduce(x, axes)], [aval])


def _split_axes(axes) -> tuple[tuple, tuple]:
  """(the positional axes, the names) among a reduction's ``axes``."""
  return (tuple(a for a in axes if isinstance(a, int)),
          tuple(a for a in axes if not isinstance(a, int)))


def _reshape(ctx, x, shape):
  aval = ctx.aval_of(x)
  return ctx.op("stablehlo.reshape", [x], ShapedArray(tuple(shape), aval.dtype))


def _transpose(ctx, x, perm):
  aval = ctx.aval_of(x)
  shape = tuple(aval.shape[p] for p in perm)
  return ctx.op("stablehlo.transpose", [x], ShapedArray(shape, aval.dtype),
                {"permutation": f"array<i64: {', '.join(map(str, perm))}>"})


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

def _reduction_abstract_eval(x, *, axes, axis_index_groups=None):
  positional = _split_axes(axes)[0]
  if not positional:
    return x
  return ShapedArray(tuple(n for i, n in enumerate(x.shape) if i not in positional), x.dtype,
                     x.weak_type)


def _reducer_batch(prim, scale_unbatched):
  """As JAX's rule: over the vmapped axis, the reduction becomes one over the batch
  dimension, a positional axis among ``axes`` (an unbatched operand is the same in every
  member: ``scale_unbatched`` gives the result)."""
  def rule(axis, args, dims, *, axes, **params):
    (x,), (d,) = args, dims
    shift = lambda a: a + (a >= d) if isinstance(a, int) and d is not None else a
    if axis.name not in axes:  # another (outer) axis: the collective acts per batch element
      out_d = None if d is None else d - sum(isinstance(a, int) and a < d for a in axes)
      return prim.bind(x, axes=tuple(map(shift, axes)), **params), out_d
    rest = tuple(a for a in axes if a != axis.name)
    if d is None:
      out = scale_unbatched(x, axis.size)
      return (prim.bind(out, axes=rest, **params) if rest else out), None
    x = batching.moveaxis(x, d, 0)   # (the batch dimension first, as JAX's rule)
    return prim.bind(x, axes=(0, *(a + 1 if isinstance(a, int) else a for a in rest)),
                     **params), None
  return rule


def _psum_unbatched(x, size):
  aval = get_aval(x)
  return elementwise.mul(elementwise.convert_element_type(np.array(size, aval.dtype),
                                                          aval.dtype, aval.weak_type), x)


def _psum_transpose(ct, x, *, axes, axis_index_groups=None):
  """A sum's cotangent broadcast back over its positional axes, then summed over the
  named ones (psum is psum and a broadcast, as in JAX)."""
  positional, names = _split_axes(axes)
  ct = ad.instantiate(ct)
  if positional:   # (NumPy ints, as JAX's reduce_sum transpose computes them)
    kept = tuple(np.delete(np.arange(x.aval.ndim), positional))
    ct = shapes.broadcast_in_dim(ct, x.aval.shape, kept)
  return [psum_p.bind(ct, axes=names, axis_index_groups=axis_index_groups)]


def _reduction_impl(reduce):
  """Run now: a reduction over positional axes only (a vmapped one's, outside any mapped
  computation) is ``reduce``; a name is bound nowhere here."""
  def impl(x, *, axes, axis_index_groups=None):
    positional, names = _split_axes(axes)
    if names:
      _unbound(axes=names)
    return reduce(x, positional)
  return impl


def _reduced_vma(x, *, axes, axis_index_groups=None):
  """A reduction over named axes is the same on every member along them."""
  return x._vma - set(axes)


psum_p = _collective("psum", _reduction_abstract_eval,
                     _all_reduce_lowering("stablehlo.add", reductions.reduce_sum),
                     _reduction_impl(reductions.reduce_sum), _reduced_vma)
ad.deflinear(psum_p, _psum_transpose)
psum_p.batch = _reducer_batch(psum_p, _psum_unbatched)
pmax_p = _collective("pmax", _reduction_abstract_eval,
                     _all_reduce_lowering("stablehlo.maximum", reductions.reduce_max),
                     _reduction_impl(reductions.reduce_max), _reduced_vma)
pmax_p.batch = _reducer_batch(pmax_p, lambda x, _: x)
pmin_p = _collective("pmin", _reduction_abstract_eval,
                     _all_reduce_lowering("stablehlo.minimum", reductions.reduce_min),
                     _reduction_impl(reductions.reduce_min), _reduced_vma)
pmin_p.batch = _reducer_batch(pmin_p, lambda x, _: x)


# psum_invariant: JAX's psum in a shard_map body that checks varying axes, from a value
# varying over the axes to one that does not; its transpose is pvary (below), as pvary's
# is it: reverse mode then follows the types, with no sums at shard_map's boundary.

def _psum_invariant_vma(x, *, axes):
  if not set(axes) & x._vma:
    raise ValueError("psum is a variant->invariant collective. This means that the axis "
                     "names mentioned in `axes` passed to `psum` must be present in "
                     f"`jax.typeof(inp).mat.varying`. Got axes={axes} and "
                     f"jax.typeof(inp).mat.varying={x._vma}")
  return x._vma - set(axes)


def _psum_invariant_transpose(ct, x, *, axes):
  if type(ct) is ad.Zero:
    return [ad.Zero(x.aval)]
  return [pvary_p.bind(ct, axes=axes)]


psum_invariant_p = _collective("psum_invariant", _reduction_abstract_eval,
                               _all_reduce_lowering("stablehlo.add", reductions.reduce_sum),
                               _reduction_impl(reductions.reduce_sum), _psum_invariant_vma)
ad.deflinear(psum_invariant_p, _psum_invariant_transpose)
psum_invariant_p.batch = _reducer_batch(psum_invariant_p, _psum_unbatched)


def _vary(leaf, names: tuple):
  """``leaf`` cast to vary over those of the manual axes ``names`` it does not vary over
  yet (JAX casts the operands of collectives so), in a shard_map body that checks them."""
  if not varying.regions[0]:
    return leaf
  return pvary(leaf, set(names) - get_aval(leaf)._vma)


def _checked_manual(names: tuple) -> bool:
  """Whether every name is a manual axis of a shard_map body that checks varying axes."""
  return bool(names) and varying.regions[0] > 0 and set(names) <= varying.manual_axes()


def _tree_bind(prim, x, axis_name):
  check_bound(axis_name, "psum")
  names = _names(axis_name)
  return tree_util.tree_map(
      lambda leaf: prim.bind(_vary(leaf, names), axes=names, axis_index_groups=None), x)


def _times(leaf, n: int):
  """A constant (not traced) ``leaf`` times ``n``, of its type: a Python or NumPy value
  stays one, as JAX computes a psum of constants."""
  if isinstance(leaf, (int, float, complex, np.ndarray, np.generic)):
    return leaf * (np.asarray(n, leaf.dtype) if hasattr(leaf, "dtype") else n)
  aval = get_aval(leaf)
  return elementwise.mul(elementwise.convert_element_type(np.array(n, aval.dtype), aval.dtype,
                                                        aval.weak_type), leaf)


def _no_groups(name: str, axis_index_groups) -> None:
  """``axis_index_groups`` (collectives within groups of axis indices) is refused clearly:
  xjax reduces over whole axes only."""
  if axis_index_groups is not None:
    raise NotImplementedError(
        f"{name}: axis_index_groups is not supported by xjax; reduce over the whole axis, or "
        "split the axis in two named axes (a mesh or nested vmap) and reduce over one")


def psum(x, axis_name, *, axis_index_groups=None):
  """Sums ``x`` (a pytree) over the named axis (or tuple of axes); booleans count as int32.
  A sum of constants is the constants times the axis size, computed now (as in JAX)."""
  _no_groups("psum", axis_index_groups)
  if not _names(axis_name):
    return x
  x = tree_util.tree_map(lambda leaf: elementwise.convert_element_type(leaf, np.int32)
                         if dtypes.dtype(leaf) == np.bool_ else leaf, x)
  if not any(isinstance(leaf, Tracer) for leaf in tree_util.tree_leaves(x)):
    n = axis_size(axis_name)
    return tree_util.tree_map(lambda leaf: _times(leaf, n), x)
  names = _names(axis_name)
  if _checked_manual(names):
    check_bound(axis_name, "psum")
    for leaf in tree_util.tree_leaves(x):  # (over axes it varies over all or none of)
      _state(get_aval(leaf), names, "jax.lax.psum")
    return tree_util.tree_map(
        lambda leaf: psum_invariant_p.bind(_vary(leaf, names), axes=names), x)
  return _tree_bind(psum_p, x, axis_name)


def pmax(x, axis_name, *, axis_index_groups=None):
  """The maximum of ``x`` (a pytree) over the named axis (or tuple of axes)."""
  _no_groups("pmax", axis_index_groups)
  return _tree_bind(pmax_p, x, axis_name)


def pmin(x, axis_name, *, axis_index_groups=None):
  """The minimum of ``x`` (a pytree) over the named axis (or tuple of axes)."""
  _no_groups("pmin", axis_index_groups)
  return _tree_bind(pmin_p, x, axis_name)


def pmean(x, axis_name, *, axis_index_groups=None):
  """The mean of ``x`` (a pytree) over the named axis (or tuple of axes): its psum over
  the axis size, divided as ``/`` divides (integers give floats)."""
  _no_groups("pmean", axis_index_groups)
  total = psum(x, axis_name)
  n = axis_size(axis_name)
  return tree_util.tree_map(lambda leaf: leaf / n, total)


# ---------------------------------------------------------------------------------------
# axis_index: each member's position along the axis.

def _axis_index_abstract_eval(*, axis_name):
  return ShapedArray((), np.dtype(np.int32))


def _axis_index_batch(axis, args, dims, *, axis_name):
  return shapes.iota(np.int32, axis.size), 0


def _axis_index_lowering(ctx, *, axis_name):
  """This device's position along the axes: a table indexed by the partition id."""
  mesh, groups, size = _mesh_positions(ctx, axis_name)
  table = np.zeros(groups.size, np.int32)
  for g in groups:
    table[g] = np.arange(size, dtype=np.int32)
  i32 = ShapedArray((), np.dtype(np.int32))
  pid = ctx.op("stablehlo.partition_id", [], ShapedArray((), np.dtype(np.uint32)))
  pid = ctx.op("stablehlo.convert", [pid], i32)
  const = ctx.constant(table, ShapedArray(table.shape, table.dtype))
  one = ctx.op("stablehlo.dynamic_slice", [const, pid], ShapedArray((1,), table.dtype),
               {"slice_sizes": "array<i64: 1>"})
  index = _reshape(ctx, one, ())
  manual = ctx.module.manual_axes[-1]
  if len(manual) == len(mesh.axis_names):
    return index
  # a partial-manual region: the partition id is read in a fully manual one, as JAX does
  index = ctx.op("stablehlo.custom_call", [index], i32, {
      "call_target_name": '"Sharding"', "mhlo.sharding": '"{manual}"'})
  text = partial_manual_hlo_text(mesh, manual, [], ctx.module.logical)
  return ctx.op("stablehlo.custom_call", [index], i32, {
      "call_target_name": '"SPMDShardToFullShape"', "mhlo.sharding": f'"{text}"'})


def _axis_index_vma(*, axis_name):
  """An index varies over its manual axes (in a shard_map body that checks them)."""
  return frozenset(_names(axis_name)) & varying.manual_axes()


axis_index_p = _collective("axis_index", _axis_index_abstract_eval, _axis_index_lowering,
                           vma_rule=_axis_index_vma)
axis_index_p.batch = _axis_index_batch


def axis_index(axis_name):
  """The index of this member along the named axis (an int32 scalar)."""
  check_bound(axis_name, "axis_index")
  return axis_index_p.bind(axis_name=axis_name)


# ---------------------------------------------------------------------------------------
# all_gather: every member receives the stack (or concatenation) of all members' values.

def _all_gather_abstract_eval(x, *, axis_name, axis, axis_size, tiled):
  """The gathered shape; a split in the operand's type (over the Explicit axes a
  partial-manual shard_map leaves) stays on the same dimension positions, as JAX keeps it
  (a stacked gather adds an unsplit last one), which must divide their new sizes."""
  shape = list(x.shape)
  if tiled:
    shape[axis] *= axis_size
  else:
    shape.insert(axis, axis_size)
  sharding = x._sharding
  if sharding is not None:
    sharding = sharding.update(spec=tuple(sharding.spec) + (None,) * (len(shape) - x.ndim))
    check_typed_shape(sharding, shape)
  return ShapedArray(tuple(shape), x.dtype, x.weak_type, sharding=sharding)


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


def _own_block(ct, x, axis_name, axis: int, tiled: bool) -> list:
  """This member's block (along ``axis``) of a gathered value's cotangent ``ct``."""
  index = axis_index_p.bind(axis_name=axis_name)
  if tiled:
    block = x.aval.shape[axis]
    start = elementwise.mul(index, np.int32(block))
    return [shapes.dynamic_slice_in_dim(ct, start, block, axis)]
  return [shapes.dynamic_index_in_dim(ct, index, axis, keepdims=False)]


def _all_gather_transpose(ct, x, *, axis_name, axis, axis_size, tiled):
  """Each member's cotangent is its own block of the sum of all members' cotangents."""
  if type(ct) is ad.Zero:
    return [ad.Zero(x.aval)]
  total = psum_p.bind(ct, axes=_names(axis_name), axis_index_groups=None)
  return _own_block(total, x, axis_name, axis, tiled)


def _all_gather_lowering(ctx, x, *, axis_name, axis, axis_size, tiled):
  aval = ctx.aval_of(x)
  if not tiled:  # gather blocks of one along a new axis
    x = _reshape(ctx, x, aval.shape[:axis] + (1,) + aval.shape[axis:])
  attrs = {"all_gather_dim": f"{axis} : i64", **_group_attrs(ctx, axis_name)}
  return ctx.op("stablehlo.all_gather", [x], ctx.avals_out[0], attrs)


all_gather_p = _collective("all_gather", _all_gather_abstract_eval, _all_gather_lowering)
all_gather_p.batch = _all_gather_batch
ad.deflinear(all_gather_p, _all_gather_transpose)


def _as_all_gather(rule):
  """An all_gather rule taking all_gather_invariant's parameters (JAX's names)."""
  return lambda *args, all_gather_dimension, **params: rule(*args, axis=all_gather_dimension,
                                                            **params)


def _all_gather_invariant_batch(bt_axis, args, dims, *, all_gather_dimension, **params):
  """Under a vmap inside the shard_map: gathered per batch element (the vmap's own axis
  never reaches it: ``all_gather(to='invarying')`` needs the shard_map's)."""
  x = batching.moveaxis(args[0], dims[0], 0)
  return all_gather_invariant_p.bind(x, all_gather_dimension=all_gather_dimension + 1,
                                     **params), 0


def _all_gather_invariant_transpose(ct, x, *, all_gather_dimension, axis_name, axis_size,
                                    tiled):
  """The gathered value is the same on every member: each takes its own block of the
  cotangent (no sum), as JAX's rule."""
  if type(ct) is ad.Zero:
    return [ad.Zero(x.aval)]
  return _own_block(ct, x, axis_name, all_gather_dimension, tiled)


# JAX's all_gather to an invariant value (the same on every member; shard_map's check_vma
# then lets it out unsplit): the same collective, typed as not varying over its axes.
all_gather_invariant_p = _collective(
    "all_gather_invariant", _as_all_gather(_all_gather_abstract_eval),
    _as_all_gather(_all_gather_lowering),
    vma_rule=lambda x, *, axis_name, **_: x._vma - set(axis_name))
all_gather_invariant_p.batch = _all_gather_invariant_batch
ad.deflinear(all_gather_invariant_p, _all_gather_invariant_transpose)

_ALL_GATHER_TO = ("varying", "reduced", "invarying")


def all_gather(x, axis_name, *, axis_index_groups=None, axis: int = 0, tiled: bool = False,
               to: str = "varying"):
  """Gathers ``x`` (a pytree) from every member of the named axis, stacked along ``axis``
  (concatenated along it when ``tiled``); ``to="invarying"`` (in a shard_map) types the
  result as the same on every member."""
  if to not in _ALL_GATHER_TO:
    raise ValueError("Got unexpected `to` value for `jax.lax.all_gather`. Allowed `to` "
                     f"values are: {set(_ALL_GATHER_TO)}")
  _no_groups("all_gather", axis_index_groups)
  if to == "reduced":
    raise NotImplementedError("all_gather(to='reduced'): xjax has no reduced/unreduced "
                              "sharding types; gather to='varying' or 'invarying'.")
  names = _names(axis_name)
  if to == "invarying":
    return _all_gather_invariant(x, names, axis, tiled)
  if len(names) > 1:
    return tree_util.tree_map(lambda leaf: _gather_many(leaf, names, axis, tiled), x)

  def gather(leaf):
    rank = _gathered_rank(leaf, axis, tiled)
    size = batching.axis_size(_names(axis_name)[0])
    return all_gather_p.bind(_vary(leaf, names), axis_name=axis_name, axis=axis % rank,
                             axis_size=size, tiled=tiled)
  return tree_util.tree_map(gather, x)


def _gathered_rank(leaf, axis: int, tiled: bool) -> int:
  """The rank of ``leaf`` gathered; ``axis`` must be within it."""
  aval = get_aval(leaf)
  rank = aval.ndim + (0 if tiled else 1)
  if not -rank <= axis < rank:
    raise ValueError(f"all_gather: axis {axis} is out of bounds for an operand of rank "
                     f"{aval.ndim}{'' if tiled else ' (plus the gathered axis)'}")
  return rank


def _all_gather_invariant(x, names: tuple, axis: int, tiled: bool):
  if not names:
    return x
  # shard_map builds on parallel's collectives; the gather asks which axes are manual
  from xjax._src.primitives.lax.shard_map import manual_axis_names
  if any(n not in manual_axis_names() for n in names):
    raise ValueError("pvary should be called under jax.shard_map.")
  size = int(np.prod([batching.axis_size(n) for n in names], dtype=np.int64))
  return tree_util.tree_map(lambda leaf: all_gather_invariant_p.bind(
      _vary(leaf, names), all_gather_dimension=axis % _gathered_rank(leaf, axis, tiled),
      axis_name=names, axis_size=size, tiled=tiled), x)


def _gather_many(leaf, names, axis, tiled):
  """Gathers over several axis names as over their product, the first name major: one
  stacked gather per name (last name first), then the new axes merged into one."""
  axis %= _gathered_rank(leaf, axis, tiled)
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


def _ppermute_lowering(ctx, x, *, axis_name, perm):
  _, groups, _ = _mesh_positions(ctx, axis_name)
  pairs = [(g[s], g[t]) for g in groups for s, t in perm]
  attrs = _group_attrs(ctx, axis_name)
  body = ", ".join(f"[{s}, {t}]" for s, t in pairs)
  return ctx.op("stablehlo.collective_permute", [x], ctx.avals_out[0],
                {"channel_handle": attrs["channel_handle"],
                 "source_target_pairs": f"dense<[{body}]> : tensor<{len(pairs)}x2xi64>"})


ppermute_p = _collective("ppermute", _same_aval, _ppermute_lowering)
ad.deflinear(ppermute_p, _ppermute_transpose)
ppermute_p.batch = _ppermute_batch


def ppermute(x, axis_name, perm):
  """Sends ``x`` (a pytree) between members of the named axis along ``perm``, a sequence
  of (source, destination) index pairs."""
  perm = tuple((int(s), int(t)) for s, t in perm)
  srcs, dsts = [s for s, _ in perm], [t for _, t in perm]
  if len(set(srcs)) != len(srcs) or len(set(dsts)) != len(dsts):
    raise ValueError(f"ppermute sources and destinations must be unique, got {perm}.")
  check_bound(axis_name, "ppermute")
  return tree_util.tree_map(lambda leaf: ppermute_p.bind(
      _vary(leaf, _names(axis_name)), axis_name=axis_name, perm=perm), x)


def pshuffle(x, axis_name, perm):
  """Member i of the named axis receives member ``perm[i]``'s ``x`` (a pytree)."""
  perm = [int(p) for p in perm]
  if sorted(perm) != list(range(len(perm))):
    raise ValueError(f"`perm` does not represent a permutation: {perm}")
  return ppermute(x, axis_name, [(src, dst) for dst, src in enumerate(perm)])


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


def _all_to_all_lowering(ctx, x, *, axis_name, split_axis, concat_axis, axis_size, tiled):
  attrs = _group_attrs(ctx, axis_name)
  del attrs["use_global_device_ids"]
  if tiled:
    return ctx.op("stablehlo.all_to_all", [x], ctx.avals_out[0], {
        "split_dimension": f"{split_axis} : i64", "concat_dimension": f"{concat_axis} : i64",
        "split_count": f"{axis_size} : i64", **attrs})
  # Untiled: the members' blocks arrive along a new leading axis, which moves to concat_axis.
  shape = ctx.aval_of(x).shape
  x = _reshape(ctx, x, (1,) + shape)
  gathered = list((axis_size,) + shape)
  gathered[split_axis + 1] = 1
  dtype = ctx.avals_out[0].dtype
  x = ctx.op("stablehlo.all_to_all", [x], ShapedArray(tuple(gathered), dtype), {
      "split_dimension": f"{split_axis + 1} : i64", "concat_dimension": "0 : i64",
      "split_count": f"{axis_size} : i64", **attrs})
  del gathered[split_axis + 1]
  x = _reshape(ctx, x, gathered)
  perm = list(range(1, len(gathered)))
  perm.insert(concat_axis, 0)
  return _transpose(ctx, x, perm)


all_to_all_p = _collective("all_to_all", _all_to_all_abstract_eval, _all_to_all_lowering)
all_to_all_p.batch = _all_to_all_batch
ad.deflinear(all_to_all_p, _all_to_all_transpose)


def all_to_all(x, axis_name, split_axis: int, concat_axis: int, *, axis_index_groups=None,
               tiled: bool = False):
  """Member j of the named axis receives block j of every member's ``split_axis`` of ``x``
  (a pytree), stacked along ``concat_axis`` (concatenated along it when ``tiled``)."""
  _no_groups("all_to_all", axis_index_groups)

  def one(leaf):
    aval = get_aval(leaf)
    size = axis_size(axis_name)
    split, concat = split_axis % aval.ndim, concat_axis % aval.ndim
    if tiled and aval.shape[split] % size:   # (JAX's words)
      raise ValueError(f"The size of all_to_all split_axis ({aval.shape[split]}) has to be "
                       f"divisible by the size of the named axis {axis_name} ({size})")
    if not tiled and aval.shape[split] != size:
      raise ValueError("all_to_all requires the size of the mapped axis axis_name to equal "
                       f"x.shape[split_axis], but they are {size} and {aval.shape[split]} "
                       "respectively.")
    return all_to_all_p.bind(_vary(leaf, _names(axis_name)), axis_name=axis_name,
                             split_axis=split, concat_axis=concat, axis_size=size, tiled=tiled)
  return tree_util.tree_map(one, x)


def pswapaxes(x, axis_name, axis: int, *, axis_index_groups=None):
  """Swaps the named axis with positional axis ``axis`` of ``x``: ``all_to_all`` tiled on it."""
  return all_to_all(x, axis_name, axis, axis, axis_index_groups=axis_index_groups, tiled=True)


# ---------------------------------------------------------------------------------------
# psum_scatter: member j receives block j (along ``scatter_dimension``) of the sum of all
# members' values.

def _psum_scatter_abstract_eval(x, *, axis_name, scatter_dimension, axis_size, tiled):
  shape = list(x.shape)
  if tiled:
    shape[scatter_dimension] //= axis_size
  else:
    del shape[scatter_dimension]
  return ShapedArray(tuple(shape), x.dtype, x.weak_type)


def _psum_scatter_batch(axis, args, dims, *, axis_name, scatter_dimension, axis_size, tiled):
  (x,), (d,) = args, dims
  params = dict(axis_name=axis_name, axis_size=axis_size, tiled=tiled)
  if _rest(axis, axis_name) is None:  # another (outer) axis: per batch element
    x = batching.bdim_to_front(x, d, axis.size)
    return psum_scatter_p.bind(x, scatter_dimension=scatter_dimension + 1, **params), 0
  if _rest(axis, axis_name):
    raise NotImplementedError("psum_scatter over several axis names is not supported by xjax")
  total = reductions.reduce_sum(x, (d,)) if d is not None else _psum_unbatched(x, axis.size)
  shape = get_aval(total).shape
  if tiled:  # split the scatter dimension into (member, block) and lead with the member
    n = axis.size
    total = shapes.reshape(total, shape[:scatter_dimension] + (n, shape[scatter_dimension] // n)
                           + shape[scatter_dimension + 1:])
  return batching.moveaxis(total, scatter_dimension, 0), 0


def _psum_scatter_transpose(ct, x, *, axis_name, scatter_dimension, axis_size, tiled):
  return [all_gather_p.bind(ad.instantiate(ct), axis_name=axis_name, axis=scatter_dimension,
                            axis_size=axis_size, tiled=tiled)]


def _psum_scatter_lowering(ctx, x, *, axis_name, scatter_dimension, axis_size, tiled):
  aval = ctx.aval_of(x)
  shape = list(aval.shape)
  shape[scatter_dimension] //= axis_size
  out = ctx.op("stablehlo.reduce_scatter", [x], ShapedArray(tuple(shape), aval.dtype), {
      "scatter_dimension": f"{scatter_dimension} : i64", **_group_attrs(ctx, axis_name)},
      regions=[_reducer("stablehlo.add")(ctx, aval)])
  return out if tiled else _reshape(ctx, out, ctx.avals_out[0].shape)


psum_scatter_p = _collective("reduce_scatter", _psum_scatter_abstract_eval,
                             _psum_scatter_lowering)
psum_scatter_p.batch = _psum_scatter_batch
ad.deflinear(psum_scatter_p, _psum_scatter_transpose)


def psum_scatter(x, axis_name, *, scatter_dimension: int = 0, axis_index_groups=None,
                 tiled: bool = False):
  """Sums ``x`` (a pytree) over the named axis; member j keeps block j of the sum along
  ``scatter_dimension`` (of size the axis size, or a multiple of it when ``tiled``)."""
  _no_groups("psum_scatter", axis_index_groups)

  def one(leaf):
    aval = get_aval(leaf)
    size = axis_size(axis_name)
    dim = scatter_dimension % aval.ndim
    if tiled and aval.shape[dim] % size:   # (JAX's words)
      raise ValueError(f"tiled reduce_scatter operand scatter dimension size {aval.shape[dim]} "
                       f"must be divisible by shard_count {size}")
    if not tiled and aval.shape[dim] != size:
      raise ValueError(f"reduce_scatter operand scatter dimension size {aval.shape[dim]} must "
                       f"match shard count {size}")
    return psum_scatter_p.bind(_vary(leaf, _names(axis_name)), axis_name=axis_name,
                               scatter_dimension=dim, axis_size=size, tiled=tiled)
  return tree_util.tree_map(one, x)


# ---------------------------------------------------------------------------------------
# pvary / pcast: JAX's cast of a shard_map value to vary over more manual axes. Its values
# are unchanged (the cast lowers to nothing); its type varies over the axes too, and its
# transpose sums the cotangent over them (psum_invariant).

def _pvary_vma(x, *, axes):
  if set(axes) & x._vma:
    raise ValueError("pvary is a invariant->variant collective. This means that the axis "
                     "names mentioned in `axes` passed to `pvary` must not be present in "
                     f"`jax.typeof(inp).mat.varying`. Got axes={axes} and "
                     f"jax.typeof(inp)={x}")
  return x._vma | set(axes)


def _pvary_transpose(ct, x, *, axes):
  if type(ct) is ad.Zero:
    return [ad.Zero(x.aval)]
  # (a cotangent typed as varying over fewer axes than the cast's result is cast first)
  return [psum_invariant_p.bind(_vary(ct, axes), axes=axes)]


def _pvary_impl(x, *, axes):
  raise ValueError("pvary should be called under jax.shard_map.")


pvary_p = Primitive("pvary")
pvary_p.abstract_eval = lambda x, *, axes: x
pvary_p.vma_rule = _pvary_vma
pvary_p.impl = _pvary_impl
pvary_p.lowering = lambda ctx, x, *, axes: x
pvary_p.batch = lambda axis, args, dims, *, axes: (pvary_p.bind(args[0], axes=axes), dims[0])
ad.deflinear(pvary_p, _pvary_transpose)


def pvary(x, axes: tuple):
  """``x`` cast to vary over the manual axes ``axes`` too (in mesh order), in a shard_map
  body that checks varying axes; ``x`` elsewhere."""
  axes = ordered_axes(set(axes) & varying.manual_axes())
  return pvary_p.bind(x, axes=axes) if axes else x


_PCAST_TARGETS = ("reduced", "unreduced", "varying")


def pcast(x, axis_name, *, to: str):
  """``x`` (a pytree) cast to vary over ``axis_name`` (values unchanged)."""
  if isinstance(axis_name, (set, frozenset)):
    raise TypeError(f"axis_name={axis_name!r} must be a tuple or a str. Got {axis_name}")
  if not axis_name:
    return x
  if to not in _PCAST_TARGETS:
    raise ValueError("Got unexpected `to` value. Allowed `to` values are: "
                     f"{set(_PCAST_TARGETS)}")
  if to != "varying":
    raise NotImplementedError(f"pcast to {to!r}: xjax has no reduced/unreduced sharding "
                              "types; only to='varying' is supported.")
  if current_trace() is not eval_trace:  # (called eagerly: the identity)
    check_bound(axis_name, "pvary")
  names = _names(axis_name)
  if not set(names) & varying.manual_axes():  # (outside a checked shard_map body: as is)
    return x

  def cast(leaf):
    if _state(get_aval(leaf), names, "jax.lax.pcast") == "varying":
      raise ValueError(f"Unsupported pcast from=varying, to={to!r}")
    return pvary(leaf, names)
  return tree_util.tree_map(cast, x)


def _state(aval, names: tuple, api: str) -> str:
  """Whether a value of type ``aval`` is "varying" or "invarying" over the axes ``names``;
  JAX's ValueError where it is one over some and the other over others."""
  states = {"varying" if n in aval._vma else "invarying" for n in names}
  if len(states) > 1:
    raise ValueError(f"{api} can only accept axis_name which corresponds to one of varying, "
                     "unreduced, reduced or invarying state of the input. Got input type: "
                     f"{aval}, axes: {names} and input state: {states}")
  return states.pop()
