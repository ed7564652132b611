"""JAX's partial-evaluation rule tables (``jax.interpreters.partial_eval``'s
``custom_partial_eval_rules`` and ``partial_eval_jaxpr_custom_rules``) as views onto
xjax's one partial-evaluation slot per primitive, ``partial_eval(trace, args, params)``:
run when some operands are unknown, it computes what it can on the known ones and stages
the rest (``trace.stage``), returning the outputs.

- ``custom_partial_eval_rules[p]``: ``rule(trace, *args, **params)``, the same rule with
  the operands spread (the trace is xjax's, not JAX's ``JaxprTrace``).
- ``partial_eval_jaxpr_custom_rules[p]``: JAX's equation-level rule
  ``rule(saveable, unks_in, inst_in, eqn) -> (eqn_known, eqn_staged, unks_out, inst_out,
  residual_vars)``; written into the table, it runs with every input available to the
  staged equation and every value saveable; read from it for xjax's own primitives, it
  splits the equation with xjax's rule into ``jit`` equations.
"""
from __future__ import annotations

from typing import Callable

from xjax._src.core.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var, literal_value
from xjax._src.core.trace import eval_types
from xjax._src.core.values import get_aval
from xjax._src.interpreters import ad
from xjax._src.api.jit_primitives import jit_p


def trace_rule_to_slot(prim, rule: Callable) -> Callable:
  def partial_eval(trace, args, params):
    return rule(trace, *args, **params)
  return partial_eval


def trace_slot_to_rule(prim, slot: Callable) -> Callable:
  def rule(trace, *args, **params):
    return slot(trace, list(args), params)
  return rule


def _save_all(*_, **__) -> bool:
  return True


def eqn_rule_to_slot(prim, rule: Callable) -> Callable:
  def partial_eval(trace, args, params):
    invars = [Var(get_aval(x)) for x in args]
    out = eval_types(prim, [v.aval for v in invars], params)
    outvars = [Var(a) for a in (out if prim.multiple_results else [out])]
    effects = frozenset(prim.effects(**params)) if prim.effects is not None else frozenset()
    eqn = JaxprEqn(prim, invars, outvars, params, effects)
    unknowns = [trace.is_unknown(x) for x in args]
    eqn_known, eqn_staged, *_ = rule(_save_all, unknowns, [True] * len(args), eqn)
    env = dict(zip(invars, args))
    read = lambda a: literal_value(a) if type(a) is Literal else env[a]  # noqa: E731
    for part, run in ((eqn_known, lambda e, ins: e.primitive.bind(*ins, **e.params)),
                      (eqn_staged, lambda e, ins: trace.stage(e.primitive, ins, e.params))):
      if part is not None:
        outs = run(part, [read(a) for a in part.invars])
        env.update(zip(part.outvars, outs if part.primitive.multiple_results else [outs]))
    missing = [i for i, v in enumerate(outvars) if v not in env]
    if missing:
      raise ValueError(f"the partial_eval_jaxpr_custom rule of '{prim}' computed neither "
                       f"a known nor a staged value for its outputs {missing}")
    outs = [env[v] for v in outvars]
    return outs if prim.multiple_results else outs[0]
  return partial_eval


def eqn_slot_to_rule(prim, slot: Callable) -> Callable:
  def rule(saveable, unks_in, inst_in, eqn):
    n_out = len(eqn.outvars)
    if not any(unks_in):
      return eqn, None, [False] * n_out, [False] * n_out, []
    vars_in = [v for v in eqn.invars if type(v) is not Literal]
    unknown_vars = {v for v, u in zip(eqn.invars, unks_in) if u and type(v) is not Literal}
    closed = ClosedJaxpr(Jaxpr((), vars_in, eqn.outvars, [eqn], eqn.effects), ())
    known, staged, out_unknowns, num_res = ad.partial_eval_jaxpr(
        closed, [v in unknown_vars for v in vars_in])
    residuals = [Var(a) for a in known.out_avals[len(known.out_avals) - num_res:]]
    known_outs = [v for v, u in zip(eqn.outvars, out_unknowns) if not u]
    eqn_known = JaxprEqn(jit_p, [v for v in vars_in if v not in unknown_vars],
                         known_outs + residuals, dict(jaxpr=known, name=prim.name),
                         known.effects)
    eqn_staged = JaxprEqn(jit_p, residuals + [v for v in vars_in if v in unknown_vars],
                          [v for v, u in zip(eqn.outvars, out_unknowns) if u],
                          dict(jaxpr=staged, name=prim.name), staged.effects)
    return eqn_known, eqn_staged, list(out_unknowns), [True] * n_out, residuals
  return rule
