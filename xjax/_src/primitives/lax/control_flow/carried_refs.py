"""Mutable refs in control-flow bodies: a body may create refs of its own and use refs from
outside (its consts); control flow then carries the outside refs' values and writes them
back after."""
from __future__ import annotations

from typing import Sequence

from xjax._src.core.jaxpr import ClosedJaxpr
from xjax._src.core.values import get_aval
from xjax._src.interpreters.higher_order import cached_trace, trace_hoisted
from xjax._src.primitives.lax.control_flow.body_tracing import call
from xjax._src.primitives.state.discharge import discharge_inputs, has_state
from xjax._src.primitives.state.primitives import addupdate_p, swap_p
from xjax._src.primitives.state.types import AbstractRef


def refs_among(*const_lists) -> list:
  """The refs among bodies' consts (each once, in order of appearance)."""
  refs, seen = [], set()
  for consts in const_lists:
    for c in consts:
      if type(get_aval(c)) is AbstractRef and id(c) not in seen:
        seen.add(id(c))
        refs.append(c)
  return refs


def carrying_refs(jaxpr: ClosedJaxpr, consts: Sequence, refs: Sequence, what: str,
                  returns_refs: bool = True) -> tuple[ClosedJaxpr, list]:
  """``jaxpr`` (its ``consts`` first) as a body on values, with its consts: it takes its
  consts that are not refs, then the values of ``refs``, then its other inputs, and returns
  the refs' final values (when ``returns_refs``) before its own outputs."""
  if not has_state(jaxpr):
    if not refs:
      return jaxpr, list(consts)
  elif not returns_refs and any(e.primitive in (swap_p, addupdate_p) for e in jaxpr.eqns):
    raise NotImplementedError(f"{what} writes a mutable array reference; xjax does not "
                              "support writes there (write in the loop body instead).")
  n = len(consts)
  is_ref = [type(a) is AbstractRef for a in jaxpr.in_avals[:n]]
  slot = {id(r): j for j, r in enumerate(refs)}
  mine = tuple(slot[id(c)] for c, r in zip(consts, is_ref) if r)
  ref_avals = tuple(get_aval(r).inner_aval for r in refs)
  lifted, new_consts = cached_trace(
      jaxpr, ("carrying_refs", tuple(is_ref), mine, ref_avals, returns_refs),
      lambda: _carrying_refs(jaxpr, is_ref, mine, ref_avals, what, returns_refs))
  return lifted, new_consts + [c for c, r in zip(consts, is_ref) if not r]


def _carrying_refs(jaxpr: ClosedJaxpr, is_ref, mine, ref_avals, what: str,
                   returns_refs: bool):
  on_values = discharge_inputs(jaxpr, what)   # its outputs, then its refs' final values
  n, n_own, n_others = len(is_ref), len(jaxpr.out_avals), is_ref.count(False)
  avals = ([a for a, r in zip(jaxpr.in_avals, is_ref) if not r]
           + list(ref_avals) + list(jaxpr.in_avals[n:]))

  def body(*args):
    other_vals = iter(args[:n_others])
    values = list(args[n_others:n_others + len(ref_avals)])
    mine_vals = iter(values[j] for j in mine)
    ins = [next(mine_vals) if r else next(other_vals) for r in is_ref]
    outs = call(on_values, *ins, *args[n_others + len(ref_avals):])
    for j, x in zip(mine, outs[n_own:]):
      values[j] = x
    return (values if returns_refs else []) + outs[:n_own]

  return trace_hoisted(body, avals, jaxpr.jaxpr.debug_info)
