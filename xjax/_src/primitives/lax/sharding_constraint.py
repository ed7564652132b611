"""``with_sharding_constraint``: fixes the layout of an intermediate value over a mesh.

Staged, it lowers to GSPMD's ``Sharding`` custom call carrying the HLO sharding, which XLA's
partitioner honours; evaluated now, it lays the value out so.  On one device (or inside a
``shard_map`` body, where values are per-device blocks) it is the identity.
"""
from __future__ import annotations

from xjax._src.execution import spmd
from xjax._src.foundations import tree_util
from xjax._src.core.trace import Primitive, Tracer
from xjax._src.interpreters import ad, batching
from xjax._src.core.avals import spec_of
from xjax._src.foundations.sharding import (UNCONSTRAINED, AbstractMesh, AxisType, Mesh,
                                            NamedSharding, PartitionSpec, Sharding, _mesh_stack,
                                            context_mesh, get_abstract_mesh,
                                            over_devices_of, partial_manual_hlo_text,
                                            spec_axes, spec_part, type_sharding)
from xjax._src.core.values import get_aval
from xjax._src.execution.array import Array
from xjax._src.foundations.layout import Format


def _abstract_eval(x, *, sharding):
  """``x``'s type, split over the Explicit axes of ``sharding`` (JAX's sharding in types)."""
  sharding.check_shape(x.shape)
  return x.update(sharding=sharding)


def _lowering(ctx, x, *, sharding):
  free = [d for d, p in enumerate(sharding.spec) if p is UNCONSTRAINED]
  return _constraint(ctx, x, sharding, free)


def _constraint(ctx, x, sharding, free: list):
  """``x`` constrained to ``sharding``, its dimensions ``free`` left for GSPMD's
  propagation to split further."""
  module = ctx.module
  if not module.logical:
    return x
  if module.manual:  # inside a shard_map: a partial-manual one lays out along its other axes
    mesh, manual = module.manual[-1], module.manual_axes[-1]
    if len(manual) == len(mesh.axis_names):
      return x
    parts = [None if p is UNCONSTRAINED else p for p in sharding.spec]
    text = partial_manual_hlo_text(mesh, manual, parts + [None] * (ctx.avals_in[0].ndim -
                                                                    len(parts)), module.logical)
  else:
    text = sharding.tiling(ctx.avals_in[0].ndim).hlo_text(module.logical)
  attributes = {"call_target_name": '"Sharding"', "mhlo.sharding": f'"{text}"'}
  if free:  # dimensions whose layout GSPMD's propagation chooses
    attributes["backend_config"] = f'"unspecified_dims=[{",".join(map(str, free))}]"'
  return ctx.op("stablehlo.custom_call", [x], ctx.avals_out[0], attributes)


def _batch(prim, unnamed):
  """The batch dimension goes first, split over vmap's ``spmd_axis_name`` mesh axes, else
  ``unnamed``: free (UNCONSTRAINED) for a constraint; for a reshard the Explicit axes the
  mapped dimension was split over (unsplit if none), as JAX."""
  def rule(axis, args, dims, *, sharding):
    (x,), (d,) = args, dims
    x = batching.moveaxis(x, d, 0)
    names = axis.spmd_name
    if names is None and unnamed is None:
      names = axis.explicit_mesh_axis
    part = unnamed if names is None else names[0] if len(names) == 1 else names
    spec = PartitionSpec(part, *sharding.spec)
    return prim.bind(x, sharding=NamedSharding(sharding.mesh, spec)), 0
  return rule


sharding_constraint_p = Primitive("sharding_constraint")
sharding_constraint_p.abstract_eval = _abstract_eval
def _impl(x, *, sharding):
  """``x`` laid out now; an UNCONSTRAINED dimension is left unsplit (trailing ones dropped
  from the spec, as JAX's result sharding reads)."""
  parts = list(sharding.spec)
  if UNCONSTRAINED in parts:
    while parts and parts[-1] is UNCONSTRAINED:
      parts.pop()
    sharding = sharding.update(spec=[None if p is UNCONSTRAINED else p for p in parts])
  return spmd.put(x, sharding)


sharding_constraint_p.impl = _impl
sharding_constraint_p.lowering = _lowering
sharding_constraint_p.batch = _batch(sharding_constraint_p, UNCONSTRAINED)
ad.deflinear(sharding_constraint_p, lambda ct, x, *, sharding: [
    sharding_constraint_p.bind(ad.instantiate(ct), sharding=sharding)])


def _reshard_transpose(ct, x, *, sharding):
  """The cotangent laid out and typed as the operand was (JAX's reshard transpose)."""
  aval = x.aval
  # an unsharded operand's type names no mesh: it is typed over the context's (the grad
  # of an ``explicit_axes`` function is taken outside it, over the mesh's own types)
  types = (aval._sharding.mesh if aval._sharding is not None else get_abstract_mesh())
  mesh = sharding.mesh
  if types.shape_tuple == mesh.shape_tuple:
    mesh = over_devices_of(mesh, types)
  back = NamedSharding(mesh, PartitionSpec(*spec_of(aval)))
  return [reshard_p.bind(ad.instantiate(ct), sharding=back)]


def _reshard_lowering(ctx, x, *, sharding):
  """As JAX lowers a value to its type: nothing over a mesh whose axes are all Auto (XLA's
  propagation lays it out), and over one with some Auto axes every dimension is left free
  beyond the Explicit axes the type names."""
  mesh = sharding.mesh
  if mesh.are_all_axes_auto:
    return x
  if mesh.auto_axes:
    return _constraint(ctx, x, sharding, list(range(ctx.avals_in[0].ndim)))
  return _lowering(ctx, x, sharding=sharding)


def _reshard_impl(x, *, sharding):
  """Evaluated now: over a mesh with Auto axes, ``x`` keeps its splits along them (XLA's
  propagation keeps the operand's layout where the type leaves it free)."""
  if sharding.mesh.auto_axes and isinstance(x, Array):
    sharding = _keeping_auto_splits(x, sharding)
  return _impl(x, sharding=sharding)


def _keeping_auto_splits(x: Array, sharding: NamedSharding) -> NamedSharding:
  """``sharding`` plus the splits of ``x`` over ``sharding``'s Auto mesh axes that it
  leaves unused (trailing unsplit dimensions dropped, as JAX reports a layout XLA chose)."""
  placed = x.sharding
  if not isinstance(placed, NamedSharding) or not isinstance(placed.mesh, Mesh) or (
      placed.mesh.axis_names != sharding.mesh.axis_names
      or placed.mesh.devices.shape != sharding.mesh.devices.shape
      or not (placed.mesh.devices == sharding.mesh.devices).all()):
    return sharding
  sizes = dict(zip(sharding.mesh.axis_names, sharding.mesh.axis_sizes))
  auto = {a for a in sharding.mesh.auto_axes if sizes[a] > 1}  # (XLA reports no 1-way split)
  ndim = x.ndim
  pad = lambda spec: list(spec)[:ndim] + [None] * (ndim - len(spec))
  want = [None if p is UNCONSTRAINED else p for p in pad(sharding.spec)]
  used = {a for p in want for a in spec_axes(p)}
  parts = []
  for w, h in zip(want, pad(placed.spec)):
    axes = list(spec_axes(w)) + [a for a in spec_axes(h) if a in auto and a not in used]
    parts.append(spec_part(axes))
  while parts and parts[-1] is None and sharding.mesh.are_all_axes_auto:
    parts.pop()
  return NamedSharding(sharding.mesh, PartitionSpec(*parts))


# ``jax.sharding.reshard`` under a trace (and ``auto_axes``' casts of its arguments): a
# sharding constraint whose equation is JAX's ``reshard``, printed without parameters, and
# whose cotangent goes back to the operand's type.
reshard_p = Primitive("reshard")
reshard_p.abstract_eval = _abstract_eval
reshard_p.impl = _reshard_impl
reshard_p.lowering = _reshard_lowering
reshard_p.batch = _batch(reshard_p, None)
reshard_p.hidden_params = frozenset({"sharding"})
ad.deflinear(reshard_p, _reshard_transpose)


def place_out_sharding(x, out_sharding):
  """``x`` laid out as an ``out_sharding=`` argument says (JAX's samplers, convolutions):
  None, and the type sharding of an array that is not split (``jax.typeof(y).sharding``: a
  NamedSharding over no mesh axes), leave it as it is; a bare PartitionSpec needs a
  ``with mesh:`` context, as in JAX."""
  if out_sharding is None or (isinstance(out_sharding, NamedSharding)
                              and out_sharding.mesh.empty):
    return x
  aval = get_aval(x)
  if aval._sharding is not None and aval._sharding == type_sharding(out_sharding, aval.ndim):
    return x  # its type already says so (an operation that took out_sharding)
  if (aval._sharding is None and isinstance(x, Tracer) and _mesh_stack()
      and not type_sharding(out_sharding, aval.ndim) and _all_explicit(out_sharding)):
    return x  # an unsplit type over a mesh of Explicit axes says it all (in a jaxpr)
  if isinstance(out_sharding, PartitionSpec) and not _mesh_stack():
    raise ValueError("Using PartitionSpec when you are not under a mesh context is not "
                     "allowed. Please pass a NamedSharding instance or enter into a mesh "
                     f"context via `with mesh:`. Got {out_sharding}")
  spec = out_sharding if isinstance(out_sharding, PartitionSpec) else getattr(
      out_sharding, "spec", None)
  if spec is not None and len(spec) < aval.ndim and type_sharding(out_sharding, aval.ndim):
    # a typed result reports its type's spec, one entry per dimension
    spec = PartitionSpec(*spec, *[None] * (aval.ndim - len(spec)))
    out_sharding = (spec if isinstance(out_sharding, PartitionSpec)
                    else out_sharding.update(spec=spec))
  return constrain(x, out_sharding)


def _all_explicit(sharding) -> bool:
  """Whether ``sharding`` (or the context mesh, for a bare PartitionSpec) is over a mesh
  whose axes are all Explicit."""
  mesh = (get_abstract_mesh() if isinstance(sharding, PartitionSpec)
          else getattr(getattr(sharding, "mesh", None), "abstract_mesh", None))
  return mesh is not None and not mesh.empty and mesh.are_all_axes_explicit


def _in_partial_manual(sharding) -> bool:
  """Whether ``sharding`` is over the abstract mesh of the partial-manual shard_map body
  being traced (its manual axes typed Manual), where constraints name that mesh."""
  return (isinstance(sharding, NamedSharding) and isinstance(sharding.mesh, AbstractMesh)
          and bool(sharding.mesh.manual_axes) and sharding.mesh == get_abstract_mesh())


def _named(sharding, leaf=None) -> NamedSharding | None:
  """The NamedSharding a constraint on ``leaf`` names (a bare PartitionSpec takes the
  ``with mesh:`` mesh); None when it spans one device."""
  if isinstance(sharding, Format):  # (its layout: xjax keeps default layouts, which a
    sharding = sharding.sharding     # layout never changes the values of; see Layouts)
    if sharding is None:
      return None
  if isinstance(sharding, PartitionSpec):
    stack = _mesh_stack()
    if not stack:
      raise RuntimeError(  # (JAX's class and words)
          "with_sharding_constraint requires a non-empty mesh in context if you are passing "
          "`PartitionSpec`s to shardings. You can define a context mesh via "
          "`jax.set_mesh(mesh)`. Alternatively, provide `Sharding`s to shardings and then "
          "the mesh context manager is not required.")
    sharding = NamedSharding(stack[-1], sharding)
  if not isinstance(sharding, Sharding):
    raise TypeError(f"with_sharding_constraint expects a Sharding or PartitionSpec, got "
                    f"{sharding!r}")
  if (isinstance(sharding, NamedSharding) and isinstance(sharding.mesh, Mesh)
      and (sharding.mesh.size > 1 or _types(sharding))) or _in_partial_manual(sharding):
    return sharding
  if isinstance(sharding, NamedSharding) and isinstance(sharding.mesh, AbstractMesh):
    return _over_concrete_mesh(sharding, leaf)
  return None


def _types(sharding: NamedSharding) -> bool:
  """Whether ``sharding`` splits a dimension over an Explicit axis: it then gives the value
  its type, even over a mesh of one device."""
  types = dict(zip(sharding.mesh.axis_names, sharding.mesh.axis_types))
  return any(types[name] is AxisType.Explicit
             for part in sharding.spec if part is not UNCONSTRAINED for name in spec_axes(part))


def _over_concrete_mesh(sharding: NamedSharding, leaf) -> NamedSharding | None:
  """A sharding over an AbstractMesh, as JAX resolves it: over the context mesh
  (``jax.set_mesh``, ``with mesh:``) of its shape, else (outside ``jit``) over the mesh the
  array is laid out over. Nothing to do on one device."""
  abstract = sharding.mesh
  mesh = context_mesh()
  if mesh is not None and not mesh.empty and mesh.shape_tuple == abstract.shape_tuple:
    over = NamedSharding(over_devices_of(mesh, abstract), sharding.spec)
    return over if mesh.size > 1 or _types(over) else None
  if isinstance(leaf, Array):
    placed = leaf.sharding
    if not isinstance(placed, NamedSharding):
      raise TypeError("The sharding on the input must be a `NamedSharding` since the target "
                      "sharding has an `AbstractMesh` in it. Got sharding type "
                      f"<class 'xjax.sharding.{type(placed).__name__}'> for shape "
                      f"{leaf.aval.str_short()}")
    if placed.mesh.shape_tuple != abstract.shape_tuple:
      raise ValueError(f"Mesh shape of the input {placed.mesh.shape_tuple} does not match "
                       f"the mesh shape of the target sharding {abstract.shape_tuple} for "
                       f"shape {leaf.aval.str_short()}")
    return NamedSharding(placed.mesh, sharding.spec) if placed.mesh.size > 1 else None
  if abstract.size == 1:
    return None
  raise ValueError(
      f"with_sharding_constraint was given a NamedSharding over {abstract!r}, which names no "
      "devices; set a concrete mesh of that shape with `jax.set_mesh(mesh)` (or `with "
      "mesh:`), or pass a NamedSharding over a concrete Mesh.")


def with_sharding_constraint(x, shardings):
  """``x`` (a pytree) laid out as ``shardings`` (one, or a pytree matching ``x``; None
  leaves it unconstrained). As in JAX, where every axis of the context mesh is Explicit it
  only asserts that the types are split so, and otherwise it names Auto axes only."""
  leaves, tree, flat = _flat(x, shardings)
  context = get_abstract_mesh()
  out = []
  for leaf, s in zip(leaves, flat):
    # (JAX's form of a bare spec, which checks it: over the context mesh)
    given = NamedSharding(context, s) if isinstance(s, PartitionSpec) and not context.empty \
        else s
    if context.are_all_axes_explicit and isinstance(given, NamedSharding):
      _assert_typed_as(leaf, given.spec)  # over Explicit axes the type says it: an assertion
      out.append(leaf)
      continue
    if isinstance(given, NamedSharding):
      _check_auto_axes(given)
    out.append(_constrain_leaf(leaf, s))
  return tree_util.tree_unflatten(tree, out)


def constrain(x, shardings):
  """``x`` (a pytree) laid out as ``shardings`` says, whatever the axes' types: the layout
  ``reshard``, ``device_put`` under a trace and ``out_sharding=`` arguments give."""
  leaves, tree, flat = _flat(x, shardings)
  return tree_util.tree_unflatten(tree, [_constrain_leaf(l, s) for l, s in zip(leaves, flat)])


def _flat(x, shardings):
  leaves, tree = tree_util.tree_flatten(x)
  if shardings is None or isinstance(shardings, (Sharding, PartitionSpec)):
    return leaves, tree, [shardings] * len(leaves)
  flat = tree_util.tree_leaves(shardings, is_leaf=lambda s: s is None or isinstance(
      s, PartitionSpec))
  if len(flat) != len(leaves):
    raise ValueError(f"with_sharding_constraint: {len(flat)} shardings for {len(leaves)} "
                     "arrays; give one sharding or a pytree matching x.")
  return leaves, tree, flat


def _constrain_leaf(leaf, sharding):
  named = None if sharding is None else _named(sharding, leaf)
  return leaf if named is None else sharding_constraint_p.bind(leaf, sharding=named)


def _assert_typed_as(leaf, spec: PartitionSpec) -> None:
  """JAX's check, where every axis of the context mesh is Explicit, that ``leaf``'s type is
  split as ``spec`` says."""
  aval = get_aval(leaf)
  given = tuple(spec) + (None,) * (aval.ndim - len(spec))
  have = tuple(spec_of(aval))
  if any(g is not UNCONSTRAINED and g != h for g, h in zip(given, have)):
    raise AssertionError(
        "`with_sharding_constraint` acts as an assert when all axes of mesh are of type "
        f"`Explicit`. The array sharding: {PartitionSpec(*have)} did not match the sharding "
        f"provided: {PartitionSpec(*given)}. Please use `jax.sharding.reshard` to shard your "
        "input to the sharding you want.")


def _check_auto_axes(sharding: NamedSharding) -> None:
  """JAX's rule: a constraint names Auto mesh axes only (Explicit ones are in the types;
  ``reshard`` changes those)."""
  mesh = sharding.mesh
  types = dict(zip(mesh.axis_names, mesh.axis_types))
  if any(types[name] is not AxisType.Auto
         for part in sharding.spec if part is not UNCONSTRAINED for name in spec_axes(part)):
    raise ValueError("The spec of NamedSharding passed to with_sharding_constraint can only "
                     f"refer to Auto axes of the mesh. Got spec={sharding.spec} and "
                     f"mesh={mesh.abstract_mesh}. You probably meant to use `reshard` API?")
