"""``shard_map``: a function of per-device blocks, run on every device of a mesh.

``shard_map(f, mesh=, in_specs=, out_specs=)`` splits each argument into blocks as its
PartitionSpec says, traces ``f`` once on a block's shape with the mesh axes bound as names
for collectives, and joins the result blocks as ``out_specs`` says.  The ``shard_map``
primitive carries the body jaxpr; it lowers to GSPMD's manual region (the ``Sharding`` and
``SPMDFullToShardShape`` / ``SPMDShardToFullShape`` custom calls around the body), so the
whole program is one SPMD executable.

``axis_names`` makes only those mesh axes manual (every axis by default): the specs name
only them, a block is split only along them, and the other axes stay as they were outside
(an Explicit one in the blocks' types, over the context mesh with the manual axes typed
Manual); such a partial-manual region lowers to GSPMD's manual subgroups, every value in it
annotated with its manual tiles and its type's split over the other axes.

With ``check_vma`` (the default) the body's types record the manual axes each value varies
over (``core/varying.py``), and differentiation follows them: a replicated input reaches a
varying computation through a ``pvary``, whose transpose sums its cotangents. Without it,
differentiation treats the body as a function of all devices' blocks: an output block
declared replicated (its spec omits a mesh axis) receives its cotangent split evenly among
the devices holding it, and a replicated input sums its blocks' cotangents (a psum).
"""
from __future__ import annotations

import contextlib
import functools
import inspect
import math
from typing import Callable

from xjax._src.execution import spmd
from xjax._src.execution.eager_primitives import apply_primitive
from xjax._src.foundations import tree_util
from xjax._src.foundations.errors import api_boundary
from xjax._src.foundations.wrapping import wraps
from xjax._src.core import varying
from xjax._src.core.avals import (ShapedArray, ordered_axes, physical_aval,
                                  record_axis_order, spec_of)
from xjax._src.foundations.config import config
from xjax._src.core.jaxpr import jaxpr_as_fun
from xjax._src.core.trace import Primitive, Tracer, current_trace, eval_trace
from xjax._src.core.values import get_aval, shaped_abstractify
from xjax._src.interpreters import ad, batching
from xjax._src.interpreters.ad import Zero
from xjax._src.interpreters.higher_order import hoist, partial_eval_call, partition
from xjax._src.interpreters.staging import trace_to_jaxpr
from xjax._src.primitives.lax import elementwise, parallel, shapes
from xjax._src.primitives.lax.shard_map_eager import run_eagerly
from xjax._src.foundations.sharding import (AxisType, Mesh, NamedSharding, PartitionSpec,
                                            check_typed_shape,
                                            partial_manual_hlo_text, spec_axes, type_sharding,
                                            typed_sharding, use_abstract_mesh)


def _factors(mesh: Mesh, spec: PartitionSpec, ndim: int) -> list:
  sizes = mesh.shape
  parts = list(spec) + [None] * (ndim - len(spec))
  return [math.prod(sizes[a] for a in spec_axes(p)) for p in parts]


def _partial(mesh: Mesh, manual_axes: tuple) -> bool:
  return len(manual_axes) < len(mesh.axis_names)


def _body_mesh(mesh: Mesh, manual_axes: tuple):
  """The abstract mesh of a partial-manual body: its manual axes typed Manual."""
  return mesh.abstract_mesh.update_axis_types({a: AxisType.Manual for a in manual_axes})


def _part(axes: tuple):
  return None if not axes else axes[0] if len(axes) == 1 else axes


def _kept_parts(aval, keep) -> list:
  """Each dimension's split in ``aval``'s type, over the axes ``keep`` holds only."""
  return [_part(tuple(a for a in spec_axes(p) if keep(a))) for p in spec_of(aval)]


def _block(aval: ShapedArray, mesh: Mesh, spec: PartitionSpec, manual_axes) -> ShapedArray:
  """One device's block of a value laid out as ``spec``: split along the manual axes only;
  its type keeps the value's split over the other Explicit axes (over the body's mesh)."""
  shape = tuple(n // f for n, f in zip(aval.shape, _factors(mesh, spec, aval.ndim)))
  sharding = None
  if _partial(mesh, manual_axes):
    parts = _kept_parts(aval, lambda a: a not in manual_axes)
    if any(p is not None for p in parts):
      sharding = typed_sharding(_body_mesh(mesh, manual_axes), parts)
      check_typed_shape(sharding, shape)
  return aval.update(shape=shape, sharding=sharding)


def _full(aval: ShapedArray, mesh: Mesh, spec: PartitionSpec) -> ShapedArray:
  """The value whose blocks ``aval`` types, laid out as ``spec`` along the manual axes and
  as the blocks' types say along the others (in its type, over the mesh's Explicit axes)."""
  parts = list(spec) + [None] * (aval.ndim - len(spec))
  joined = [_part(spec_axes(p) + spec_axes(t)) for p, t in zip(parts, spec_of(aval))]
  return aval.update(shape=tuple(n * f for n, f in zip(aval.shape,
                                                       _factors(mesh, spec, aval.ndim))),
                     sharding=NamedSharding(mesh, PartitionSpec(*joined)),
                     vma=aval._vma - set(mesh.axis_names))


def _typed_in_specs(mesh: Mesh, manual_axes, leaves, specs):
  """Over a mesh with Explicit axes, ``in_specs`` must be the arguments' types' splits (JAX's
  ValueError otherwise; a partial-manual shard_map lays its arguments out as they say, as
  JAX); omitted (None), they are inferred from those types' splits over the manual axes."""
  if not mesh.explicit_axes:
    return specs
  out = []
  for x, spec in zip(leaves, specs):
    aval = get_aval(x)
    typed = PartitionSpec(*_kept_parts(aval, lambda a: a in manual_axes))
    if spec is None or _partial(mesh, manual_axes):
      out.append(typed if spec is None else spec)
      continue
    given = type_sharding(NamedSharding(mesh, spec), aval.ndim)
    given = PartitionSpec(*(given.spec if given is not None else [None] * aval.ndim))
    if given != typed:
      raise ValueError(   # (both specs padded to the argument's rank, as JAX shows them)
          f"in_specs passed to shard_map: {given} does not match the specs of the input: "
          f"{typed} for arg: {aval.str_short(short_dtypes=False)}. `in_specs` is an optional "
          "argument so you can omit specifying it and shard_map will infer the in_specs from "
          "the arguments. If you want to reshard your inputs, you can use `jax.reshard` on "
          "the arguments and then pass those args to shard_map.")
    out.append(spec)
  return out


def _missing(mesh: Mesh, spec: PartitionSpec, manual_axes) -> tuple:
  """The manual axes (of more than one device) along which a block is replicated."""
  named = {a for p in spec for a in spec_axes(p)}
  return tuple(a for a in manual_axes if a not in named and mesh.shape[a] > 1)


# ---------------------------------------------------------------------------------------
# The primitive

def _abstract_eval(*avals, jaxpr, mesh, manual_axes, in_specs, out_specs, check_vma):
  return [_full(a, mesh, s) for a, s in zip(jaxpr.out_avals, out_specs)]


def _varies_over(spec: PartitionSpec, mesh: Mesh, manual_axes) -> frozenset:
  """The manual axes a block laid out as ``spec`` varies over (JAX leaves out axes of size
  1 under ``jax_remove_size_one_mesh_axis_from_type``)."""
  drop = config._read("jax_remove_size_one_mesh_axis_from_type")
  return frozenset(a for a in _named(spec) if a in manual_axes and not (
      drop and mesh.shape[a] == 1))


def _impl(*args, **params):
  if params["mesh"].size == 1:  # one device: compiled as under jit
    return apply_primitive(shard_map_p, *args, **params)
  mesh = params["mesh"]
  outs = None  # (over every mesh axis, the results' shardings name out_specs as given, as
  if set(params["manual_axes"]) == set(mesh.axis_names):  # JAX's; else types add the rest)
    outs = tuple(NamedSharding(mesh, spec) for spec in params["out_specs"])
  return spmd.apply_primitive(shard_map_p, args, params, mesh=mesh, out_shardings=outs)


def _lowering(ctx, *args, jaxpr, mesh, manual_axes, in_specs, out_specs, check_vma):
  from xjax._src.backend.lowering import LoweringContext
  module = ctx.module
  if mesh.size == 1 and not module.logical:
    module.logical = {mesh.devices.flat[0]: 0}
  logical = module.logical
  partial = _partial(mesh, manual_axes)

  def manual(ndim):  # a block's sharding: manual tiles (and replicas along the other axes)
    return partial_manual_hlo_text(mesh, manual_axes, [None] * ndim, logical) if (
        partial) else "{manual}"
  rank = lambda aval: physical_aval(aval).ndim  # (a PRNG key's trailing dims: replicated)
  blocks = []
  for x, spec, block in zip(args, in_specs, jaxpr.in_avals):
    text = NamedSharding(mesh, spec).tiling(rank(block)).hlo_text(logical)
    x = _custom_call(ctx, "Sharding", x, ctx.aval_of(x), text, partial)
    blocks.append(_custom_call(ctx, "SPMDFullToShardShape", x, block, manual(rank(block)),
                               partial))
  body = LoweringContext(module, ctx.lines, ctx._counter, ctx.indent)
  module.manual.append(mesh)
  module.manual_axes.append(manual_axes)
  try:
    outs = body.lower_jaxpr(jaxpr.jaxpr, jaxpr.consts, blocks)
  finally:
    module.manual.pop()
    module.manual_axes.pop()
  results = []
  for x, spec, full in zip(outs, out_specs, ctx.avals_out):
    x = _custom_call(ctx, "Sharding", x, ctx.aval_of(x), manual(rank(full)), partial)
    text = NamedSharding(mesh, spec).tiling(rank(full)).hlo_text(logical)
    results.append(_custom_call(ctx, "SPMDShardToFullShape", x, full, text, partial))
  return results


def _custom_call(ctx, target: str, x, out_aval, sharding: str, free: bool = False):
  """GSPMD's custom call ``target``; ``free``: the layout along the axes the sharding does
  not make manual is XLA's choice (every dimension unspecified, as JAX writes it)."""
  attributes = {"call_target_name": f'"{target}"', "mhlo.sharding": f'"{sharding}"'}
  if free and out_aval.ndim:
    dims = ",".join(map(str, range(out_aval.ndim)))
    attributes["backend_config"] = f'"unspecified_dims=[{dims}]"'
  return ctx.op("stablehlo.custom_call", [x], out_aval, attributes)


def _bind_body(fun: Callable, block_avals, args, mesh, manual_axes, in_specs, out_specs,
               check_vma, stage_on=None, keep=None):
  """Binds shard_map (or stages it on the trace ``stage_on``) on ``fun`` traced over
  ``block_avals``, its constants hoisted into replicated operands; ``out_specs(closed)``
  gives the output specs of its trace.  ``keep`` (a list) receives the constants and the
  parameters, to bind again on operands of the same types."""
  if check_vma:
    block_avals = [a.update(vma=_varies_over(s, mesh, manual_axes))
                   for a, s in zip(block_avals, in_specs)]
  with _bound_axes(mesh, manual_axes, check_vma):
    closed = trace_to_jaxpr(fun, list(block_avals))
  specs_out = tuple(out_specs(closed))
  body, consts = hoist(closed)
  params = dict(jaxpr=body, mesh=mesh, manual_axes=manual_axes, out_specs=specs_out,
                check_vma=check_vma, in_specs=(PartitionSpec(),) * len(consts) + tuple(in_specs))
  if keep is not None:
    keep.append((consts, params))
  if stage_on is not None:
    return stage_on.stage(shard_map_p, [*consts, *args], params)
  return shard_map_p.bind(*consts, *args, **params)


def _jvp(primals, tangents, *, jaxpr, mesh, manual_axes, in_specs, out_specs, check_vma):
  nonzeros = [type(t) is not Zero for t in tangents]
  with _bound_axes(mesh, manual_axes, check_vma):
    jvp_jaxpr, out_nz = ad.jvp_closed_jaxpr(jaxpr, nonzeros, instantiate_out=False)
  tans = [t for t in tangents if type(t) is not Zero]
  t_specs = [s for s, nz in zip(in_specs, nonzeros) if nz]
  outs = shard_map_p.bind(
      *primals, *tans, jaxpr=jvp_jaxpr, mesh=mesh, manual_axes=manual_axes,
      in_specs=tuple(in_specs) + tuple(t_specs),
      out_specs=tuple(out_specs) + tuple(s for s, nz in zip(out_specs, out_nz) if nz),
      check_vma=check_vma)
  n = len(out_specs)
  it = iter(outs[n:])
  full = [_full(a, mesh, s) for a, s in zip(jaxpr.out_avals, out_specs)]
  return outs[:n], [next(it) if nz else Zero(ad.tangent_aval(a))
                    for nz, a in zip(out_nz, full)]


def _transpose(cts, *args, jaxpr, mesh, manual_axes, in_specs, out_specs, check_vma):
  """With ``check_vma`` the body's types say where cotangents are summed (``pvary``'s
  transpose); without, a replicated output's cotangent is split evenly among its copies
  and a replicated input's summed over them."""
  linear = [ad.is_undefined(x) for x in args]
  with _bound_axes(mesh, manual_axes, check_vma):  # (transpose rules may ask axis sizes)
    ct_jaxpr = ad.transpose_closed_jaxpr(jaxpr, linear)
  nonlin = [x for x in args if not ad.is_undefined(x)]
  nonlin_specs = [s for s, l in zip(in_specs, linear) if not l]
  lin_specs = [s for s, l in zip(in_specs, linear) if l]
  cts = [ad.instantiate(c) for c in cts]
  missing = (lambda _: ()) if check_vma else functools.partial(_missing, mesh,
                                                                 manual_axes=manual_axes)
  copies = [math.prod(mesh.shape[a] for a in missing(s)) for s in out_specs]

  def body(*xs):
    ins, ct_blocks = xs[:len(nonlin)], xs[len(nonlin):]
    ct_blocks = [c if n == 1 else elementwise.div(c, elementwise.convert_element_type(
        n, get_aval(c).dtype)) for c, n in zip(ct_blocks, copies)]
    outs = jaxpr_as_fun(ct_jaxpr)(*ins, *ct_blocks)
    return [parallel.psum(o, missing(s)) if missing(s) else o
            for o, s in zip(outs, lin_specs)]

  blocks = [_block(get_aval(x), mesh, s, manual_axes) for x, s in zip(nonlin, nonlin_specs)] + [
      _block(get_aval(c), mesh, s, manual_axes) for c, s in zip(cts, out_specs)]
  outs = _bind_body(body, blocks, nonlin + cts, mesh, manual_axes,
                    nonlin_specs + list(out_specs), lambda _: lin_specs, check_vma)
  it = iter(outs)
  return [next(it) if l else None for l in linear]


def _partial_eval(trace, args, params):
  """Known inputs run now in one shard_map, which also returns each device's residuals
  (stacked along a leading axis split over the whole mesh); the rest is staged."""
  mesh, in_specs, out_specs = params["mesh"], params["in_specs"], params["out_specs"]
  manual_axes, check_vma = params["manual_axes"], params["check_vma"]
  every = PartitionSpec(manual_axes)

  def res_spec(aval):  # (checked, a residual that varies over fewer axes is split over them)
    return PartitionSpec(_part(ordered_axes(aval._vma))) if check_vma else every

  def run_known(split, known_args):
    n_known = len(split.known.out_avals) - split.num_res
    known_specs = partition(split.unknowns, in_specs)[0]
    known_out_specs = partition(split.out_unknowns, out_specs)[0]
    res_specs = [res_spec(a) for a in split.known.out_avals[n_known:]]

    def known_body(*xs):
      outs = jaxpr_as_fun(split.known)(*xs)
      return outs[:n_known] + [_lead(r) for r in outs[n_known:]]
    return _bind_body(known_body, [_block(get_aval(x), mesh, s, manual_axes)
                                   for x, s in zip(known_args, known_specs)],
                      known_args, mesh, manual_axes, known_specs,
                      lambda _: known_out_specs + res_specs, check_vma)

  def stage_unknown(split, residuals, unknown_args):
    res_avals = split.unknown.in_avals[:len(residuals)]
    res_specs = [res_spec(a) for a in res_avals]

    def unknown_body(*xs):
      res = [shapes.reshape(r, a.shape) for r, a in zip(xs[:len(res_avals)], res_avals)]
      return jaxpr_as_fun(split.unknown)(*res, *xs[len(res_avals):])
    unknown_specs = partition(split.unknowns, in_specs)[1]
    blocks = [_block(get_aval(r), mesh, s, manual_axes) for r, s in zip(residuals, res_specs)
              ] + [_block(get_aval(x), mesh, s, manual_axes)
                   for x, s in zip(unknown_args, unknown_specs)]
    return _bind_body(unknown_body, blocks, residuals + unknown_args, mesh, manual_axes,
                      res_specs + unknown_specs,
                      lambda _: partition(split.out_unknowns, out_specs)[1],
                      check_vma, stage_on=trace)
  return partial_eval_call(trace, args, params["jaxpr"], run_known, stage_unknown)


def _lead(x):
  aval = get_aval(x)
  return shapes.reshape(x, (1,) + aval.shape)


def _batch(axis, args, dims, *, jaxpr, mesh, manual_axes, in_specs, out_specs, check_vma):
  """vmap of shard_map: the batch axis leads every block, never split."""
  in_batched = [d is not None for d in dims]
  args = [batching.moveaxis(x, d, 0) if d is not None else x for x, d in zip(args, dims)]
  with _bound_axes(mesh, manual_axes, check_vma):
    batched, out_batched = batching.batch_closed_jaxpr(jaxpr, axis, in_batched)
  lead = lambda s: PartitionSpec(None, *s)  # noqa: E731
  outs = shard_map_p.bind(*args, jaxpr=batched, mesh=mesh, manual_axes=manual_axes, in_specs=tuple(
      lead(s) if b else s for s, b in zip(in_specs, in_batched)),
      out_specs=tuple(lead(s) if b else s for s, b in zip(out_specs, out_batched)),
      check_vma=check_vma)
  return outs, [0 if b else None for b in out_batched]


shard_map_p = Primitive("shard_map", multiple_results=True)
shard_map_p.vma_rule = varying.from_bodies
shard_map_p.abstract_eval = _abstract_eval
shard_map_p.impl = _impl
shard_map_p.lowering = _lowering
shard_map_p.jvp = _jvp
shard_map_p.transpose = _transpose
shard_map_p.partial_eval = _partial_eval
shard_map_p.batch = _batch
shard_map_p.pp_params = lambda p: sorted(
    ("newly_manual_axes", "frozenset({" + ", ".join(map(repr, v)) + "})")  # (JAX's name)
    if k == "manual_axes" else (k, v) for k, v in p.items())


# ---------------------------------------------------------------------------------------
# Which mesh axes a value may differ along (JAX's check_vma)

def _check_vma(jaxpr, mesh, out_specs, spec_paths, name: str) -> None:
  """JAX's ValueError (in its words, one entry per output) where an output's type varies
  over a mesh axis its out_specs entry does not split it over."""
  in_order = lambda axes: ",".join(a for a in mesh.axis_names if a in axes)
  msgs = []
  for spec, path, aval in zip(out_specs, spec_paths, jaxpr.out_avals):
    varying = aval._vma
    named = set(_named(spec))
    if not varying - named:
      continue
    unmentioned = [a for a in mesh.axis_names if a not in named]
    head = f"* out_specs{tree_util.keystr(path)} is {spec!r} which implies that the "
    if len(unmentioned) > 1:
      msgs.append(head + "corresponding output value is only varying across mesh axes "
                  f"{{{in_order(named)}}} and not {{{in_order(set(unmentioned) & varying)}}}, "
                  f"but it was inferred to be possibly varying over {{{in_order(varying)}}}")
    else:
      msgs.append(head + "corresponding output value is replicated across mesh axis "
                  f"'{unmentioned[0]}', but could not infer replication over any axes")
  if not msgs:
    return
  if len(msgs) == 1:
    msgs = [msgs[0][2:]]
  raise ValueError(
      f"shard_map applied to the function '{name}' was given out_specs which require "
      "replication which can't be statically inferred given the mesh:\n\nThe mesh given "
      f"has shape {mesh.axis_sizes} with corresponding axis names {mesh.axis_names}.\n\n"
      + "\n\n".join(msgs) + "\n\nCheck if these output values are meant to be replicated "
      "over those mesh axes. If not, consider revising the corresponding out_specs entries. "
      "If so, consider disabling the check by passing the check_vma=False argument to "
      "`jax.shard_map`.")


def manual_axis_names() -> tuple:
  """The mesh axes the shard_map bodies being traced make manual."""
  return tuple(a for _, manual in _bound_axes.regions for a in manual)


def _named(spec) -> list:
  return [a for p in spec for a in spec_axes(p)]


def _body_types(mesh: Mesh, manual_axes: tuple):
  """The context in which a body's values are typed: a partial-manual body's mesh (its
  manual axes Manual, the others as outside); a fully manual body's values are unsharded."""
  if _partial(mesh, manual_axes):
    return use_abstract_mesh(_body_mesh(mesh, manual_axes))
  return contextlib.nullcontext()


class _bound_axes:
  """Binds the manual mesh axes as names for collectives (``axis_size``) while tracing or
  transforming a body, typed in its context (``_body_types``; with ``check_vma``, its
  values' types record the manual axes they vary over)."""
  regions: list = []  # (mesh, manual axes) of the bodies being traced, innermost last

  def __init__(self, mesh: Mesh, manual_axes: tuple, check_vma: bool = False) -> None:
    self._region = mesh, manual_axes
    self._contexts = [batching._bound_axis(batching.AxisData(mesh.shape[a], a))
                      for a in manual_axes] + [_body_types(mesh, manual_axes)]
    if check_vma:
      record_axis_order(mesh.axis_names)
      self._contexts.append(varying.checking(manual_axes))

  def __enter__(self):
    _bound_axes.regions.append(self._region)
    for c in self._contexts:
      c.__enter__()

  def __exit__(self, *exc):
    for c in reversed(self._contexts):
      c.__exit__(*exc)
    _bound_axes.regions.pop()


# ---------------------------------------------------------------------------------------
# The user-facing function

def _specs_with_paths(specs, tree, what: str) -> list:
  """``specs`` (a PartitionSpec or a pytree prefix of ``tree``) as one spec per leaf, each
  with its key path in ``specs`` (None is ``P()``)."""
  is_spec = lambda s: s is None or isinstance(s, PartitionSpec)  # noqa: E731
  if is_spec(specs):
    return [((), specs or PartitionSpec())] * len(tree_util.tree_leaves(tree))
  try:
    subtrees = tree_util.tree_structure(specs, is_leaf=is_spec).flatten_up_to(tree)
  except (ValueError, TypeError):
    raise ValueError(f"shard_map {what} {specs!r} is not a pytree prefix of the values it "
                     f"describes ({tree_util.tree_structure(tree)}).") from None
  flat = tree_util.tree_flatten_with_path(specs, is_leaf=is_spec)[0]
  return [(p, s or PartitionSpec()) for (p, s), sub in zip(flat, subtrees)
          for _ in tree_util.tree_leaves(sub)]


def _check_specs(manual_axes: tuple, specs, what: str) -> None:
  for spec in specs:
    for a in _named(spec or ()):
      if a not in manual_axes:
        raise ValueError(f"shard_map {what} argument must refer to an axis marked as manual "
                         f"({frozenset(manual_axes)}), but:\n\n  {what} refers to "
                         f"{a!r}\n\nCheck the {what} values passed to shard_map.")


def _arg_binding(f, fun_name: str, args, key) -> str:
  """Which parameter of ``f`` the argument ``args[key.idx]`` binds to, as JAX's errors say
  it (empty where the signature does not take the arguments)."""
  try:
    inspect.signature(f).bind(*args)
    params = [p for p in inspect.signature(f).parameters.values()
              if p.kind not in (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.VAR_KEYWORD)]
  except (TypeError, ValueError):
    return ""
  if key.idx >= len(params) or params[key.idx].kind == inspect.Parameter.VAR_POSITIONAL:
    return (f", where args{key} is the index {key.idx - len(params) + 1} component of "
            f"{fun_name}'s varargs parameter '{params[-1].name}',")
  return f", where args{key} is bound to {fun_name}'s parameter '{params[key.idx].name}',"


def _rank_error(fun_name: str, prefix: str, entries) -> ValueError:
  """JAX's error for specs longer than their values' ranks; ``entries``: per value, the
  spec's path, the spec, how the value is named, and its type."""
  msgs = [f"* {prefix}_specs{tree_util.keystr(sp)} is {spec} which has length {len(spec)}, "
          f"but {what} has shape {aval.str_short()}, which has rank {aval.ndim} (and "
          f"{aval.ndim} < {len(spec)})" for sp, spec, what, aval in entries]
  if len(msgs) == 1:
    msgs = [msgs[0][2:]]
  msg = (f"shard_map applied to the function '{fun_name}' was given an {prefix}_specs entry "
         f"which is too long to be compatible with the corresponding {prefix}put value from "
         "the function:\n\n" + "\n\n".join(msgs) + f"\n\nEntries in {prefix}_specs must be "
         f"of length no greater than the number of axes in the corresponding {prefix}put "
         f"value.\n\nEither revise the spec to be shorter, or modify '{fun_name}' so that its "
         f"{prefix}puts have sufficient rank.")
  if any(not aval.ndim for *_, aval in entries):
    msg += (f"\n\nFor scalar values (rank 0), consider using an {prefix}_specs entry of "
            "`P()`, where `P = jax.sharding.PartitionSpec`.")
    if prefix == "out":
      msg += (" In particular, for rank 0 outputs which are not constant over the mesh, add "
              "at least one (singleton) axis to them so that they can be concatenated using "
              "out_specs.")
  return ValueError(msg)


def _check_in_specs_fit(f, mesh, fun_name, args, specs, spec_paths) -> None:
  """JAX's errors, in its words, for in_specs longer than their arguments' ranks or
  splitting a dimension over mesh axes whose size does not divide it."""
  arg_paths = [p for p, _ in tree_util.tree_flatten_with_path(args)[0]]
  leaves = tree_util.tree_leaves(args)
  long = [(sp, spec, f"the passed args{tree_util.keystr(p)}"
           + _arg_binding(f, fun_name, args, p[0]), get_aval(x))
          for x, spec, sp, p in zip(leaves, specs, spec_paths, arg_paths)
          if len(spec) > get_aval(x).ndim]
  if long:
    raise _rank_error(fun_name, "in", long)
  msgs = []
  for x, spec, sp, p in zip(leaves, specs, spec_paths, arg_paths):
    aval = get_aval(x)
    for d, part in enumerate(spec):
      names = spec_axes(part)
      size = math.prod(mesh.shape[a] for a in names)
      if names and aval.shape[d] % size:
        axis = f"axes {names}" if len(names) > 1 else f"axis '{names[0]}'"
        total = "total " if len(names) > 1 else ""
        msgs.append(f"* the passed args{tree_util.keystr(p)} of shape {aval.str_short()}"
                    f"{_arg_binding(f, fun_name, args, p[0])} corresponds to "
                    f"in_specs{tree_util.keystr(sp)} of value {spec}, which maps array axis "
                    f"{d} (of size {aval.shape[d]}) to mesh {axis} (of {total}size {size}), "
                    f"but {size} does not evenly divide {aval.shape[d]}")
  if not msgs:
    return
  if len(msgs) == 1:
    msgs = [msgs[0][2:]]
  raise ValueError(
      f"shard_map applied to the function '{fun_name}' was given argument arrays with axis "
      "sizes that are not evenly divisible by the corresponding mesh axis sizes:\n\nThe mesh "
      f"given has shape {mesh.axis_sizes} with corresponding axis names {mesh.axis_names}."
      "\n\n" + "\n\n".join(msgs) + "\n\nArray arguments' axis sizes must be evenly "
      "divisible by the mesh axis or axes indicated by the corresponding elements of the "
      "argument's in_specs entry. Consider checking that in_specs are correct, and if so "
      f"consider changing the mesh axis sizes or else padding the input and adapting "
      f"'{fun_name}' appropriately.")


def _manual_axes(mesh: Mesh, axis_names) -> tuple:
  """The mesh axes ``axis_names`` makes manual, in the mesh's order (all when empty)."""
  if not isinstance(axis_names, (set, frozenset)):
    raise TypeError("`axis_names` argument of shard_map should be of type `frozenset` or "
                    f"`set`. Got type: {type(axis_names)}")
  if not set(axis_names) <= set(mesh.axis_names):
    raise ValueError(f"jax.shard_map requires axis_names={frozenset(axis_names)} to be a "
                     f"subset of mesh.axis_names={frozenset(mesh.axis_names)}")
  return tuple(a for a in mesh.axis_names if not axis_names or a in axis_names)


EMPTY_CONTEXT_MESH = ("The context mesh cannot be empty. Use `jax.set_mesh(mesh)` to enter "
                      "into a mesh context")


def shard_map(f: Callable | None = None, /, *, out_specs, in_specs=None, mesh=None,
              axis_names=frozenset(), check_vma: bool = True, check_rep=None) -> Callable:
  """``f`` applied to each device's blocks of its arguments over ``mesh`` (see the module
  docstring); ``check_vma`` checks that outputs declared replicated are.  Called at the top
  level, the body runs eagerly, one operation at a time (``shard_map_eager``)."""
  if f is None:
    return functools.partial(shard_map, out_specs=out_specs, in_specs=in_specs, mesh=mesh,
                             axis_names=axis_names, check_vma=check_vma, check_rep=check_rep)
  if check_rep is not None:
    check_vma = check_rep
  return _shard_map(f, out_specs, in_specs, mesh, axis_names, check_vma, eager=True)


def compiled_shard_map(f: Callable, *, out_specs, in_specs, mesh, axis_names,
                       check_vma: bool) -> Callable:
  """``shard_map`` whose body is always traced and compiled as a whole (never eager), and
  traced once for operands of the same types (``f`` must not change)."""
  return _shard_map(f, out_specs, in_specs, mesh, axis_names, check_vma, eager=False,
                    traced={})


def _shard_map(f, out_specs, in_specs, mesh, axis_names, check_vma, eager, traced=None):
  fun_name = getattr(f, "__name__", repr(f))

  @wraps(f)
  @api_boundary
  def mapped(*args):
    nonlocal mesh
    if mesh is None:  # the context mesh of the first call (JAX's)
      from xjax._src.foundations.sharding import _mesh_stack
      if not _mesh_stack() or _mesh_stack()[-1].empty:
        raise ValueError(EMPTY_CONTEXT_MESH)
      mesh = _mesh_stack()[-1]
    manual = _manual_axes(mesh, axis_names)
    if _bound_axes.regions:
      outer, outer_manual = _bound_axes.regions[-1]
      if outer != mesh:  # (a pmap inside a pmap, too)
        raise ValueError(f"shard_map inside the body of a shard_map over another mesh: the "
                         f"context mesh {outer} should match the mesh passed to shard_map "
                         f"{mesh}.")
      if _partial(outer, outer_manual):
        raise NotImplementedError("shard_map inside the body of a shard_map with axis_names= "
                                  "(a partial-manual region): xjax does not nest them.")
    leaves, in_tree = tree_util.tree_flatten(args)
    key = (in_tree, tuple(map(get_aval, leaves))) if traced is not None else None
    hit = traced.get(key) if key is not None else None
    if hit is not None:  # (bound as traced before)
      consts, params, out_tree = hit
      return tree_util.tree_unflatten(out_tree, shard_map_p.bind(*consts, *leaves, **params))
    for x in leaves:   # (a value of no JAX type: JAX's error for shard_map's arguments)
      shaped_abstractify(x)
    if in_specs is None and mesh.explicit_axes:  # from the arguments' types
      specs = _typed_in_specs(mesh, manual, leaves, [None] * len(leaves))
      spec_paths = [()] * len(leaves)
    else:
      pairs = _specs_with_paths(in_specs if in_specs is not None else PartitionSpec(), args,
                                "in_specs")
      spec_paths, specs = [p for p, _ in pairs], [spec for _, spec in pairs]
      _check_specs(manual, specs, "in_specs")
      specs = _typed_in_specs(mesh, manual, leaves, specs)
    _check_in_specs_fit(f, mesh, fun_name, args, specs, spec_paths)
    out_tree_box = []

    def body(*blocks):
      out = f(*tree_util.tree_unflatten(in_tree, blocks))
      out_leaves, out_tree = tree_util.tree_flatten(out)
      # (the outputs' structure, with avals for leaves: keeping tracers would leak them)
      skeleton = tree_util.tree_unflatten(out_tree, [get_aval(o) for o in out_leaves])
      # (pmap passes a callable: its out_specs follow the traced outputs)
      pairs = _specs_with_paths(out_specs() if callable(out_specs) else out_specs, skeleton,
                                "out_specs")
      _check_specs(manual, [spec for _, spec in pairs], "out_specs")
      if check_vma and config._read("jax_auto_pcast"):  # (JAX casts each output to vary as
        out_leaves = [parallel.pvary(o, _varies_over(spec, mesh, manual)  # its spec says)
                                     - get_aval(o)._vma) for o, (_, spec) in zip(out_leaves, pairs)]
      out_tree_box.append((skeleton, out_tree, pairs))
      return out_leaves

    def checked_specs(out_avals, closed=None):
      """The outputs' specs, checked against their ranks (and with ``closed``, the traced
      body, against the axes they vary over)."""
      out, _, pairs = out_tree_box[0]
      paths, flat = [p for p, _ in pairs], [spec for _, spec in pairs]
      out_paths = [p for p, _ in tree_util.tree_flatten_with_path(out)[0]]
      long = [(sp, spec, f"{fun_name}(*args){tree_util.keystr(p)}", aval.update(vma=frozenset()))
              for aval, spec, sp, p in zip(out_avals, flat, paths, out_paths)
              if len(spec) > aval.ndim]
      if long:
        raise _rank_error(fun_name, "out", long)
      if check_vma and closed is not None:
        _check_vma(closed, mesh, flat, paths, fun_name)
      return flat

    if (eager and current_trace() is eval_trace and isinstance(mesh, Mesh)
        and not _partial(mesh, manual) and not any(isinstance(x, Tracer) for x in leaves)):
      outs = run_eagerly(body, leaves, specs, lambda outs: checked_specs(map(get_aval, outs)),
                         mesh, manual, check_vma, lambda s: _varies_over(s, mesh, manual),
                         lambda: _bound_axes(mesh, manual, check_vma), compiled_shard_map)
    else:
      blocks = [_block(get_aval(x), mesh, s, manual) for x, s in zip(leaves, specs)]
      kept: list = []
      outs = _bind_body(body, blocks, leaves, mesh, manual, specs,
                        lambda closed: checked_specs(closed.out_avals, closed), check_vma,
                        keep=kept)
      if key is not None and current_trace() is eval_trace:
        traced[key] = (*kept[0], out_tree_box[0][1])
    return tree_util.tree_unflatten(out_tree_box[0][1], outs)
  return mapped
