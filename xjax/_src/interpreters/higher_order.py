"""The kit of higher-order primitives (control flow, ``jit``, ``checkpoint``, the custom-
derivative calls, ``shard_map``): the machinery their rules share.

- ``carry_fixpoint``: which loop carries are nonzero / unknown / batched, iterated until the
  body's outputs agree with its inputs.
- Hoisting: a body is a closed jaxpr with its constants moved to leading inputs, so the
  primitive carries them as operands (``hoist`` for a jaxpr, ``trace_hoisted`` for a
  function; ``cached_trace`` keeps such traces per owner).
- ``partial_eval_call``: a call-like primitive's known part runs now, the rest is staged on
  the residuals.
- ``call_rules``: the jvp/partial_eval/transpose/batch rules of a primitive that calls its
  body: transform the body, bind the same primitive again.
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple, Sequence

from xjax._src.core.avals import ShapedArray, tangent_aval
from xjax._src.core.jaxpr import ClosedJaxpr, Jaxpr
from xjax._src.core.jaxpr_cache import WeakLRU, cached_on_jaxpr, frozen
from xjax._src.core.trace import Tracer
from xjax._src.core.values import get_aval
from xjax._src.foundations.config import config
from xjax._src.interpreters import ad, batching
from xjax._src.interpreters.ad import Zero
from xjax._src.interpreters.staging import trace_to_jaxpr


# ---------------------------------------------------------------------------------------
# Flags

def partition(flags: Sequence[bool], xs: Sequence[Any]) -> tuple[list, list]:
  """(the ``xs`` whose flag is false, those whose flag is true)."""
  return [x for x, f in zip(xs, flags) if not f], [x for x, f in zip(xs, flags) if f]


def merge(flags: Sequence[bool], when_false: Sequence[Any], when_true: Sequence[Any]) -> list:
  """``partition``'s inverse: one value per flag, taken in order from either list."""
  f, t = iter(when_false), iter(when_true)
  return [next(t) if flag else next(f) for flag in flags]


def carry_fixpoint(step: Callable[[list], Sequence[bool]], flags: Sequence[bool]) -> list:
  """The least flags of a loop's carry closed under its body: ``step(flags)`` gives the
  body's output flags for input flags ``flags`` (outputs beyond the carry are ignored); a
  carry is flagged once the body flags it.  (Which carries have nonzero tangents, are
  unknown, are batched.)"""
  flags = list(flags)
  while True:
    new = [a or b for a, b in zip(flags, step(flags))]
    if new == flags:
      return flags
    flags = new


# ---------------------------------------------------------------------------------------
# Hoisting: bodies take their constants as leading inputs

_traces = WeakLRU(per_owner=32)


def cached_trace(owner, key, trace: Callable):
  """``trace()`` -> (jaxpr, consts, ...), cached on ``owner`` (weakly) and ``key``, which
  must name everything ``trace`` depends on besides ``owner``.  Results whose consts hold
  tracers of an enclosing transformation are not cached."""
  key = (frozen(key), config._trace_key)
  try:
    hit = _traces.get(owner, key)
  except TypeError:  # owner not weakly referenceable, or key not hashable
    return trace()
  if hit is None:
    hit = trace()
    if not any(isinstance(c, Tracer) for c in hit[1]):
      _traces.put(owner, key, hit)
  return hit


def hoisted_jaxpr(jaxpr: Jaxpr) -> Jaxpr:
  """``jaxpr`` taking its constvars as leading invars."""
  return Jaxpr((), jaxpr.constvars + jaxpr.invars, jaxpr.outvars, jaxpr.eqns, jaxpr.effects,
               jaxpr.debug_info)


@cached_on_jaxpr()
def _hoisted(closed: ClosedJaxpr) -> ClosedJaxpr:
  return ClosedJaxpr(hoisted_jaxpr(closed.jaxpr), ())


def hoist(closed: ClosedJaxpr) -> tuple[ClosedJaxpr, list]:
  """(``closed`` taking its consts as leading inputs, those consts).  The jaxpr is the same
  object on every call (``closed`` itself when it has no consts), so what is compiled from
  it is reused."""
  if not closed.consts:
    return closed, []
  return _hoisted(closed), list(closed.consts)


def trace_hoisted(fun: Callable, avals: Sequence[ShapedArray], debug=None, *,
                  cache_on: tuple | None = None) -> tuple[ClosedJaxpr, list]:
  """``fun`` traced at ``avals`` as (a jaxpr taking its consts first, those consts).  With
  ``cache_on=(owner, key)`` traced once per (owner, key, avals) (see ``cached_trace``)."""
  if cache_on is not None:
    owner, key = cache_on
    avals = tuple(avals)
    return cached_trace(owner, (key, avals), lambda: trace_hoisted(fun, avals, debug))
  closed = trace_to_jaxpr(fun, list(avals), debug)
  return ClosedJaxpr(hoisted_jaxpr(closed.jaxpr), ()), list(closed.consts)


@cached_on_jaxpr()
def as_closed(jaxpr: Jaxpr) -> ClosedJaxpr:
  """A jaxpr without constvars (a call's open ``call_jaxpr``) as a ClosedJaxpr (the same
  object on every call)."""
  return ClosedJaxpr(jaxpr, ())


# ---------------------------------------------------------------------------------------
# Known/unknown split of a call

class CallSplit(NamedTuple):
  """A call's body split by ``partial_eval_jaxpr`` at its inputs' ``unknowns``: ``known``
  maps the known inputs to the known outputs then ``num_res`` residuals; ``unknown`` maps
  the residuals then the unknown inputs to the outputs flagged in ``out_unknowns``."""
  known: ClosedJaxpr
  unknown: ClosedJaxpr
  unknowns: list
  out_unknowns: list
  num_res: int


def partial_eval_call(trace, args: Sequence[Any], body: ClosedJaxpr, run_known: Callable,
                      stage_unknown: Callable) -> list:
  """Partial evaluation of a call of ``body`` on ``args`` under ``trace``: the body's known
  part runs now, ``run_known(split, known_args)`` -> its known outputs then the residuals;
  the rest is staged, ``stage_unknown(split, residuals, unknown_args)`` -> the unknown
  outputs (``split``: a ``CallSplit``).  Returns the call's outputs."""
  unknowns = [trace.is_unknown(x) for x in args]
  known, unknown, out_unknowns, num_res = ad.partial_eval_jaxpr(body, unknowns)
  split = CallSplit(known, unknown, unknowns, out_unknowns, num_res)
  known_args, unknown_args = partition(unknowns, args)
  outs = run_known(split, known_args)
  n_known = len(outs) - split.num_res
  staged = stage_unknown(split, list(outs[n_known:]), unknown_args)
  return merge(split.out_unknowns, outs[:n_known], staged)


# ---------------------------------------------------------------------------------------
# Rules of call-like primitives

CONST, NEW = "const", "new"   # origins of operands that are not the call's own


def _same_params(params: dict, rule: str, origin: list) -> dict:
  return params


@cached_on_jaxpr(lambda split: tuple(split.unknowns))
def _without_forwarded(body: ClosedJaxpr, split: CallSplit):
  """(``split.known`` without the outputs that are its own inputs and the residuals that
  are its constants, or None where there are none; per output, the input it is, ``(CONST,
  j)`` for a residual that is its ``j``-th constant, or None), cached on the call's ``body``
  (so the entry goes with it): the same jaxpr object on every call, so what is compiled
  from it is reused."""
  jaxpr = split.known.jaxpr
  n_out = len(jaxpr.outvars) - split.num_res
  inputs = {v: i for i, v in enumerate(jaxpr.invars)}
  consts = {v: (CONST, j) for j, v in enumerate(jaxpr.constvars)}
  fwd = tuple(inputs.get(v, consts.get(v) if k >= n_out else None)
              for k, v in enumerate(jaxpr.outvars))
  if all(i is None for i in fwd):
    return None, fwd
  kept = [v for v, i in zip(jaxpr.outvars, fwd) if i is None]
  return ClosedJaxpr(Jaxpr(jaxpr.constvars, jaxpr.invars, kept, jaxpr.eqns, jaxpr.effects,
                           jaxpr.debug_info), split.known.consts), fwd


class _CallRules:
  """Rules of ``prim``, whose body is the parameter ``param`` (see ``call_rules``)."""

  def __init__(self, prim, param: str, open_jaxpr: bool, update: Callable,
               keep_consts: Sequence[str], forward_inputs: bool,
               cts_typed_by_body: bool, batch_in_place: bool) -> None:
    self.prim, self.param, self.open_jaxpr, self.update = prim, param, open_jaxpr, update
    self.keep_consts = frozenset(keep_consts)
    self.forward_inputs = forward_inputs
    self.cts_typed_by_body = cts_typed_by_body
    self.batch_in_place = batch_in_place

  def body(self, params: dict) -> ClosedJaxpr:
    body = params[self.param]
    return as_closed(body) if self.open_jaxpr else body

  def _call(self, rule: str, params: dict, body: ClosedJaxpr, operands: list, origin: list,
            stage_on=None):
    """Binds ``prim`` (or stages it on the trace ``stage_on``) with ``body`` (consts
    hoisted) as the body; ``origin`` says where each operand comes from (``call_rules``)."""
    body, consts = (body, []) if rule in self.keep_consts else hoist(body)
    new = dict(params)
    new[self.param] = body.jaxpr if self.open_jaxpr else body
    new = self.update(new, rule, [CONST] * len(consts) + origin)
    if stage_on is not None:
      return stage_on.stage(self.prim, [*consts, *operands], new)
    return self.prim.bind(*consts, *operands, **new)

  def jvp(self, primals, tangents, **params):
    body = self.body(params)
    nonzeros = [type(t) is not Zero for t in tangents]
    jvp_body, out_nz = ad.jvp_closed_jaxpr(body, nonzeros, instantiate_out=False)
    nz_tangents = [t for t in tangents if type(t) is not Zero]
    outs = self._call("jvp", params, jvp_body, [*primals, *nz_tangents],
                      list(range(len(primals))) + [(NEW, i) for i, t in enumerate(tangents)
                                                    if type(t) is not Zero])
    n = len(body.out_avals)
    zeros = [Zero(tangent_aval(a)) for a, nz in zip(body.out_avals, out_nz) if not nz]
    return outs[:n], merge(out_nz, zeros, outs[n:])

  def partial_eval(self, trace, args, params):
    def run_known(split, known_args):
      known_at = partition(split.unknowns, range(len(args)))[0]
      if not self.forward_inputs:
        return self._call("known", params, split.known, known_args, known_at)
      # Outputs that are known inputs, and residuals that are constants, are passed on as
      # they are, not returned (as JAX's jit forwards them).
      body, fwd = _without_forwarded(self.body(params), split)
      if body is None:
        return self._call("known", params, split.known, known_args, known_at)
      outs = iter(self._call("known", params, body, known_args, known_at))
      return [next(outs) if i is None else known_args[i] if type(i) is int
              else split.known.consts[i[1]] for i in fwd]

    def stage_unknown(split, residuals, unknown_args):
      unknown_at = partition(split.unknowns, range(len(args)))[1]
      return self._call("unknown", params, split.unknown, residuals + unknown_args,
                        [NEW] * len(residuals) + unknown_at, stage_on=trace)
    return partial_eval_call(trace, args, self.body(params), run_known, stage_unknown)

  def transpose(self, cts, *args, **params):
    linear = [ad.is_undefined(x) for x in args]
    # Outputs whose cotangent is a symbolic zero take none (as JAX's jit prunes them): an
    # instantiated zero times a rule's infinite term (eigh's 1/(w_i - w_j) of repeated
    # eigenvalues, for eigenvectors no one uses) would be NaN.
    zero_cts = [type(c) is Zero for c in cts]
    cts = [c for c in cts if type(c) is not Zero]
    ct_avals = None if self.cts_typed_by_body else [get_aval(c) for c in cts]
    ct_body = ad.transpose_closed_jaxpr(self.body(params), linear, zero_cts=zero_cts,
                                        ct_avals=ct_avals)
    nonlin, nonlin_at = partition(linear, args)[0], partition(linear, range(len(args)))[0]
    outs = self._call("transpose", params, ct_body, nonlin + cts,
                      nonlin_at + [NEW] * len(cts))
    return merge(linear, [None] * len(nonlin), outs)

  def batch(self, axis, args, dims, **params):
    if self.batch_in_place:
      batched, out_dims = batching.batch_closed_jaxpr_in_place(self.body(params), axis,
                                                               tuple(dims))
      return self._call("batch", params, batched, list(args), list(range(len(args)))), out_dims
    in_batched = [d is not None for d in dims]
    args = [batching.moveaxis(x, d, 0) if d is not None else x for x, d in zip(args, dims)]
    batched, out_batched = batching.batch_closed_jaxpr(self.body(params), axis, in_batched)
    outs = self._call("batch", params, batched, args, list(range(len(args))))
    return outs, [0 if b else None for b in out_batched]


RULES = ("jvp", "partial_eval", "transpose", "batch")


def call_rules(prim, param: str = "jaxpr", *, open_jaxpr: bool = False,
               update: Callable = _same_params, rules: Sequence[str] = RULES,
               keep_consts: Sequence[str] = (), forward_inputs: bool = False,
               cts_typed_by_body: bool = False, batch_in_place: bool = False) -> None:
  """Installs on ``prim``, a primitive that calls its body (the closed jaxpr in parameter
  ``param``; an open one whose consts come first with ``open_jaxpr``), the ``rules`` that
  transform the body (``jvp_closed_jaxpr``, ``partial_eval_jaxpr``,
  ``transpose_closed_jaxpr``, ``batch_closed_jaxpr``) and bind ``prim`` again on it, its
  consts hoisted to leading operands (but for the rules named in ``keep_consts``, whose
  closed body keeps its consts, as JAX's ``jit`` keeps those its JVP creates).  With
  ``forward_inputs``, partial evaluation passes outputs and residuals that are known inputs
  on as they are instead of returning them from the known part (as JAX's ``jit`` does).
  The transpose is traced on the cotangents' types as given (weak types included, as JAX's
  ``jit``), or on the body's output types with ``cts_typed_by_body`` (as JAX's checkpoint).
  With ``batch_in_place`` the body is batched with its inputs' batch dimensions where they
  are and its outputs' where they come out (as JAX's ``jit``); otherwise both are moved to 0.
  ``update(params, rule, origin)`` adjusts the other
  parameters of each new binding: ``rule`` is "jvp", "transpose", "batch", or "known" /
  "unknown" (the two parts of partial evaluation); ``origin`` has, per new operand, the
  position of the original operand it is, ``CONST`` (a hoisted constant), ``(NEW, i)``
  (the tangent of operand ``i``) or ``NEW`` (a cotangent or residual)."""
  r = _CallRules(prim, param, open_jaxpr, update, keep_consts, forward_inputs,
                 cts_typed_by_body, batch_in_place)
  for name in rules:
    setattr(prim, name, getattr(r, name))
