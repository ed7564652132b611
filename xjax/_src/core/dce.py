"""Dead-code elimination on jaxprs: equations whose outputs nothing uses are dropped."""
from __future__ import annotations

from xjax._src.core.jaxpr import ClosedJaxpr, Jaxpr, Literal


def dce_open_jaxpr(jaxpr: Jaxpr, used_outputs) -> tuple[Jaxpr, list[bool]]:
  """Drops equations without effects whose outputs nothing uses (a primitive's ``dce``
  rule, asked when only some of its outputs are used, may give a smaller equation, or None
  to drop it); returns the jaxpr with the used outputs (and all its inputs) and which
  inputs it still reads."""
  live = {v for v, u in zip(jaxpr.outvars, used_outputs) if u and type(v) is not Literal}
  kept = []
  for eqn in reversed(jaxpr.eqns):
    used = [v in live for v in eqn.outvars]
    if not eqn.effects and not any(used):
      continue
    if eqn.primitive.dce is not None and not all(used):
      eqn = eqn.primitive.dce(used, eqn)
      if eqn is None:
        continue
    live.update(a for a in eqn.invars if type(a) is not Literal)
    kept.append(eqn)
  kept.reverse()
  outvars = [v for v, u in zip(jaxpr.outvars, used_outputs) if u]
  new = Jaxpr(jaxpr.constvars, jaxpr.invars, outvars, kept,
              frozenset().union(*(e.effects for e in kept)), jaxpr.debug_info)
  return new, [v in live for v in jaxpr.invars]


def dce_jaxpr(closed: ClosedJaxpr, used_outputs) -> tuple[ClosedJaxpr, list[bool]]:
  """``dce_open_jaxpr`` of a closed jaxpr (its constants kept)."""
  jaxpr, used_inputs = dce_open_jaxpr(closed.jaxpr, used_outputs)
  return ClosedJaxpr(jaxpr, closed.consts), used_inputs
