"""Type checking of jaxprs (``jax.extend.core.check_jaxpr``): every variable is bound once
before it is read, literals hold values of their type, each equation's binders have the
types its primitive's shape rule gives for its operands, its effects are the rule's and
its jaxpr's, and the jaxprs among its parameters check too."""
from __future__ import annotations

import numpy as np

from xjax._src.core.avals import ShapedArray
from xjax._src.core.jaxpr import (ClosedJaxpr, DropVar, Jaxpr, JaxprPpContext, Literal,
                                  jaxprs_in_params, pp_eqn, pp_jaxpr)
from xjax._src.core.trace import eval_types
from xjax._src.core.values import get_aval
from xjax._src.foundations.errors import JaxprTypeError

_CONTEXT = 10   # equations shown on each side of the failing one


def typematch(t1, t2) -> bool:
  """Whether two abstract values are the same type, weak types aside."""
  if isinstance(t1, ShapedArray) and isinstance(t2, ShapedArray):
    return t1.shape == t2.shape and t1.dtype == t2.dtype
  inner1, inner2 = getattr(t1, "inner_aval", None), getattr(t2, "inner_aval", None)
  if inner1 is not None and inner2 is not None and type(t1) is type(t2):
    return typematch(inner1, inner2)
  return t1 == t2


def _literal_type(val):
  if isinstance(val, (bool, int, float, complex)):
    return get_aval(val)
  arr = np.asarray(val)
  return ShapedArray(arr.shape, arr.dtype)


def equation_type(prim, in_avals, params) -> tuple[list, frozenset]:
  """What ``prim``'s rules give for operands of ``in_avals``: (output avals, effects)."""
  if prim.effectful_abstract_eval is not None:
    out, effects = prim.effectful_abstract_eval(*in_avals, **params)
  else:
    out = eval_types(prim, in_avals, params)
    effects = frozenset(prim.effects(**params)) if prim.effects is not None else frozenset()
  return (list(out) if prim.multiple_results else [out]), frozenset(effects)


def _check_call_operands(prim, in_avals, params) -> None:
  """A call primitive's operands must fit the jaxpr it calls."""
  if "call_jaxpr" not in params:
    raise JaxprTypeError(f"Call primitive {prim} missing 'call_jaxpr' parameter")
  callee = params["call_jaxpr"]
  callee = callee.jaxpr if isinstance(callee, ClosedJaxpr) else callee
  if len(in_avals) != len(callee.invars):
    raise JaxprTypeError(f"Call primitive {prim} with {len(in_avals)} operands cannot call "
                         f"jaxpr with {len(callee.invars)} inputs")
  for v, a in zip(callee.invars, in_avals):
    if not typematch(v.aval, a):
      raise JaxprTypeError(f"Call primitive {prim} passes an operand of type "
                           f"{a.str_short(short_dtypes=True)} to jaxpr expecting type {v.aval.str_short(short_dtypes=True)}")


class _Checker:
  def __init__(self, jaxpr: Jaxpr, names: JaxprPpContext) -> None:
    self.jaxpr = jaxpr
    self.names = names
    self.bound: set = set()
    # binders nothing reads print as ``_``, in messages as in the printed jaxpr
    self.used = {v for e in jaxpr.eqns for v in e.invars if type(v) is not Literal}
    self.used.update(v for v in jaxpr.outvars if type(v) is not Literal)

  def name(self, var) -> str:
    return self.names(var) if var in self.used or var in self.bound else "_"

  def read(self, atom):
    if type(atom) is Literal:
      try:
        ok = typematch(atom.aval, _literal_type(atom.val))
      except (TypeError, OverflowError):
        ok = False
      if not ok:
        raise JaxprTypeError(f"Literal value {atom.val} does not match its type annotation "
                             f"{atom.aval.str_short(short_dtypes=True)}")
      return atom.aval
    if atom not in self.bound:
      raise JaxprTypeError(f"Variable '{self.names(atom)}' not defined")
    return atom.aval

  def write(self, var, aval) -> None:
    if var in self.bound:
      raise JaxprTypeError(f"Variable '{self.name(var)}' already bound")
    if not typematch(var.aval, aval):
      raise JaxprTypeError(f"Value for variable '{self.name(var)}' inconsistently typed as "
                           f"{aval.str_short(short_dtypes=True)} for let-binder of type "
                           f"{var.aval.str_short(short_dtypes=True)}")
    if not isinstance(var, DropVar):
      self.bound.add(var)

  def equation(self, eqn) -> None:
    prim = eqn.primitive
    in_avals = [self.read(x) for x in eqn.invars]
    for sub in jaxprs_in_params(eqn.params):
      check_jaxpr(sub)
    if prim.call_primitive:
      _check_call_operands(prim, in_avals, eqn.params)
    out_avals, effects = equation_type(prim, in_avals, eqn.params)
    if frozenset(eqn.effects) != effects:
      raise JaxprTypeError(f"Inferred effects do not match equation effects. Equation "
                           f"effects: {set(eqn.effects)}. Inferred effects: {set(effects)}")
    missing = [e for e in effects if e not in self.jaxpr.effects]
    if missing:
      raise JaxprTypeError(f"Equation effect not present in jaxpr effects. Equation effect: "
                           f"{missing[0]}. Jaxpr effects: {set(self.jaxpr.effects)}")
    if len(out_avals) != len(eqn.outvars):
      raise JaxprTypeError(f"{prim} gives {len(out_avals)} results for operands of types "
                           f"{', '.join(a.str_short(short_dtypes=True) for a in in_avals)}, but the equation "
                           f"binds {len(eqn.outvars)} variables")
    for v, a in zip(eqn.outvars, out_avals):
      self.write(v, a)

  def run(self) -> None:
    for v in (*self.jaxpr.constvars, *self.jaxpr.invars):
      self.write(v, v.aval)
    for i, eqn in enumerate(self.jaxpr.eqns):
      try:
        self.equation(eqn)
      except JaxprTypeError as e:
        where = f"\n\nfrom source: {eqn.source_info}" if eqn.source_info else ""
        shown = pp_eqn(eqn, self.names, 2).strip()
        raise JaxprTypeError(f"{e.args[0]}\n\nin equation:\n\n  {shown}{where}", i) from None
    for v in self.jaxpr.outvars:
      self.read(v)


def _excerpt(jaxpr: Jaxpr, names: JaxprPpContext, at: int | None) -> str:
  """``jaxpr`` printed, or the equations around ``at`` when it has many."""
  n = len(jaxpr.eqns)
  lo = 0 if at is None else max(0, at - _CONTEXT)
  hi = min(n, lo + 2 * _CONTEXT + 1)
  if lo == 0 and hi == n:
    return pp_jaxpr(jaxpr, names)
  part = Jaxpr(jaxpr.constvars, jaxpr.invars, jaxpr.outvars, jaxpr.eqns[lo:hi],
               jaxpr.effects)
  return f"{pp_jaxpr(part, names)}\n(equations {lo} to {hi - 1} of {n} shown)"


def check_jaxpr(jaxpr: Jaxpr) -> None:
  """Raises JaxprTypeError, naming the equation and showing the jaxpr around it, when
  ``jaxpr`` (or a jaxpr among its equations' parameters) is ill-typed; else None.  A shape
  rule's own error for operands it refuses propagates as it is."""
  names = JaxprPpContext()
  try:
    pp_jaxpr(jaxpr, names)   # names the variables in printing order, for the messages
  except Exception:  # a jaxpr too broken to print is still checked
    pass
  try:
    _Checker(jaxpr, names).run()
  except JaxprTypeError as e:
    at = e.args[1] if len(e.args) == 2 else None
    raise JaxprTypeError(f"{e.args[0]}\n\nwhile checking jaxpr:\n\n"
                         f"{_excerpt(jaxpr, names, at)}") from None
