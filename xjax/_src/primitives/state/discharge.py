"""Discharging state: a jaxpr whose equations read and write mutable refs becomes a jaxpr on
plain arrays, in which each ref is the value it holds, threaded from one equation to the
next by each state primitive's ``discharge`` rule.  A ref given to the jaxpr (an argument or
a closed-over constant) becomes an array input, and its final value an extra output.

``StatefulCall`` is how ``jit`` runs a function that uses refs: it compiles the discharged
jaxpr, reads the refs before each call and writes their final values back after it (through
the state primitives, so this works eagerly and under any enclosing transformation).
``discharge_inputs`` serves control-flow bodies, which may create refs of their own and use
refs from outside (the control flow then carries those refs' values).  Call primitives
whose body may take refs (checkpoint, the custom-derivative calls) have a ``discharge_call``
rule, ``(is_ref, *operands, **params) -> (the refs' final values, outputs)``, binding
themselves on ``discharged_body``; ``run_with_refs`` applies it to refs themselves.
"""
from __future__ import annotations

from typing import Any, Sequence

from xjax._src.core.jaxpr import ClosedJaxpr, Jaxpr, Literal, literal_value
from xjax._src.core.values import get_aval
from xjax._src.interpreters import array_builders as build
from xjax._src.interpreters.higher_order import hoist, hoisted_jaxpr
from xjax._src.interpreters.staging import trace_to_jaxpr
from xjax._src.primitives.state.primitives import get_p, swap_p, undischarged_error
from xjax._src.primitives.state.indexing import WHOLE
from xjax._src.primitives.state.types import AbstractRef, RefEffect


def _is_ref(v) -> bool:
  return type(v.aval) is AbstractRef


def has_state(closed: ClosedJaxpr) -> bool:
  """Whether ``closed`` creates, reads or writes refs, or takes or returns any."""
  jaxpr = closed.jaxpr
  return (any(isinstance(e, RefEffect) for e in jaxpr.effects)
          or any(map(_is_ref, jaxpr.constvars)) or any(map(_is_ref, jaxpr.invars))
          or any(_is_ref(v) for v in jaxpr.outvars if type(v) is not Literal))


def _ref_operand(prim, aval) -> ValueError:
  return ValueError(
      f"Attempting to pass a Ref {aval} to a primitive: {prim.name} -- did you forget to "
      "unpack ([...]) the ref?")


def _run(jaxpr: Jaxpr, consts: Sequence[Any], args: Sequence[Any]) -> list:
  """Evaluates ``jaxpr`` with every ref variable standing for its current value; returns
  its outputs followed by the final values of the refs it was given (in input order:
  constvars, then invars)."""
  env: dict = {}
  env.update(zip(jaxpr.constvars, consts))
  env.update(zip(jaxpr.invars, args))

  def read(atom):
    return literal_value(atom) if type(atom) is Literal else env[atom]

  for eqn in jaxpr.eqns:
    prim = eqn.primitive
    rule = prim.discharge
    ins = [read(a) for a in eqn.invars]
    if rule is None:
      is_ref = [type(a) is not Literal and _is_ref(a) for a in eqn.invars]
      if not any(is_ref):
        outs = prim.bind(*ins, **eqn.params)
      elif prim.discharge_call is None:
        raise _ref_operand(prim, next(a for a, r in zip(eqn.invars, is_ref) if r).aval)
      else:   # a call whose body uses refs given to it
        new, outs = prim.discharge_call(is_ref, *ins, **eqn.params)
        for a, x in zip([a for a, r in zip(eqn.invars, is_ref) if r], new):
          env[a] = _as_type(x, a.aval.inner_aval)
    elif prim.ref_allocating:
      env[eqn.outvars[0]] = rule(*ins, **eqn.params)
      continue
    else:
      new, outs = rule(*ins, **eqn.params)
      env[eqn.invars[0]] = _as_type(new, eqn.invars[0].aval.inner_aval)
    env.update(zip(eqn.outvars, outs if prim.multiple_results else [outs]))
  given = [v for v in jaxpr.constvars + jaxpr.invars if _is_ref(v)]
  return [read(a) for a in jaxpr.outvars] + [env[v] for v in given]


def eval_discharged(closed: ClosedJaxpr, args: Sequence[Any]) -> list:
  """Evaluates ``closed`` at the current trace with each ref it is given standing for the
  value it holds: its outputs, then the final values of those refs (in input order)."""
  return _run(closed.jaxpr, closed.consts, args)


def _as_type(x, aval):
  """``x`` with the weak type of the ref it is stored in (writes keep a ref's type)."""
  have = get_aval(x)
  if have.weak_type == aval.weak_type:
    return x
  return build.convert_element_type(x, aval.dtype, aval.weak_type)


def _value_aval(v):
  return v.aval.inner_aval if _is_ref(v) else v.aval


def _check_no_returned_refs(jaxpr: Jaxpr, what: str) -> None:
  for v in jaxpr.outvars:
    if type(v) is not Literal and _is_ref(v):
      raise ValueError(f"{what} returned a mutable array reference of type {v.aval}, but "
                       "mutable array references cannot be returned.")


class StatefulCall:
  """A traced function that uses refs, as ``jit`` runs it.

  ``closed`` is the discharged jaxpr: its inputs are the values of the refs it closes over,
  then the argument leaves (refs replaced by their values); its outputs are the function's,
  then the final values of those refs, in the same order.
  """
  __slots__ = ("traced", "closed", "in_avals", "const_refs", "arg_is_ref", "n_out", "name")

  def __init__(self, traced: ClosedJaxpr) -> None:
    jaxpr = traced.jaxpr
    info = jaxpr.debug_info
    name = "<unknown>" if info is None else info.func_name
    where = "<unknown>" if info is None else info.func_src_info
    _check_no_returned_refs(jaxpr, f"function {where} traced for jit")
    self.traced = traced
    ref_consts = [i for i, v in enumerate(jaxpr.constvars) if _is_ref(v)]
    self.const_refs = [traced.consts[i] for i in ref_consts]
    self.arg_is_ref = [_is_ref(v) for v in jaxpr.invars]
    self.n_out = len(jaxpr.outvars)
    self.name = name
    self.in_avals = ([jaxpr.constvars[i].aval.inner_aval for i in ref_consts]
                     + [_value_aval(v) for v in jaxpr.invars])

    def run(*values):
      consts = list(traced.consts)
      for i, x in zip(ref_consts, values):
        consts[i] = x
      return _run(jaxpr, consts, values[len(ref_consts):])

    self.closed = trace_to_jaxpr(run, self.in_avals, jaxpr.debug_info)

  def read(self, leaves: Sequence[Any]) -> tuple[list, list]:
    """(the program's inputs: the refs' values and the other leaves; the refs)."""
    refs = self.const_refs + [x for x, r in zip(leaves, self.arg_is_ref) if r]
    seen: dict = {}
    for i, r in enumerate(refs):
      if id(r) in seen:
        raise ValueError(
            f"only one reference to a mutable array may be passed as an argument to a "
            f"function, but when calling {self.name} (jit) the mutable array reference of "
            f"type {get_aval(r)} appeared at two inputs "
            f"(positions {seen[id(r)]} and {i} of the refs it reads).")
      seen[id(r)] = i
    values = read_refs(self.const_refs)
    values += [get_p.bind(x, indexer=WHOLE) if r else x
               for x, r in zip(leaves, self.arg_is_ref)]
    return values, refs

  def write(self, refs: Sequence[Any], outs: Sequence[Any]) -> list:
    """Stores the refs' final values; returns the function's own outputs."""
    write_refs(refs, outs[self.n_out:])
    return list(outs[:self.n_out])


def read_refs(refs: Sequence[Any]) -> list:
  """The current values of ``refs`` (``ref[...]`` of each)."""
  return [get_p.bind(r, indexer=WHOLE) for r in refs]


def write_refs(refs: Sequence[Any], values: Sequence[Any]) -> None:
  """``ref[...] = value`` for each."""
  for r, x in zip(refs, values):
    swap_p.bind(r, x, indexer=WHOLE)


def discharge_inputs(closed: ClosedJaxpr, what: str) -> ClosedJaxpr:
  """``closed`` (without constvars of ref type) on values: each ref-typed input takes the
  value of the ref it was, and that ref's final value becomes an extra output after the
  jaxpr's own (in input order); refs it creates itself are discharged too.  ``what`` names
  it in errors."""
  jaxpr = closed.jaxpr
  _check_no_returned_refs(jaxpr, what)
  assert not any(map(_is_ref, jaxpr.constvars)), "hoist a body's consts first"
  return trace_to_jaxpr(lambda *args: _run(jaxpr, closed.consts, args),
                        [_value_aval(v) for v in jaxpr.invars], jaxpr.debug_info)


def discharged_body(body: ClosedJaxpr, what: str) -> tuple[ClosedJaxpr, list]:
  """A call's body that takes refs, on values (``discharge_inputs``), its constants hoisted:
  (the body, returning its outputs then the refs' final values; those constants)."""
  return hoist(discharge_inputs(body, what))


def run_with_refs(prim, args: Sequence[Any], params: dict) -> list:
  """Binds the call primitive ``prim`` on operands that include refs through its
  ``discharge_call`` rule: their values go in, their final values are written back."""
  is_ref = [type(get_aval(x)) is AbstractRef for x in args]
  refs = [x for x, r in zip(args, is_ref) if r]
  values = [get_p.bind(x, indexer=WHOLE) if r else x for x, r in zip(args, is_ref)]
  new, outs = prim.discharge_call(is_ref, *values, **params)
  write_refs(refs, new)
  return outs


def without_local_state(jaxpr: Jaxpr, consts: Sequence[Any]) -> tuple[Jaxpr, list]:
  """``jaxpr`` with the operations on refs it makes itself turned into array operations,
  for lowering: the same constvars (after any constants discharging made), invars and
  outvars."""
  if not any(isinstance(e, RefEffect) for e in jaxpr.effects):
    return jaxpr, list(consts)
  if any(map(_is_ref, jaxpr.constvars)) or any(map(_is_ref, jaxpr.invars)):
    raise undischarged_error()
  n = len(jaxpr.constvars)
  closed = discharge_inputs(ClosedJaxpr(hoisted_jaxpr(jaxpr), ()), "a function")
  new = closed.jaxpr
  return (Jaxpr(new.constvars + new.invars[:n], new.invars[n:], new.outvars, new.eqns,
                new.effects, new.debug_info), list(closed.consts) + list(consts))

