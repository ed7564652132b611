"""Partial evaluation, staging and dead-code elimination (``jax.interpreters.partial_eval``).

``dce_rules[p]`` is ``p``'s DCE rule in JAX's signature, ``rule(used_outputs, eqn) ->
(used_inputs, new_eqn or None)``; ``custom_partial_eval_rules[p]`` and
``partial_eval_jaxpr_custom_rules[p]`` are ``p``'s partial-evaluation rule in JAX's two
signatures (see ``xjax/_src/extend/partial_eval_rules.py``).  All three are views onto the
primitive's own rule slots.
"""
from typing import Any as _Any, Sequence as _Sequence

from xjax._src.extend import partial_eval_rules as _pe_rules
from xjax._src.core.avals import ShapedArray as _ShapedArray
from xjax._src.core.trace import current_trace as _current_trace, new_trace as _new_trace
from xjax._src.core.values import get_aval as _get_aval
from xjax._src.extend import dce_rules as _dce
from xjax._src.interpreters.ad import PartialEvalTrace as _PartialEvalTrace
from xjax._src.extend.dce_rules import (dce_jaxpr, dce_jaxpr_call_rule,  # noqa: F401
                                        dce_jaxpr_closed_call_rule, dce_jaxpr_consts)
from xjax._src.extend.rule_registries import RuleRegistry as _RuleRegistry
from xjax._src.interpreters.staging import DynamicJaxprTracer  # noqa: F401
from xjax._src.interpreters.staging import trace_to_jaxpr as _trace_to_jaxpr

Val = _Any
dce_rules = _RuleRegistry("partial_eval.dce_rules", "dce", _dce.dce_rule_to_slot,
                          _dce.dce_slot_to_rule)
custom_partial_eval_rules = _RuleRegistry("partial_eval.custom_partial_eval_rules",
                                          "partial_eval", _pe_rules.trace_rule_to_slot,
                                          _pe_rules.trace_slot_to_rule)
partial_eval_jaxpr_custom_rules = _RuleRegistry("partial_eval.partial_eval_jaxpr_custom_rules",
                                                "partial_eval", _pe_rules.eqn_rule_to_slot,
                                                _pe_rules.eqn_slot_to_rule)

JaxprTracer = DynamicJaxprTracer   # partial evaluation's unknowns are staging tracers


def trace_to_jaxpr_dynamic(fun, in_avals: _Sequence[_ShapedArray], **_):
  """Stages ``fun`` (a ``linear_util.WrappedFun`` or a callable returning a sequence) at
  ``in_avals``; returns (jaxpr, out_avals, consts) as JAX does."""
  call = getattr(fun, "call_wrapped", fun)
  closed = _trace_to_jaxpr(lambda *xs: list(call(*xs)), list(in_avals))
  return closed.jaxpr, list(closed.out_avals), list(closed.consts)


class PartialVal(tuple):
  """A known value ``(None, const)`` or an unknown one ``(aval, None)``."""

  def __new__(cls, xs: tuple[_Any, _Any]):
    return tuple.__new__(cls, xs)

  @classmethod
  def known(cls, const) -> "PartialVal":
    return PartialVal((None, const))

  @classmethod
  def unknown(cls, aval) -> "PartialVal":
    return PartialVal((aval, None))

  def is_known(self) -> bool:
    return self[0] is None

  def get_known(self):
    return self[1] if self[0] is None else None

  def get_aval(self):
    return self[0] if self[0] is not None else _get_aval(self[1])


def trace_to_jaxpr_nounits(fun, pvals: _Sequence[PartialVal],
                           instantiate: bool | _Sequence[bool] = False):
  """Runs ``fun`` on partially known inputs: what depends only on known ones is computed,
  the rest staged.  Returns (jaxpr of the unknown part, whose constvars take ``consts``;
  a PartialVal per output; consts), as JAX does."""
  call = getattr(fun, "call_wrapped", fun)
  trace = _PartialEvalTrace(parent=_current_trace())
  with _new_trace(trace):
    args = [pv[1] if pv.is_known() else trace.new_arg(pv[0]) for pv in map(PartialVal, pvals)]
    outs = list(call(*args))
    inst = [instantiate] * len(outs) if isinstance(instantiate, bool) else list(instantiate)
    unknown = [trace.is_unknown(o) or i for o, i in zip(outs, inst)]
    out_pvals = [PartialVal.unknown(_get_aval(o)) if u else PartialVal.known(o)
                 for o, u in zip(outs, unknown)]
    closed = trace.to_closed_jaxpr([o for o, u in zip(outs, unknown) if u])
  return closed.jaxpr, out_pvals, list(closed.consts)
