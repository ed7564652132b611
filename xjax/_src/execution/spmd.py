"""SPMD execution: programs over several devices, partitioned by XLA.

A program runs over a mesh's devices when an input is an Array laid out over several
devices, when ``jit`` is given shardings, or when its jaxpr names a mesh (``shard_map``,
``with_sharding_constraint``).  It is lowered once, with each parameter's (and each
requested result's) HLO sharding written on ``main`` (GSPMD's ``mhlo.sharding``), and
compiled with one partition per device; XLA's partitioner inserts the communication.
Outputs are laid out as XLA chose, described over the inputs' mesh.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from xjax._src.execution.array import Array, make_array
from xjax._src.execution.dispatch import donation_aliases, params_key, run_program
from xjax._src.backend import buffers, clients, executables, lowering
from xjax._src.core.avals import ShapedArray, physical_aval, typed_as_laid_out
from xjax._src.core.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Var
from xjax._src.core.jaxpr_cache import WeakLRU, bounded_put, cached_on_jaxpr
from xjax._src.core.trace import eval_types
from xjax._src.core.values import get_aval
from xjax._src.foundations.config import config
from xjax._src.foundations.sharding import (PLACING, Mesh, NamedSharding, PartitionSpec,
                                            Sharding, placement_mesh, replicated_over,
                                            over_devices_of, retyped,
                                            sharding_from_tiling, typed_context_mesh)


def is_spread(x) -> bool:
  """Whether ``x`` is an Array laid out over several devices."""
  return isinstance(x, Array) and buffers.is_spread(x._buf)


def replicated(mesh: Mesh) -> NamedSharding:
  return NamedSharding(mesh, PartitionSpec())


def mesh_of(sharding: Sharding) -> Mesh:
  """The mesh a layout is described over (a 1-D one for layouts without a mesh)."""
  if isinstance(sharding, NamedSharding):
    return sharding.mesh
  devices = sorted(sharding.device_set, key=lambda d: d.id)
  return Mesh(np.array(devices, dtype=object), ("_devices",))


def _device_ids(devices) -> list:
  return sorted(d.id for d in devices)


def common_mesh(meshes: Sequence[Mesh], what: str = "computation") -> Mesh | None:
  """The first of ``meshes`` of more than one device; all of them must share its devices."""
  chosen = None
  for mesh in meshes:
    if mesh is None or mesh.size <= 1:
      continue
    if chosen is None:
      chosen = mesh
    elif set(mesh.devices.flat) != set(chosen.devices.flat):
      raise ValueError(
          f"Received incompatible devices for {what}: one input or sharding is on devices "
          f"{_device_ids(chosen.devices.flat)} and another on "
          f"{_device_ids(mesh.devices.flat)}. Put every input on the devices of one mesh.")
  return chosen


def args_mesh(args) -> Mesh | None:
  """The mesh of the spread Arrays among ``args`` (None when there are none)."""
  return common_mesh([mesh_of(buffers.buf_sharding(x._buf)) for x in args if is_spread(x)])


def in_layout(x):
  """The layout an input keeps in a program: its own when it is spread over several
  devices, else None (XLA chooses, and the value is laid out so)."""
  return buffers.buf_sharding(x._buf) if is_spread(x) else None


def _same_layout(a: Sharding, b: Sharding, ndim: int) -> bool:
  return a is b or a.tiling(ndim) == b.tiling(ndim)


def to_spread_buffer(x, sharding: Sharding, aval: ShapedArray):
  """``x``'s buffer laid out as ``sharding`` (moved through the host if it is not)."""
  if isinstance(x, Array):
    x._check_alive()
    if buffers.is_spread(x._buf):
      placed = buffers.buf_sharding(x._buf)
      if placed == sharding:
        return x._buf
      if _same_layout(placed, sharding, aval.ndim):  # its shards, under the new name
        physical = physical_aval(aval)
        return buffers.assemble(buffers.shards(x._buf), sharding, physical.shape,
                                physical.dtype)
    value = x._physical_value()
  else:
    value = np.asarray(x, dtype=physical_aval(aval).dtype)
  return buffers.put_sharded(value, sharding, aval.weak_type)


def put(x, sharding: Sharding) -> Array:
  """An Array of ``x`` (an Array or host value) laid out as ``sharding``."""
  aval = get_aval(x)
  if isinstance(sharding, NamedSharding) and isinstance(sharding.mesh, Mesh) and \
      sharding.mesh.size == 1:
    # one device: the Array is there, reporting the sharding (its Explicit axes typed)
    device = sharding.mesh.devices.flat[0]
    buf = (x if type(x) is Array else make_array(x))._buf
    if buffers.buf_device(buf) != device:
      buf, = buffers.copy_to_devices([buf], [device])
    return Array._from_buffer(buf, aval.update(sharding=sharding), sharding)
  if isinstance(sharding, NamedSharding):
    sharding.check_shape(aval.shape)
    # the Explicit axes it is split over are in its type
    return Array._from_buffer(to_spread_buffer(x, sharding, aval),
                              aval.update(sharding=sharding), True)
  return Array._from_buffer(to_spread_buffer(x, sharding, aval), aval, True)


def _text(sharding, ndim: int, logical: dict):
  return None if sharding is None else sharding.tiling(ndim).hlo_text(logical)


def _devices(mesh: Mesh) -> list:
  """The device assignment of programs over ``mesh``: partition i runs on devices[i]."""
  return sorted(mesh.devices.flat, key=lambda d: d.id)


def lower(closed: ClosedJaxpr, mesh: Mesh, in_shardings, out_shardings, name: str,
          host_callbacks: list | None = None, aliases=None) -> str:
  """The StableHLO of ``closed`` as an SPMD program over ``mesh``'s devices; parameters
  and results with a sharding carry it (constants are replicated).  The Python callables
  of its host callbacks are appended to ``host_callbacks``; ``aliases[i]`` names the
  output argument i's donated buffer holds."""
  logical = {d: i for i, d in enumerate(_devices(mesh))}
  rep = replicated(mesh)
  ins = [(rep, v.aval) for v in closed.jaxpr.constvars] + list(zip(in_shardings,
                                                                   closed.in_avals))
  rank = lambda aval: physical_aval(aval).ndim  # (a PRNG key's trailing dims: replicated)
  layout = lowering.SpmdLayout(logical, [_text(s, rank(a), logical) for s, a in ins],
                               [_text(s, rank(a), logical)
                                for s, a in zip(out_shardings, closed.out_avals)], mesh)
  return lowering.lower_module(closed.jaxpr, name, host_callbacks, aliases, layout=layout)


def _typed_layout(aval, mesh: Mesh, by_types: bool = False):
  """The layout a result's type asks for (its Explicit axes' split over ``mesh``); None
  (XLA chooses) for a type over another mesh, over a mesh with Auto axes too (as JAX: the
  program's constraints hold the Explicit splits, XLA keeps or picks the Auto ones), and
  for an unsharded type unless ``by_types``: then, over a mesh whose axes are all
  Explicit, it is replicated (``P(None, ...)``, as JAX reads it from the type)."""
  sharding = getattr(aval, "_sharding", None)
  if sharding is None:
    if by_types and mesh.are_all_axes_explicit:
      return replicated_over(mesh, len(aval.shape))
    return None
  if sharding.mesh.auto_axes:
    return None
  if mesh.abstract_mesh != sharding.mesh:  # (a type over the devices of another shape)
    if sharding.mesh.size != mesh.size or sharding.mesh.manual_axes:
      return None
    return NamedSharding(over_devices_of(mesh, sharding.mesh), sharding.spec)
  return NamedSharding(mesh, sharding.spec)


def _laid_out_by_types(in_avals, in_shardings, mesh: Mesh) -> bool:
  """Whether every input is free (None) or laid out as its type says: JAX's
  explicit-sharding regime, where results' types say their layouts. (``jit``'s
  ``in_shardings`` on untyped arguments leave it: XLA propagates their layouts.)"""
  for aval, sharding in zip(in_avals, in_shardings):
    if sharding is None:
      continue
    typed = _typed_layout(aval, mesh)
    if typed is None:
      if not sharding.is_fully_replicated:
        return False
    elif not _same_layout(typed, sharding, len(aval.shape)):
      return False
  return True


def _chosen(tiling, mesh: Mesh, ndim: int):
  """The sharding XLA chose for a result, as JAX reports it: over a mesh with Explicit
  and Auto axes, a spec of one entry per dimension."""
  sharding = sharding_from_tiling(tiling, mesh, ndim)
  if (isinstance(sharding, NamedSharding) and mesh.explicit_axes and mesh.auto_axes
      and len(sharding.spec) < ndim):
    return sharding.update(spec=[*sharding.spec, *[None] * (ndim - len(sharding.spec))])
  return sharding


class SpmdProgram:
  """A closed jaxpr compiled over a mesh's devices.  ``in_shardings``/``out_shardings``
  fix the layouts of arguments and outputs; where one is None, XLA chooses it.
  ``donated`` (one flag per argument, or None) marks arguments whose buffers outputs may
  reuse; the runtime then deletes them, as JAX's donation does."""
  __slots__ = ("executable", "in_shardings", "out_shardings", "out_avals", "const_bufs",
               "text", "name")

  def __init__(self, closed: ClosedJaxpr, mesh: Mesh, in_shardings, out_shardings,
               name: str, compiler_options: tuple = (), donated=None) -> None:
    devices = _devices(mesh)
    consts = list(closed.jaxpr.constvars)
    in_avals = [v.aval for v in consts] + list(closed.in_avals)
    ins = [replicated(mesh)] * len(consts) + list(in_shardings)
    by_types = _laid_out_by_types(closed.in_avals, in_shardings, mesh)
    outs = [s if s is not None else _typed_layout(a, mesh, by_types)
            for s, a in zip(out_shardings, closed.out_avals)]
    self.name = name
    callbacks = []
    aliases = donated and _spmd_aliases(closed, donated, in_shardings, outs)
    self.text = lower(closed, mesh, in_shardings, outs, name, callbacks, aliases)
    self.out_avals = closed.out_avals
    exe = self.executable = executables.compile_spmd(
        self.text, devices, name, in_avals, self.out_avals, [s is None for s in ins],
        [s is None for s in outs], compiler_options, callbacks)
    chosen = [s if s is not None else sharding_from_tiling(t, mesh, a.ndim)
              for s, t, a in zip(ins, exe.in_tilings, in_avals)]
    self.out_shardings = [s if s is not None else _chosen(t, mesh, a.ndim)
                          for s, t, a in zip(outs, exe.out_tilings, self.out_avals)]
    exe.set_outputs(self.out_avals, self.out_shardings)
    # results laid out as asked over Explicit axes are typed so (JAX reads the types of
    # arrays from their shardings)
    self.out_avals = [a if s is None else typed_as_laid_out(a, s)
                      for a, s in zip(self.out_avals, out_shardings)]
    self.in_shardings = chosen[len(consts):]
    self.const_bufs = [to_spread_buffer(c, replicated(mesh), v.aval)
                       for c, v in zip(closed.consts, consts)]

  def __call__(self, args: Sequence[Any]) -> list:
    avals = [get_aval(x) for x in args]
    bufs = self.const_bufs + [to_spread_buffer(x, s, a)
                              for x, s, a in zip(args, self.in_shardings, avals)]
    return run_program(self.executable, bufs, args, self.out_avals, True, self.name)


def _spmd_aliases(closed: ClosedJaxpr, donated, in_shardings, out_shardings) -> list:
  """Donations in a partitioned program, as JAX sets them up: a donated argument's block is
  written in place of a result's block of the same shape and dtype (results whose layout XLA
  chooses take none); the others, while some result's layout is XLA's choice, are offered
  to XLA (``"donor"``), else reported unusable (named by their blocks)."""
  def block(a, s):
    return ShapedArray(a.shape if s is None else s.shard_shape(a.shape), a.dtype)
  ins = [block(a, s) for a, s in zip(closed.in_avals, in_shardings)]
  outs = [None if s is None else block(a, s)
          for a, s in zip(closed.out_avals, out_shardings)]
  chosen = any(s is None for s in out_shardings)
  aliases = donation_aliases(ins, donated, outs, [str(a) for a in ins], warn=not chosen)
  return [a if a is not None or not d or not chosen else "donor"
          for a, d in zip(aliases, donated)]


_programs = WeakLRU(per_owner=8)  # closed jaxpr -> {(mesh, shardings): SpmdProgram}
clients.register_backend_cache(_programs)


def run_jaxpr(closed: ClosedJaxpr, args: Sequence[Any], mesh: Mesh, name: str = "jaxpr",
              in_shardings=None, out_shardings=None, compiler_options: tuple = (),
              donated=None) -> list:
  """Runs ``closed`` over ``mesh``'s devices (compiled once per jaxpr, layouts, XLA
  options, (name, value) pairs, and donations).  Inputs without a given sharding keep their
  own layout (XLA's choice if on one device)."""
  return program_for(closed, args, mesh, name, in_shardings, out_shardings,
                     compiler_options, donated)(args)


def program_for(closed: ClosedJaxpr, args: Sequence[Any], mesh: Mesh, name: str = "jaxpr",
                in_shardings=None, out_shardings=None,
                compiler_options: tuple = (), donated=None) -> SpmdProgram:
  """The SpmdProgram ``run_jaxpr`` runs ``closed`` with on ``args`` (compiled once per
  jaxpr, layouts and XLA options; also what a jit's ``.lower(...).compile()`` holds)."""
  if in_shardings is None:
    in_shardings = [None] * len(args)
  ins = tuple(s if s is not None else in_layout(x) for x, s in zip(args, in_shardings))
  outs = tuple(out_shardings) if out_shardings is not None else (None,) * len(
      closed.out_avals)
  key = (mesh, ins, outs, compiler_options, donated)
  program = _programs.get(closed, key)
  if program is None:
    program = SpmdProgram(closed, mesh, ins, outs, name, compiler_options, donated)
    _programs.put(closed, key, program)
  return program


_primitive_programs: dict = {}
clients.register_backend_cache(_primitive_programs)


def apply_primitive(prim, args: Sequence[Any], params: dict, mesh: Mesh | None = None,
                    out_shardings: tuple | None = None):
  """Evaluates one primitive now over the devices of its spread inputs (or ``mesh``); its
  results laid out as ``out_shardings`` say (None: as XLA chooses)."""
  mesh = common_mesh([mesh, args_mesh(args)], prim.name)
  avals = tuple(get_aval(x) for x in args)
  ins = tuple(in_layout(x) for x in args)
  key = (prim, avals, params_key(params), mesh, ins, out_shardings, config._trace_token)
  program = _primitive_programs.get(key)
  if program is None:
    out = eval_types(prim, avals, params)
    out_avals = list(out) if prim.multiple_results else [out]
    invars = [Var(a) for a in avals]
    outvars = [Var(a) for a in out_avals]
    jaxpr = Jaxpr((), invars, outvars, [JaxprEqn(prim, invars, outvars, params)])
    program = SpmdProgram(ClosedJaxpr(jaxpr, ()), mesh, ins,
                          out_shardings or (None,) * len(out_avals), prim.name)
    bounded_put(_primitive_programs, key, program, 1024)
  results = program(args)
  return results if prim.multiple_results else results[0]


def jaxpr_meshes(jaxpr: Jaxpr) -> list:
  """The meshes that equations of ``jaxpr`` (and of its sub-jaxprs) name."""
  found = []
  for eqn in jaxpr.eqns:
    for p in eqn.params.values():
      if isinstance(p, Mesh):
        found.append(p)
      elif isinstance(p, NamedSharding) and isinstance(p.mesh, Mesh):
        found.append(p.mesh)
      for sub in (p if isinstance(p, (tuple, list)) else (p,)):
        sub = sub.jaxpr if isinstance(sub, ClosedJaxpr) else sub
        if isinstance(sub, Jaxpr):
          found.extend(jaxpr_meshes(sub))
  return found


@cached_on_jaxpr()
def _named_mesh(closed: ClosedJaxpr) -> tuple:
  return (common_mesh(jaxpr_meshes(closed.jaxpr)),)


def call_mesh(closed: ClosedJaxpr, args) -> Mesh | None:
  """The mesh a call of ``closed`` runs over: that of its spread inputs or of the meshes
  its equations name, else ``set_mesh``'s for uncommitted inputs (None: one device)."""
  mesh = common_mesh([args_mesh(args), _named_mesh(closed)[0]])
  if mesh is None:
    return placing_mesh(args)
  context = typed_context_mesh()
  if context is not None and context.axis_types != mesh.axis_types and (
      retyped(context, mesh.axis_types) == mesh):  # (typed otherwise inside the function)
    return context
  return mesh


def placing_mesh(args) -> Mesh | None:
  """``set_mesh``'s mesh (of several devices) when no input is committed to a device: JAX
  runs the computation over it, its results replicated."""
  mesh = placement_mesh() if PLACING[0] else None
  if mesh is None or mesh.size == 1 or any(type(x) is Array and x._committed for x in args):
    return None  # (over one device, ``dispatch.pick_device`` places the results)
  return mesh
