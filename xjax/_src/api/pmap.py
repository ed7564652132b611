"""``pmap``: one SPMD program over the local devices, one member of the mapped axis each.

``pmap(f)`` is a jitted ``shard_map`` over a one-axis mesh of the first ``n`` devices (``n``
the mapped size): each device receives its slice of the mapped axis (moved to the front),
runs ``f`` on it, and the results are joined along ``out_axes``.  Collectives over
``axis_name`` are XLA collectives among the devices.  Results are Arrays split over the
devices (``NamedSharding(Mesh(devices, (axis_name,)), P(axis_name))``).
"""
from __future__ import annotations

import functools
from typing import Callable

import numpy as np

from xjax._src.foundations import tree_util
from xjax._src.backend import clients
from xjax._src.core.values import get_aval
from xjax._src.interpreters import batching
from xjax._src.api.jit import jit
from xjax._src.api.transformations import inconsistent_sizes, leaf_names
from xjax._src.primitives.lax import shapes
from xjax._src.primitives.lax.shard_map import shard_map
from xjax._src.foundations.sharding import Mesh, PartitionSpec
from xjax._src.foundations.wrapping import wraps

_ANONYMOUS = "_internal_pmap_axis_name"


def pmap(fun: Callable, axis_name=None, *, in_axes=0, out_axes=0,
         static_broadcasted_argnums=(), devices=None, backend=None, axis_size=None,
         donate_argnums=()) -> Callable:
  """Maps ``fun`` over axis ``in_axes`` of its arguments, one member per device."""
  static = (static_broadcasted_argnums,) if isinstance(static_broadcasted_argnums, int) else (
      tuple(static_broadcasted_argnums))
  donate = (donate_argnums,) if isinstance(donate_argnums, int) else tuple(donate_argnums)
  if set(static) & set(donate):
    raise ValueError(f"`static_argnums` {sorted(set(static))} and `donate_argnums` "
                     f"{sorted(set(donate))} cannot intersect.")
  name = _ANONYMOUS if axis_name is None else axis_name
  pool = list(devices) if devices is not None else clients.local_devices(backend=backend)

  meshes: dict = {}  # size -> Mesh of the first `size` devices of the pool
  hashed: dict = {}  # (keywords given, argument count) -> (dynamic axes, their hashable form)
  hashed_out = _hashable(out_axes)

  @wraps(fun)
  def mapped(*args, **kwargs):
    if kwargs:  # keyword arguments are mapped over their leading axis, as in JAX
      axes = tuple(in_axes) if isinstance(in_axes, (tuple, list)) else (in_axes,) * len(args)
      return run(_WithKeywords(fun), (*args, kwargs), (*axes, 0), True)
    return run(fun, args, in_axes, False)

  def run(fun, args, in_axes, keywords):
    dyn = [a for i, a in enumerate(args) if i not in static]
    memo = hashed.get((keywords, len(args)))
    if memo is None:
      axes = in_axes
      if isinstance(in_axes, (tuple, list)) and static:
        axes = tuple(ax for i, ax in enumerate(in_axes) if i not in static)
      memo = hashed[keywords, len(args)] = (axes, _hashable(axes))
    axes, axes_key = memo
    per_leaf = _leaf_axes(dyn, axes)
    sizes = {get_aval(x).shape[a] for x, a in zip(tree_util.tree_leaves(dyn), per_leaf)
             if a is not None}
    if len(sizes) > 1:
      every, names, k = leaf_names(fun, args, {}), [], 0
      for i, a in enumerate(args):  # (the names of the dynamic arguments' leaves)
        n = len(tree_util.tree_leaves(a))
        names += [] if i in static else every[k:k + n]
        k += n
      leaves = tree_util.tree_leaves(dyn)
      raise inconsistent_sizes("pmap", [(n, a, get_aval(x)) for n, x, a in
                                        zip(names, leaves, per_leaf) if a is not None])
    size = axis_size if axis_size is not None else _mapped_size(dyn, per_leaf)
    if size > len(pool):
      raise ValueError(f"compiling computation that requires {size} logical devices, but only "
                       f"{len(pool)} XLA devices are available (num_replicas={size})")
    mesh = meshes.get(size)
    if mesh is None:
      mesh = meshes[size] = Mesh(np.array(pool[:size], dtype=object), (name,))
    # (donated arguments, by their place among the dynamic ones; keywords are not donated)
    donated = tuple(k for k, i in enumerate(i for i in range(len(args)) if i not in static)
                    if i in donate and not (keywords and i == len(args) - 1))
    return _compiled(fun, args, static, axes_key, hashed_out, mesh, name, donated)(*dyn)
  return mapped


@functools.lru_cache(maxsize=256)
def _program(fun, statics, static_pos, n_args, axes, out_axes, mesh, name, donated):
  """The jitted shard_map for one function, static arguments, mesh and donated arguments."""
  static_values = dict(zip(static_pos, statics))

  def body(*dyn_args):
    it = iter(dyn_args)
    return fun(*[static_values[i].value if i in static_values else next(it)
                 for i in range(n_args)])

  def _fun(*dyn_args):   # (JAX's name for the jitted program)
    leaves, tree = tree_util.tree_flatten(dyn_args)
    leaf_axes = _leaf_axes(list(dyn_args), _unhash(axes))
    fronted = [x if a is None else batching.moveaxis(x, a, 0) for x, a in zip(leaves, leaf_axes)]
    specs = [PartitionSpec() if a is None else PartitionSpec(name) for a in leaf_axes]

    def per_device(*blocks):
      ins = [b if a is None else shapes.squeeze(b, (0,)) for b, a in zip(blocks, leaf_axes)]
      out = body(*tree_util.tree_unflatten(tree, ins))
      out_leaves, out_tree = tree_util.tree_flatten(out)
      flat_axes = _out_leaf_axes(out, _unhash(out_axes))
      box.append((out_tree, flat_axes))
      return [o if a is None else shapes.broadcast_in_dim(
                  o, (1,) + get_aval(o).shape, tuple(range(1, get_aval(o).ndim + 1)))
              for o, a in zip(out_leaves, flat_axes)]

    box: list = []

    def out_specs():  # known once the body is traced: out_axes follow its outputs
      return [PartitionSpec() if a is None else PartitionSpec(name) for a in box[0][1]]

    outs = shard_map(per_device, mesh=mesh, in_specs=tuple(specs), out_specs=out_specs,
                     check_vma=False)(*fronted)
    out_tree, flat_axes = box[0]
    outs = [o if a is None else batching.moveaxis(o, 0, a) for o, a in zip(outs, flat_axes)]
    return tree_util.tree_unflatten(out_tree, outs)
  return jit(_fun, donate_argnums=donated)


class _WithKeywords:
  """``fun`` called with its last positional argument (a dict) spread as keywords."""
  __slots__ = ("fun",)

  def __init__(self, fun) -> None:
    self.fun = fun

  def __call__(self, *args):
    return self.fun(*args[:-1], **args[-1])

  def __eq__(self, other) -> bool:
    return isinstance(other, _WithKeywords) and self.fun == other.fun

  def __hash__(self) -> int:
    return hash(self.fun)


class _Static:
  __slots__ = ("value",)

  def __init__(self, value) -> None:
    self.value = value

  def __eq__(self, other) -> bool:
    return isinstance(other, _Static) and self.value == other.value

  def __hash__(self) -> int:
    return hash(self.value)


def _hashable(tree):
  return (tree_util.tree_structure(tree, is_leaf=lambda x: x is None),
          tuple(tree_util.tree_leaves(tree, is_leaf=lambda x: x is None)))


def _unhash(pair):
  return tree_util.tree_unflatten(*pair)


def _compiled(fun, args, static, axes_key, out_axes_key, mesh, name, donated):
  statics = tuple(_Static(args[i]) for i in static if i < len(args))
  return _program(fun, statics, tuple(i for i in static if i < len(args)), len(args),
                  axes_key, out_axes_key, mesh, name, donated)


def _prefix_axes(values, axes, kind: str) -> list:
  """The axis for each leaf of ``values`` from ``axes``, an int or None for all of them
  or a pytree prefix of ``values`` (None leaves included); JAX's ValueError otherwise."""
  if axes is None or isinstance(axes, int):
    return [axes] * len(tree_util.tree_leaves(values))
  is_none = lambda x: x is None  # noqa: E731
  structure = tree_util.tree_structure((axes,), is_leaf=is_none)  # (paths read in_axes[0])
  try:
    subtrees = tree_util._up_to(structure, (values,), kind, "pmap")
  except ValueError as e:
    if kind != "in_axes":
      raise
    raise ValueError(
        f"{e}\n\nThe 'full pytree' here is the tuple of arguments passed positionally to the "
        "pmapped function, and the value of `in_axes` must be a tree prefix of that tuple. But "
        "it was not a prefix.\n\nCheck that the value of the `in_axes` argument to `pmap` is "
        "a tree prefix of the tuple of arguments passed positionally to the pmapped "
        "function.") from None
  return [a for a, sub in zip(tree_util.tree_leaves(axes, is_leaf=is_none), subtrees)
          for _ in tree_util.tree_leaves(sub)]


def _leaf_axes(args, in_axes) -> list:
  """The mapped axis of every leaf of ``args`` (None: broadcast), normalized."""
  out = []
  for x, a in zip(tree_util.tree_leaves(args), _prefix_axes(tuple(args), in_axes, "in_axes")):
    ndim = get_aval(x).ndim
    if a is not None and not -ndim <= a < ndim:
      raise ValueError(f"pmap was asked to map an argument over axis {a}, which needs rank "
                       f"at least {a + 1 if a >= 0 else -a}, but the argument has shape "
                       f"{get_aval(x).shape}. Pass in_axes=None for it to broadcast it.")
    out.append(None if a is None else a % ndim)
  return out


def _out_leaf_axes(out, out_axes) -> list:
  return _prefix_axes(out, out_axes, "out_axes")


def _mapped_size(args, leaf_axes) -> int:
  for leaf, ax in zip(tree_util.tree_leaves(args), leaf_axes):
    if ax is not None:
      return get_aval(leaf).shape[ax]
  raise ValueError("pmap needs at least one mapped argument (or axis_size)")
