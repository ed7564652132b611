"""JAX's dead-code elimination API (``jax.interpreters.partial_eval.dce_jaxpr`` and its
rules) over xjax's own pass (``core/dce.py``).

JAX's rules take ``(used_outputs, eqn)`` and return ``(used_inputs, new_eqn or None)``;
xjax's ``Primitive.dce`` slot takes the same and returns the new equation (or None), the
inputs it still reads being those of the new equation.  The adapters below convert
between the two, so ``partial_eval.dce_rules`` is a view onto the slots.
"""
from __future__ import annotations

from typing import Callable, Sequence

from xjax._src.core.dce import dce_open_jaxpr
from xjax._src.core.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Literal
from xjax._src.interpreters.higher_order import hoisted_jaxpr


def _flags(flags: bool | Sequence[bool], n: int) -> list[bool]:
  return [flags] * n if isinstance(flags, bool) else list(flags)


def dce_jaxpr(jaxpr: Jaxpr, used_outputs: bool | Sequence[bool],
              instantiate: bool | Sequence[bool] = False) -> tuple[Jaxpr, list[bool]]:
  """``jaxpr`` with only the ``used_outputs``, the equations they need and the inputs
  those read (and the inputs flagged in ``instantiate``); returns (jaxpr, used_inputs)."""
  used_outputs = _flags(used_outputs, len(jaxpr.outvars))
  instantiate = _flags(instantiate, len(jaxpr.invars))
  new, used_inputs = dce_open_jaxpr(jaxpr, used_outputs)
  used_inputs = [u or i for u, i in zip(used_inputs, instantiate)]
  invars = [v for v, u in zip(new.invars, used_inputs) if u]
  return Jaxpr(new.constvars, invars, new.outvars, new.eqns, new.effects,
               new.debug_info), used_inputs


def dce_jaxpr_consts(jaxpr: Jaxpr, used_outputs: Sequence[bool],
                     instantiate: bool | Sequence[bool] = False
                     ) -> tuple[Jaxpr, list[bool], list[bool]]:
  """``dce_jaxpr`` that drops unused constvars too: (jaxpr, used_consts, used_inputs)."""
  n = len(jaxpr.constvars)
  new, used = dce_jaxpr(hoisted_jaxpr(jaxpr), used_outputs,
                        [False] * n + _flags(instantiate, len(jaxpr.invars)))
  used_consts, used_inputs = used[:n], used[n:]
  k = sum(used_consts)
  return (Jaxpr(new.invars[:k], new.invars[k:], new.outvars, new.eqns, new.effects,
                new.debug_info), used_consts, used_inputs)


def _call_rule(used_outputs: Sequence[bool], eqn: JaxprEqn, closed: bool):
  if not any(used_outputs) and not eqn.effects:
    return [False] * len(eqn.invars), None
  callee = eqn.params["call_jaxpr"]
  new, used_inputs = dce_jaxpr(callee.jaxpr if closed else callee, used_outputs)
  if not closed and not any(used_inputs) and not any(used_outputs) and not new.effects:
    return used_inputs, None
  return used_inputs, eqn.replace(
      invars=[v for v, u in zip(eqn.invars, used_inputs) if u],
      outvars=[v for v, u in zip(eqn.outvars, used_outputs) if u],
      params=dict(eqn.params, call_jaxpr=ClosedJaxpr(new, callee.consts) if closed else new),
      effects=new.effects)


def dce_jaxpr_call_rule(used_outputs: Sequence[bool], eqn: JaxprEqn):
  """The DCE rule of a call primitive whose ``call_jaxpr`` is a Jaxpr: the callee keeps
  the used outputs, the equation the inputs they read."""
  return _call_rule(used_outputs, eqn, closed=False)


def dce_jaxpr_closed_call_rule(used_outputs: Sequence[bool], eqn: JaxprEqn):
  """``dce_jaxpr_call_rule`` for a ``call_jaxpr`` that is a ClosedJaxpr."""
  return _call_rule(used_outputs, eqn, closed=True)


# -- the ``partial_eval.dce_rules`` view -----------------------------------------------

def dce_rule_to_slot(prim, rule: Callable) -> Callable:
  def dce(used_outputs, eqn):
    return rule(list(used_outputs), eqn)[1]
  return dce


def dce_slot_to_rule(prim, slot: Callable) -> Callable:
  def rule(used_outputs, eqn):
    if not any(used_outputs) and not eqn.effects:
      return [False] * len(eqn.invars), None
    new = eqn if all(used_outputs) else slot(list(used_outputs), eqn)
    if new is None:
      return [False] * len(eqn.invars), None
    live = {v for v in new.invars if type(v) is not Literal}
    return [type(v) is Literal or v in live for v in eqn.invars], new
  return rule
