"""JAX's explicit-sharding API on xjax's meshes: ``set_mesh`` (the context mesh, which
makes bare PartitionSpecs valid), ``reshard``, ``auto_axes``/``explicit_axes`` (change the
context mesh's axis types around a function) and ``smap`` (a shard_map over one axis).

xjax arrays carry no sharding in their types (``typeof(x)`` shows none); an array placed
with a NamedSharding reports it as ``.sharding``, and values are laid out as JAX lays them.
"""
from __future__ import annotations

import functools

from xjax._src.foundations import tree_util
from xjax._src.execution.array import Array
from xjax._src.core.trace import Tracer, current_trace, eval_trace
from xjax._src.primitives.lax.shard_map import EMPTY_CONTEXT_MESH, manual_axis_names, shard_map
from xjax._src.primitives.lax.sharding_constraint import reshard_p
from xjax._src.core.avals import spec_of
from xjax._src.core.values import get_aval
from xjax._src.api.placement import _EMPTY_MESH, device_put
from xjax._src.foundations.sharding import (UNCONSTRAINED, AbstractMesh, AxisType, Mesh,
                                            check_spec_axes,
                                            NamedSharding, PartitionSpec, Sharding,
                                            _mesh_stack, _placing, context_mesh,
                                            mesh_stack_changed, get_abstract_mesh,
                                            over_devices_of, spec_axes, spec_part,
                                            typed_context_mesh, use_abstract_mesh)


class set_mesh:
  """Makes ``mesh`` the context mesh, at once (``jax.set_mesh(mesh)`` sets it for good) or
  for a ``with`` block; ``set_mesh(None)`` clears it.  Outside ``jit`` only.  ``prev_mesh``
  and ``prev_abstract_mesh`` are the context's meshes before (empty ones where none was set:
  JAX has an opaque sentinel there)."""
  __slots__ = ("_prev", "_prev_placing", "prev_mesh", "prev_abstract_mesh")

  def __init__(self, mesh: Mesh | None) -> None:
    if mesh is not None and not isinstance(mesh, Mesh):
      raise ValueError(f"Expected mesh of type `jax.sharding.Mesh`. Got {type(mesh)}")
    if current_trace() is not eval_trace:
      raise ValueError("`set_mesh` can only be used outside of `jax.jit`.")
    if mesh is not None and AxisType.Manual in mesh.axis_types:
      raise ValueError(f"mesh {mesh} contains manual axes which is not allowed when using "
                       "`jax.set_mesh`. Please use `jax.shard_map` to enter into `Manual` mode "
                       "instead.")
    stack = _mesh_stack()
    self._prev, self._prev_placing = list(stack), list(_placing())
    self.prev_mesh = context_mesh() or _EMPTY_MESH
    self.prev_abstract_mesh = get_abstract_mesh()
    stack.append(_EMPTY_MESH if mesh is None else mesh)
    _placing().append(len(stack) - 1)
    mesh_stack_changed()

  def __enter__(self) -> None:
    return None

  def __exit__(self, *exc) -> None:
    _mesh_stack()[:] = self._prev
    _placing()[:] = self._prev_placing
    mesh_stack_changed()


def spec_sharding(spec: PartitionSpec, what: str) -> NamedSharding:
  """The NamedSharding a bare PartitionSpec names over the context mesh."""
  mesh = context_mesh()
  if mesh is None or mesh.empty:
    raise ValueError(f"Using PartitionSpec when you are not under a mesh context is not "
                     f"allowed. Please pass a NamedSharding instance or enter into a mesh "
                     f"context via `jax.set_mesh`. Got {spec}")
  return NamedSharding(mesh, spec)


def _per_leaf(shardings, tree, what: str) -> list:
  """``shardings`` (a Sharding, PartitionSpec or None, or a pytree prefix of ``tree`` of
  them) as one entry per leaf of ``tree``."""
  if shardings is None or isinstance(shardings, (Sharding, PartitionSpec)):
    return [shardings] * len(tree_util.tree_leaves(tree))
  if isinstance(shardings, (tuple, list)) and isinstance(tree, (tuple, list)) and (
      len(shardings) == len(tree)):
    return [s for sub, t in zip(shardings, tree) for s in _per_leaf(sub, t, what)]
  if isinstance(shardings, dict) and isinstance(tree, dict) and shardings.keys() == tree.keys():
    return [s for k in sorted(tree) for s in _per_leaf(shardings[k], tree[k], what)]
  raise ValueError(f"{what} specification must be a tree prefix of the values it describes: "
                   f"a Sharding, a PartitionSpec, or a container of them matching the values; "
                   f"got {shardings!r} for {tree_util.tree_structure(tree)}.")


def _normalized(spec: PartitionSpec, ndim: int) -> PartitionSpec:
  parts = list(spec) + [None] * (ndim - len(spec))
  while len(parts) > ndim and parts[-1] is None:
    parts.pop()
  return PartitionSpec(*parts)


def _reshard_one(x, sharding):
  if sharding is None:
    raise ValueError("Reshard should only be used with out_shardings which are non-None and "
                     f"have a non-empty mesh. Got sharding {sharding}.")
  if isinstance(sharding, PartitionSpec):
    types_mesh, spec = get_abstract_mesh(), sharding
    if types_mesh.empty:
      spec_sharding(spec, "reshard")  # raises
    mesh = typed_context_mesh()
  elif isinstance(sharding, NamedSharding):
    types_mesh, spec, mesh = sharding.mesh, sharding.spec, sharding.mesh
    concrete = context_mesh()
    if isinstance(mesh, AbstractMesh) and concrete is not None and (
        concrete.shape_tuple == mesh.shape_tuple):   # (over the context mesh, as JAX's)
      mesh = over_devices_of(concrete, mesh)
  else:
    raise TypeError(f"reshard takes NamedShardings or PartitionSpecs, got {sharding!r}")
  types = dict(zip(types_mesh.axis_names, types_mesh.axis_types))
  for a in (a for part in spec for a in spec_axes(part)):
    if types.get(a, AxisType.Explicit) is not AxisType.Explicit:
      raise ValueError(f"PartitionSpec passed to reshard cannot contain axis names that are of "
                       f"type Auto or Manual. Got PartitionSpec: {spec} with axis name: {a} of "
                       f"type: AxisType.{types[a].name}.")
  ndim = len(getattr(x, "shape", ()))
  check_spec_axes(mesh, spec)  # (the spec as given, as JAX's errors quote it)
  return _place(x, NamedSharding(mesh, _normalized(spec, ndim)))


def _place(x, target: NamedSharding):
  if isinstance(x, Tracer):
    return reshard_p.bind(x, sharding=target) if isinstance(target.mesh, Mesh) else x
  if isinstance(x, Array) and target.mesh.auto_axes:  # (its splits over them kept)
    return reshard_p.bind(x, sharding=target)
  return device_put(x, target)


def reshard(xs, out_shardings):
  """``xs`` (a pytree) laid out as ``out_shardings`` says (a NamedSharding, or a
  PartitionSpec over the context mesh, or a pytree prefix of them); their mesh axes must
  be Explicit."""
  leaves, tree = tree_util.tree_flatten(xs)
  flat = _per_leaf(out_shardings, xs, "reshard out_shardings")
  return tree_util.tree_unflatten(tree, [_reshard_one(x, s) for x, s in zip(leaves, flat)])


def _typed_mesh(axes, axis_type: AxisType, name: str, shardings=None) -> AbstractMesh | None:
  """The context mesh (or the shardings' mesh) with ``axes`` (all when None) made of
  ``axis_type``; None without any mesh."""
  mesh = get_abstract_mesh()
  for s in tree_util.tree_leaves(shardings, is_leaf=lambda s: isinstance(s, PartitionSpec)):
    if isinstance(s, NamedSharding):
      own = s.mesh.abstract_mesh
      if not mesh.empty and own != mesh:
        raise ValueError(f"Context mesh {mesh} must match the mesh passed to shardings "
                         f"{own}. Recommended approach is to use `jax.set_mesh` context "
                         "manager.")
      mesh = own
  if mesh.empty:
    return None
  axes = mesh.axis_names if axes is None else (axes if isinstance(axes, tuple) else (axes,))
  types = dict(zip(mesh.axis_names, mesh.axis_types))
  for a in axes:
    if types[a] is AxisType.Manual:
      raise NotImplementedError("Going from `Manual` AxisType to `Auto` or `Explicit` "
                                "AxisType is not allowed.")
    types[a] = axis_type
  return mesh.update(axis_types=tuple(types[a] for a in mesh.axis_names))


def _pop_required(kwargs: dict, name: str, given):
  if given is not None:
    return given
  if name not in kwargs:
    raise TypeError(f"Missing required keyword argument: {name!r}")
  return kwargs.pop(name)


def auto_axes(f=None, /, *, axes=None, out_sharding=None):
  """``f`` run with the context mesh's ``axes`` (all by default) made Auto; its outputs are
  resharded to ``out_sharding`` (given here or when calling)."""
  if f is None:
    return functools.partial(auto_axes, axes=axes, out_sharding=out_sharding)

  @functools.wraps(f)
  def wrapped(*args, **kwargs):
    target = _pop_required(kwargs, "out_sharding", out_sharding)
    mesh = _typed_mesh(axes, AxisType.Auto, "auto_axes", target)
    if mesh is None or mesh == get_abstract_mesh():
      return f(*args, **kwargs)
    with use_abstract_mesh(mesh):
      out = f(*tree_util.tree_map(lambda a: _untyped_over(a, mesh), args), **kwargs)
    return reshard(out, target)
  return wrapped


def _untyped_over(x, mesh: AbstractMesh):
  """``x`` with the axes that ``mesh`` makes Auto taken out of its type (JAX's
  ``mesh_cast`` of ``auto_axes``' arguments, one for each: those dimensions' layout is left
  free)."""
  aval = getattr(x, "aval", None)
  concrete = context_mesh()
  if aval is None or concrete is None or not isinstance(x, (Array, Tracer)):
    return x
  auto = {a for a, t in zip(mesh.axis_names, mesh.axis_types) if t is AxisType.Auto}
  kept = [UNCONSTRAINED if set(spec_axes(p)) & auto else p for p in spec_of(aval)]
  over = over_devices_of(concrete, mesh)
  return reshard_p.bind(x, sharding=NamedSharding(over, PartitionSpec(*kept)))


def explicit_axes(f=None, /, *, axes=None, in_sharding=None):
  """``f`` run with the context mesh's ``axes`` (all by default) made Explicit, its
  arguments resharded to ``in_sharding`` (given here or when calling)."""
  if f is None:
    return functools.partial(explicit_axes, axes=axes, in_sharding=in_sharding)

  @functools.wraps(f)
  def wrapped(*args, **kwargs):
    target = _pop_required(kwargs, "in_sharding", in_sharding)
    mesh = _typed_mesh(axes, AxisType.Explicit, "explicit_axes")
    if mesh is None:
      raise ValueError("Context mesh cannot be empty. Please use `jax.set_mesh` API to enter "
                       "into a mesh context when using `explicit_axes` API.")
    with use_abstract_mesh(mesh):
      out = f(*reshard(args, target), **kwargs)
    outer = typed_context_mesh()
    if get_abstract_mesh().are_all_axes_explicit or outer is None:
      return out
    # back in the outer mesh, typed over its Explicit axes; the layout over its Auto axes
    # is XLA's (it keeps the one the function gave)
    explicit = set(outer.explicit_axes)
    def back(o):
      return _place(o, NamedSharding(outer, PartitionSpec(*[
          spec_part([a for a in spec_axes(p) if a in explicit]) for p in spec_of(get_aval(o))])))
    return tree_util.tree_map(back, out)
  return wrapped


class _InferFromArgs:
  """``smap``'s default ``in_axes``: each argument's spec from its sharding."""

  def __repr__(self) -> str:
    return "jax.sharding.Infer"


Infer = _InferFromArgs()


def _axis_spec(axis_name, axis) -> PartitionSpec:
  return PartitionSpec() if axis is None else PartitionSpec(*[None] * axis, axis_name)


def _inferred_spec(axis_name, x) -> PartitionSpec:
  """``x``'s split over the axis ``axis_name`` alone, from its sharding."""
  sharding = getattr(x, "sharding", None) if isinstance(x, Array) else None
  if not isinstance(sharding, NamedSharding):
    return PartitionSpec()
  return PartitionSpec(*[axis_name if axis_name in spec_axes(p) else None
                         for p in sharding.spec])


def smap(f=None, /, *, in_axes=Infer, out_axes, axis_name):
  """``f`` mapped one mesh axis at a time: a shard_map over the context mesh's axis
  ``axis_name``, splitting each argument along its ``in_axes`` entry (inferred from the
  arguments' shardings by default, for an Explicit axis) and joining the outputs along
  ``out_axes``."""
  if f is None:
    return functools.partial(smap, in_axes=in_axes, out_axes=out_axes, axis_name=axis_name)
  if isinstance(axis_name, (list, tuple)):
    raise TypeError(f"smap axis_name should be a `str` or a `Hashable`, but got {axis_name}")
  if in_axes is not None and in_axes is not Infer and not isinstance(in_axes, (int, tuple)):
    raise TypeError("smap in_axes must be an int, None, jax.sharding.Infer, or a tuple of "
                    "entries corresponding to the positional arguments passed to the "
                    f"function, but got {in_axes}.")
  is_none = lambda a: a is None
  if in_axes is not Infer and not all(
      isinstance(a, int) for a in tree_util.tree_leaves(in_axes, is_leaf=is_none)
      if a is not None):
    raise TypeError("smap in_axes must be an int, None, jax.sharding.Infer, or (nested) "
                    f"container with those types as leaves, but got {in_axes}.")
  if not all(isinstance(a, int) for a in tree_util.tree_leaves(out_axes, is_leaf=is_none)
             if a is not None):
    raise TypeError("smap out_axes must be an int, None, or (nested) container with those "
                    f"types as leaves, but got {out_axes}.")
  to_spec = functools.partial(_axis_spec, axis_name)
  out_specs = tree_util.tree_map(to_spec, out_axes, is_leaf=is_none)

  @functools.wraps(f)
  def mapped(*args):
    abstract, mesh = get_abstract_mesh(), context_mesh()
    if abstract.empty or mesh is None:
      raise ValueError(EMPTY_CONTEXT_MESH)
    if axis_name not in abstract.axis_names:
      raise ValueError(f"jax.shard_map requires axis_names={frozenset({axis_name})} to be a "
                       f"subset of mesh.axis_names={frozenset(abstract.axis_names)}")
    axis_type = dict(zip(abstract.axis_names, abstract.axis_types))[axis_name]
    if in_axes is Infer:
      if axis_type is not AxisType.Explicit:
        raise TypeError(f"in_axes was not specified when axis_name={frozenset({axis_name})} "
                        f"was of type AxisType.{axis_type.name}")
      in_specs = tuple(tree_util.tree_map(functools.partial(_inferred_spec, axis_name), a)
                       for a in args)
    else:
      in_specs = tree_util.tree_map(to_spec, in_axes, is_leaf=is_none)
    if manual_axis_names():
      raise NotImplementedError("smap inside the body of a shard_map or smap: xjax does not "
                                "nest manual regions.")
    return shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs,
                     axis_names={axis_name})(*args)
  return mapped
