"""``optimization_barrier``: the identity on a pytree, which XLA may not move computation
across (used to keep recomputation where checkpointing put it)."""
from __future__ import annotations

from xjax._src.core.avals import tangent_aval
from xjax._src.core.values import get_aval
from xjax._src.interpreters.ad import Zero
from xjax._src.primitives.lax.primitive_builders import standard_primitive


def _barrier_lowering(ctx, *xs):
  return ctx.op("stablehlo.optimization_barrier", list(xs), list(ctx.avals_out))


def _barrier_jvp(primals, tangents):
  nz = [i for i, t in enumerate(tangents) if type(t) is not Zero]
  tans = [Zero(tangent_aval(get_aval(p))) for p in primals]
  if nz:
    for i, t in zip(nz, optimization_barrier_p.bind(*[tangents[i] for i in nz])):
      tans[i] = t
  return optimization_barrier_p.bind(*primals), tans


def _barrier_transpose(cts, *xs):
  nz = [i for i, c in enumerate(cts) if type(c) is not Zero]
  outs = list(cts)
  if nz:
    for i, c in zip(nz, optimization_barrier_p.bind(*[cts[i] for i in nz])):
      outs[i] = c
  return outs


optimization_barrier_p = standard_primitive(
    "optimization_barrier", lambda *avals: list(avals), _barrier_lowering,
    multiple_results=True)
optimization_barrier_p.jvp = _barrier_jvp
optimization_barrier_p.transpose = _barrier_transpose
optimization_barrier_p.batch = lambda axis, args, dims: (
    optimization_barrier_p.bind(*args), list(dims))


def optimization_barrier(operand, /):
  """The identity on a pytree, which XLA may not move computation across."""
  from xjax._src.foundations import tree_util
  leaves, tree = tree_util.tree_flatten(operand)
  outs = optimization_barrier_p.bind(*leaves) if leaves else []
  return tree_util.tree_unflatten(tree, list(outs))
