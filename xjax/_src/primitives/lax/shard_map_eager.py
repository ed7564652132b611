"""shard_map called eagerly, as JAX runs it: the body runs one operation at a time, each a
small compiled shard_map over the mesh, so that it can print each device's values
(``print(x)`` lists the blocks) and branch on values that vary over no mesh axis.

A value of the body is one array stacking its distinct blocks along a new leading
dimension, split over the manual axes the value varies over (its type's ``vma``, in mesh
order); it has size 1 where the value varies over none.  Arguments enter stacked by a
shard_map that adds the leading dimension (``_add_singleton``), and results leave by one
that removes it (``_rem_singleton``: JAX's check of the ``out_specs`` names it)."""
from __future__ import annotations

import functools

import numpy as np

from xjax._src.core.avals import ShapedArray
from xjax._src.core.trace import Tracer, Trace, eval_trace, new_trace, set_current_trace
from xjax._src.core.values import get_aval
from xjax._src.foundations.sharding import PartitionSpec
from xjax._src.primitives.lax import parallel, shapes


def _stacked_spec(mesh, vma) -> PartitionSpec:
  """The spec of a stacked value varying over the axes ``vma``: its leading dimension split
  over them, in mesh order."""
  axes = tuple(a for a in mesh.axis_names if a in vma)
  return PartitionSpec(axes if len(axes) > 1 else axes[0]) if axes else PartitionSpec()


def _add_singleton(x):
  return shapes.reshape(x, (1, *get_aval(x).shape))


def _rem_singleton(x):
  return shapes.reshape(x, get_aval(x).shape[1:])


class ShardMapTracer(Tracer):
  """A value of an eager shard_map body: ``val`` stacks its blocks (see the module)."""
  __slots__ = ("val", "vma")

  def __init__(self, trace: "ShardMapTrace", val, vma: frozenset) -> None:
    self._trace = trace
    self.val = val
    self.vma = vma

  @property
  def aval(self) -> ShapedArray:
    a = get_aval(self.val)
    block = ShapedArray(a.shape[1:], a.dtype, a.weak_type)
    return block.update(vma=self.vma) if self._trace.check else block

  def to_concrete_value(self):
    """A value that varies over no axis is known (every device holds it)."""
    if not self._trace.check or self.vma:
      return None
    with set_current_trace(eval_trace):
      return np.asarray(self.val)[0]

  def __str__(self) -> str:
    trace = self._trace
    missing = tuple(a for a in trace.mesh.axis_names if a not in self.vma)
    with set_current_trace(trace):
      full = parallel.pvary(self, missing) if missing else self
    with set_current_trace(eval_trace):
      blocks = list(np.asarray(full.val))
    names = f"({', '.join(map(str, trace.mesh.axis_names))},)"
    return "\n".join(f"On {device} at mesh coordinates {names} = {idx}:\n{block}\n"
                     for (idx, device), block in zip(np.ndenumerate(trace.mesh.devices),
                                                     blocks))

  __repr__ = __str__  # (for debuggers, as JAX)


class ShardMapTrace(Trace):
  """Runs each primitive of an eager body over the mesh (see the module).  ``bound()`` makes
  the context the body's code runs in (its manual axes bound as names for collectives); it
  is left while an operation's own shard_map is traced."""
  __slots__ = ("mesh", "manual_axes", "check", "bound", "compiled", "_region")

  def __init__(self, parent: Trace, mesh, manual_axes: tuple, check: bool, bound,
               compiled) -> None:
    super().__init__(parent)
    self.mesh, self.manual_axes, self.check, self.bound = mesh, manual_axes, check, bound
    self.compiled = compiled  # (shard_map.compiled_shard_map)
    self._region = None

  def __enter__(self):
    self._region = self.bound()
    self._region.__enter__()

  def __exit__(self, *exc):
    self._region.__exit__(*exc)
    self._region = None

  def __repr__(self) -> str:
    return "ShardMapTrace"

  def process_primitive(self, prim, args, params):
    stacked = tuple(isinstance(x, ShardMapTracer) and x._trace is self for x in args)
    vals = [x.val if s else x for x, s in zip(args, stacked)]
    if prim.name in _PER_BLOCK:  # (JAX's eager rule: once per distinct block, in order)
      with set_current_trace(eval_trace):
        rows = [list(v) if s else None for v, s in zip(vals, stacked)]
        for k in range(min((len(r) for r in rows if r is not None), default=1)):
          prim.bind(*[v if r is None else r[k] for v, r in zip(vals, rows)], **params)
      return []
    vmas = tuple(x.vma if s else None for x, s in zip(args, stacked))
    avals = tuple(get_aval(v) for v in vals)
    try:
      key = (prim, tuple(sorted(params.items())), avals, vmas, self.mesh, self.manual_axes,
             self.check, self.compiled)
      hash(key)
    except TypeError:  # (parameters that do not hash: built for this call alone)
      key = None
    run, out_vmas = _applier(key) if key is not None else _build(
        prim, params, vmas, self.mesh, self.manual_axes, self.check, self.compiled)
    self.__exit__(None, None, None)
    try:
      with set_current_trace(self.parent):
        outs = run(*vals)
    finally:
      self.__enter__()
    outs = [ShardMapTracer(self, o, v) for o, v in zip(outs, out_vmas[-1])]
    return outs if prim.multiple_results else outs[0]


# Primitives without results that run on each distinct block at the top level (printing)
_PER_BLOCK = frozenset({"debug_callback", "debug_print"})


@functools.lru_cache(maxsize=512)
def _applier(key):
  prim, params, _, vmas, mesh, manual_axes, check, compiled = key
  return _build(prim, dict(params), vmas, mesh, manual_axes, check, compiled)


def _build(prim, params, vmas, mesh, manual_axes, check, compiled):
  """A compiled shard_map applying ``prim`` to blocks (stacked operands where ``vmas`` names
  their axes, the others replicated); the list it returns receives, when traced, the axes
  its results vary over."""
  out_vmas: list = []

  def apply(*xs):
    blocks = [_rem_singleton(x) if v is not None else x for x, v in zip(xs, vmas)]
    outs = prim.bind(*blocks, **params)
    outs = list(outs) if prim.multiple_results else [outs]
    out_vmas.append([get_aval(o)._vma if check else frozenset(manual_axes) for o in outs])
    return [_add_singleton(o) for o in outs]

  in_specs = tuple(PartitionSpec() if v is None else _stacked_spec(mesh, v) for v in vmas)
  mapped = compiled(apply, mesh=mesh, in_specs=in_specs, check_vma=check,
                    axis_names=frozenset(manual_axes),
                    out_specs=lambda: [_stacked_spec(mesh, v) for v in out_vmas[-1]])
  return mapped, out_vmas


def run_eagerly(f, leaves, in_specs, out_specs_of, mesh, manual_axes, check, varies_over,
                bound, compiled):
  """``f`` (of the argument leaves) run eagerly over ``mesh``: each leaf enters stacked as
  its spec says, each result leaves laid out as ``out_specs_of(results)`` says; ``bound``
  makes the context the body's code runs in, ``compiled`` is shard_map never run eagerly."""
  every = frozenset(manual_axes)
  trace = ShardMapTrace(eval_trace, mesh, tuple(manual_axes), check, bound, compiled)
  blocks = []
  for x, spec in zip(leaves, in_specs):
    vma = varies_over(spec) if check else every
    val = compiled(_add_singleton, mesh=mesh, in_specs=(spec,), check_vma=check,
                   out_specs=_stacked_spec(mesh, vma), axis_names=every)(x)
    blocks.append(ShardMapTracer(trace, val, vma))
  with new_trace(trace), trace:
    outs = f(*blocks)
    specs = out_specs_of(outs)
  lifted = [o if isinstance(o, ShardMapTracer) and o._trace is trace
            else _held_everywhere(trace, o) for o in outs]
  results = []
  for o, spec in zip(lifted, specs):
    results.append(compiled(_rem_singleton, mesh=mesh, in_specs=_stacked_spec(mesh, o.vma),
                            out_specs=spec, check_vma=check, axis_names=every)(o.val))
  return results


def _held_everywhere(trace: ShardMapTrace, x) -> ShardMapTracer:
  """A value the body did not compute (every device holds it), stacked."""
  vma = frozenset() if trace.check else frozenset(trace.manual_axes)
  size = int(np.prod([trace.mesh.shape[a] for a in vma]))
  val = _add_singleton(x)
  if size > 1:
    val = shapes.broadcast_in_dim(val, (size, *get_aval(x).shape),
                                  tuple(range(get_aval(val).ndim)))
  return ShardMapTracer(trace, val, vma)
