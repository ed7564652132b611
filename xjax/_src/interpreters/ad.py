"""Automatic differentiation: the JVP trace, partial evaluation, linearize and transpose.

Forward mode is ``JVPTrace``: each value carries (primal, tangent) and each primitive's
``jvp`` rule maps them.  Reverse mode is linearize-then-transpose: JVP under a
``PartialEvalTrace`` evaluates everything that depends only on primals (on the parent
trace) and records the tangent computation as a linear jaxpr; ``backward_pass`` runs that
jaxpr backwards with each linear primitive's ``transpose`` rule.  Zeros are symbolic.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core import source_info
from xjax._src.core.avals import ShapedArray, tangent_aval, vma_of
from xjax._src.core.dce import dce_jaxpr, dce_open_jaxpr
from xjax._src.core.jaxpr_cache import cached_on_jaxpr
from xjax._src.core.typed_ndarray import float0_zeros
from xjax._src.core.jaxpr import ClosedJaxpr, Jaxpr, Literal, Var, eval_jaxpr, literal_value
from xjax._src.core.trace import (Trace, Tracer, current_trace, eval_trace, new_trace,
                                  set_current_trace)
from xjax._src.core.values import get_aval
from xjax._src.execution.array import Array
from xjax._src.execution.eager_primitives import apply_on_host
from xjax._src.interpreters import array_builders as build
from xjax._src.interpreters.staging import DynamicJaxprTrace, trace_to_jaxpr


class Zero:
  """A symbolic zero tangent/cotangent of a given aval."""
  __slots__ = ("aval",)

  def __init__(self, aval: ShapedArray) -> None:
    self.aval = aval

  @staticmethod
  def like(x) -> "Zero":
    aval = x.aval if type(x) is Array else get_aval(x)
    zero = _zeros.get(aval)
    if zero is None:
      zero = Zero(tangent_aval(aval))
      if len(_zeros) < 1024:
        _zeros[aval] = zero
    return zero

  from_primal_value = like   # JAX's name

  def instantiate(self):
    """The zero array it stands for."""
    return zeros_of(self.aval)

  def __repr__(self) -> str:
    return f"Zero({self.aval.str_short(short_dtypes=True)})"


_zeros: dict = {}  # a primal's aval -> the Zero of its tangent (Zeros are never changed)


def zeros_of(aval: ShapedArray):
  """A concrete (or traced) zero array of ``aval`` (an extended dtype's by its rules'
  ``zero``)."""
  if aval.dtype == dtypes.float0:
    return float0_zeros(aval.shape)
  rules = getattr(aval.dtype, "_rules", None)
  if rules is not None and hasattr(rules, "zero"):
    zeros = build.broadcast_in_dim(rules.zero(aval.dtype), aval.shape, (), None)
  else:
    zeros = build.full(aval.shape, build.convert_element_type(0, aval.dtype, aval.weak_type),
                       sharding=getattr(aval, "_sharding", None))
  return build.pvary(zeros, aval._vma) if vma_of(aval) else zeros


def instantiate(t):
  return zeros_of(t.aval) if type(t) is Zero else t


def add_tangents(a, b):
  if type(a) is Zero:
    return b
  if type(b) is Zero:
    return a
  return build.add_any(a, b)


# ---------------------------------------------------------------------------------------
# Forward mode

class JVPTracer(Tracer):
  __slots__ = ("primal", "tangent")

  def __init__(self, trace: "JVPTrace", primal, tangent) -> None:
    self._trace = trace
    self.primal = primal
    self.tangent = tangent

  @property
  def aval(self) -> ShapedArray:
    return _aval(self.primal)

  def get_referent(self):
    return self.primal.get_referent() if isinstance(self.primal, Tracer) else self.primal

  def jax_repr(self) -> str:
    """``GradTracer`` under grad/linearize (a tangent partial evaluation stages), else
    ``JVPTracer``, as JAX names them."""
    if isinstance(self.tangent, Tracer) and isinstance(self.tangent._trace, PartialEvalTrace):
      return (f"GradTracer(primal={self.primal}, "
              f"typeof(tangent)={self.tangent.aval.str_short(short_dtypes=True)})")
    return f"JVPTracer(primal={self.primal}, tangent={self.tangent})"

  def to_concrete_value(self):
    p = self.primal
    if isinstance(p, Tracer):
      return p.to_concrete_value()
    return np.asarray(p)


def _aval(x) -> ShapedArray:
  """``get_aval(x)``, quicker for tracers and Arrays (every differentiated operation asks)."""
  return x.aval if isinstance(x, (Tracer, Array)) else get_aval(x)


def concrete_primal(x: JVPTracer) -> bool:
  """Whether the JVP tracer ``x`` differentiates a concrete value (eager differentiation,
  possibly nested), as JAX's ``core.is_concrete``."""
  while type(x) is JVPTracer:
    x = x.primal
  return not isinstance(x, Tracer)


class JVPTrace(Trace):
  __slots__ = ()

  def __repr__(self) -> str:
    return "JVPTrace"

  def lift(self, x):
    if isinstance(x, JVPTracer) and x._trace is self:
      return x.primal, x.tangent
    return x, Zero.like(x)

  def process_primitive(self, prim, args, params):
    primals = []
    tangents = []
    differentiated = others = False
    for x in args:  # (one pass: this runs for every operation differentiated)
      if type(x) is JVPTracer and x._trace is self:
        primals.append(x.primal)
        t = x.tangent
        tangents.append(t)
        if type(t) is not Zero:
          differentiated = True
      else:
        primals.append(x)
        if type(x) is Array:  # (a constant's zero, at once)
          tangents.append(Zero.like(x))
        else:
          tangents.append(None)
          others = True
    if not differentiated and not prim.ref_allocating:
      # no operand has a tangent (constants, such as a promoted Python scalar)
      with set_current_trace(self.parent):
        return prim.bind(*primals, **params)
    if others:
      tangents = [Zero.like(x) if t is None else t for x, t in zip(args, tangents)]
    tangents = tuple(tangents)
    primals = tuple(primals)
    if prim.jvp is None:
      raise NotImplementedError(f"Differentiation rule for '{prim.name}' not implemented")
    with set_current_trace(self.parent):
      out, out_t = prim.jvp(primals, tangents, **params)
    if prim.multiple_results:
      return [JVPTracer(self, p, t) for p, t in zip(out, out_t)]
    return JVPTracer(self, out, out_t)


def as_jit_input(trace: JVPTrace, x, forwarded: dict | None = None):
  """``x`` as a jit's JVP takes it: a tangent typed from its primal (weak where the primal
  is, strong where it is not, as JAX types a call's tangent inputs). When it is retyped
  while staging, ``forwarded`` maps the new tangent's id to it and ``x``: an inline jit's
  result whose tangent is that input's passes the given tangent on (``as_jit_output``)."""
  if not (type(x) is JVPTracer and x._trace is trace) or type(x.tangent) is Zero:
    return x
  if forwarded is not None and isinstance(x.primal, _PYTHON_SCALARS):
    forwarded[id(x)] = (x, None)  # (see as_jit_output)
  aval, t_aval = x.aval, _aval(x.tangent)
  if t_aval.weak_type == aval.weak_type:  # (the common case: nothing to retype)
    return x
  aval = tangent_aval(aval)
  if t_aval.weak_type == aval.weak_type or t_aval.dtype != aval.dtype:
    return x
  if aval.weak_type and type(trace.parent) is PartialEvalTrace:
    return x  # (linearizing, a strong tangent of a weak primal stays strong: JAX's transpose
    # of the call's equations types cotangents by the tangents given, so one converted
    # inside to strong comes back strong)
  with set_current_trace(trace.parent):
    out = JVPTracer(trace, x.primal, build.retype_tangent(x.tangent, aval.weak_type))
  if forwarded is not None and not has_concrete_primal(x):
    forwarded[id(out.tangent)] = (out.tangent, x)  # (held, so the id is not reused)
  return out


def has_concrete_primal(x: JVPTracer) -> bool:
  """Whether ``x``'s primal is a concrete value (eager differentiation), not a tracer."""
  while type(x) is JVPTracer:
    x = x.primal
  return not isinstance(x, Tracer)


_PYTHON_SCALARS = (bool, int, float, complex)


def as_jit_output(trace: JVPTrace, x, forwarded: dict | None = None):
  """``x`` as a jit's output: a Python scalar (a forwarded input or constant, or such a
  primal or tangent) becomes an array, as JAX's jit returns arrays. A staged input's
  retyped tangent passed through (in ``forwarded``) is the input's own again: JAX inlines
  a jit's equations with the types of its JVP, but passes its forwarded variables on as
  they are. Linearizing, an input of a Python-scalar primal passed through stays as it is
  (JAX's jit forwards it)."""
  if forwarded and isinstance(x, JVPTracer) and x._trace is trace:
    retyped, given = forwarded.get(id(x.tangent), (None, None))
    if retyped is x.tangent:
      return JVPTracer(trace, x.primal, given.tangent)
  if isinstance(x, JVPTracer) and x._trace is trace:
    if not (isinstance(x.primal, _PYTHON_SCALARS) or isinstance(x.tangent, _PYTHON_SCALARS)):
      return x  # (the common case, without entering the parent trace)
    if forwarded and forwarded.get(id(x), (None,))[0] is x and (
        type(trace.parent) is PartialEvalTrace):
      return x
    with set_current_trace(trace.parent):
      return JVPTracer(trace, _scalar_as_array(x.primal), _scalar_as_array(x.tangent))
  if not isinstance(x, _PYTHON_SCALARS):
    return x
  with set_current_trace(trace.parent):
    return _scalar_as_array(x)


def _scalar_as_array(v):
  if isinstance(v, _PYTHON_SCALARS):
    aval = get_aval(v)
    return build.full((), build.convert_element_type(v, aval.dtype, aval.weak_type))
  return v


def jvp_flat(fun: Callable, primals: Sequence[Any], tangents: Sequence[Any]):
  """Runs ``fun(*primals)`` forward-differentiated; returns (out_primals, out_tangents)."""
  trace = JVPTrace(current_trace())
  with new_trace(trace):
    # (an input of a symbolic zero tangent is passed as it is, as JAX's maybe_jvp_tracer)
    ins = [p if type(t) is Zero else JVPTracer(trace, p, t) for p, t in zip(primals, tangents)]
    outs = fun(*ins)
    pairs = [trace.lift(o) for o in outs]
  return [p for p, _ in pairs], [t for _, t in pairs]


# ---------------------------------------------------------------------------------------
# Partial evaluation

class PartialEvalTrace(DynamicJaxprTrace):
  """Evaluates what is known (on the parent trace) and stages the rest into a jaxpr.

  Unknown values are this trace's tracers; everything else is known.  Known inputs of a
  staged equation become constvars: the residuals of the linear jaxpr.
  """
  __slots__ = ()

  def __repr__(self) -> str:
    return "JaxprTrace"

  def is_unknown(self, x) -> bool:
    return isinstance(x, Tracer) and x._trace is self

  def process_primitive(self, prim, args, params):
    for x in args:
      if isinstance(x, Tracer) and x._trace is self:
        break
    else:  # everything known: evaluated on the parent trace
      if self.parent is eval_trace:  # (eager grad: on the host, if it can be, at once)
        out = apply_on_host(prim, args, params)
        if out is not None:
          return out
      with set_current_trace(self.parent):
        return prim.bind(*args, **params)
    if prim.partial_eval is not None:
      return prim.partial_eval(self, args, params)
    return super().process_primitive(prim, args, params)

  def stage(self, prim, args, params):
    """Records ``prim`` regardless of which inputs are known."""
    return self.record(prim, args, params)


def linearize_flat(fun: Callable, primals: Sequence[Any]):
  """(out_primals, linear ClosedJaxpr taking input tangents to output tangents)."""
  out_primals, _, linear = linearize_nonzero(fun, primals, instantiate=True)
  return out_primals, linear


def linearize_nonzero(fun: Callable, primals: Sequence[Any], instantiate: bool = False):
  """(out_primals, which output tangents are not symbolically zero, linear ClosedJaxpr
  taking the input tangents to those output tangents, or to all with ``instantiate``)."""
  pe = PartialEvalTrace(parent=current_trace())
  jvp_trace = JVPTrace(pe)
  with new_trace(pe):
    tangents_in = [pe.new_arg(tangent_aval(get_aval(p))) for p in primals]
    # an integer or boolean input's tangent is a symbolic zero (its float0 argument stays)
    tangents_in = [Zero(t.aval) if t.aval.dtype == dtypes.float0 else t for t in tangents_in]
    with new_trace(jvp_trace):
      ins = [p if type(t) is Zero else JVPTracer(jvp_trace, p, t)  # (as jvp_flat)
             for p, t in zip(primals, tangents_in)]
      outs = fun(*ins)
      pairs = [jvp_trace.lift(o) for o in outs]
    out_primals = [p for p, _ in pairs]
    for p in out_primals:
      if pe.is_unknown(p):
        raise ValueError("Linearization failed to produce known values for all output "
                         "primals. This is typically caused by attempting to differentiate a "
                         "function uses an operation that does not support reverse-mode "
                         "autodiff.")
    nonzero = [instantiate or type(t) is not Zero for _, t in pairs]
    out_tangents = [_instantiate_for_staging(t) for (_, t), nz in zip(pairs, nonzero) if nz]
    linear = pe.to_closed_jaxpr(out_tangents)
  return out_primals, nonzero, linear


def _instantiate_for_staging(t):
  return zeros_of(t.aval) if type(t) is Zero else t


@cached_on_jaxpr()
def partial_eval_jaxpr(closed: ClosedJaxpr, unknowns: Sequence[bool],
                       instantiate: bool | Sequence[bool] = False):
  """Splits ``closed`` into a known jaxpr and an unknown one.

  Returns (known, unknown, out_unknowns, num_residuals): ``known`` maps the known inputs to
  the known outputs followed by residuals; ``unknown`` maps residuals followed by the
  unknown inputs to the unknown outputs.
  """
  n_out = len(closed.out_avals)
  inst = [instantiate] * n_out if isinstance(instantiate, bool) else list(instantiate)
  known_avals = [a for a, u in zip(closed.in_avals, unknowns) if not u]
  unknown_avals = [a for a, u in zip(closed.in_avals, unknowns) if u]
  result = {}

  def known_fun(*known_args):
    pe = PartialEvalTrace(parent=current_trace())
    with new_trace(pe):
      unknown_args = [pe.new_arg(a) for a in unknown_avals]
      it_k, it_u = iter(known_args), iter(unknown_args)
      args = [next(it_u) if u else next(it_k) for u in unknowns]
      outs = eval_jaxpr(closed.jaxpr, closed.consts, *args)
      out_unknowns = [pe.is_unknown(o) or i for o, i in zip(outs, inst)]
      unknown_outs = [o for o, u in zip(outs, out_unknowns) if u]
      staged = pe.to_closed_jaxpr(unknown_outs)
    jaxpr = staged.jaxpr
    # only the residuals live unknown equations read (as JAX: a tangent killed by
    # stop_gradient leaves its equations, and what they would read, out)
    unknown_jaxpr, used = dce_open_jaxpr(
        Jaxpr((), jaxpr.constvars + jaxpr.invars, jaxpr.outvars, jaxpr.eqns, jaxpr.effects),
        [True] * len(jaxpr.outvars))
    n_res = len(jaxpr.constvars)
    keep = used[:n_res]
    residuals = [c for c, k in zip(staged.consts, keep) if k]
    unknown_jaxpr = Jaxpr((), [v for v, k in zip(jaxpr.constvars, keep) if k] + jaxpr.invars,
                          unknown_jaxpr.outvars, unknown_jaxpr.eqns, unknown_jaxpr.effects)
    result["unknown"] = ClosedJaxpr(unknown_jaxpr, ())
    result["out_unknowns"] = out_unknowns
    result["num_res"] = len(residuals)
    known_outs = [o for o, u in zip(outs, out_unknowns) if not u]
    return known_outs + list(residuals)

  known, _ = dce_jaxpr(trace_to_jaxpr(known_fun, known_avals),
                      [True] * (n_out - sum(result["out_unknowns"]) + result["num_res"]))
  return known, result["unknown"], result["out_unknowns"], result["num_res"]


# ---------------------------------------------------------------------------------------
# Transposition

class UndefinedPrimal:
  """A linear input of a transpose rule: only its aval is known."""
  __slots__ = ("aval",)

  def __init__(self, aval: ShapedArray) -> None:
    self.aval = aval

  def __repr__(self) -> str:
    return f"UndefinedPrimal({self.aval.str_short(short_dtypes=True)})"


def is_undefined(x) -> bool:
  return type(x) is UndefinedPrimal


def _live_outputs(jaxpr: Jaxpr, linear_eqns: list) -> set:
  """The variables that the outputs depend on through linear equations (what JAX's
  linearization keeps after dead-code elimination); computed only where an equation is
  transposed without cotangents (custom_vjp's bwd runs when its outputs are live)."""
  if not any(e.primitive.transposed_without_cotangents for e in linear_eqns):
    return set()
  live = {v for v in jaxpr.outvars if type(v) is not Literal}
  for eqn in reversed(linear_eqns):
    if any(v in live for v in eqn.outvars):
      live.update(a for a in eqn.invars if type(a) is not Literal)
  return live


def backward_pass(jaxpr: Jaxpr, consts: Sequence[Any], args: Sequence[Any],
                  cts_out: Sequence[Any]) -> list:
  """Transposes ``jaxpr`` w.r.t. its UndefinedPrimal args; returns their cotangents.

  Equations whose inputs are all defined are evaluated forward first; the rest are
  linear and are transposed in reverse order with each primitive's ``transpose`` rule.
  """
  primal_env: dict[Var, Any] = {}
  for v, c in zip(jaxpr.constvars, consts):
    primal_env[v] = c
  for v, a in zip(jaxpr.invars, args):
    primal_env[v] = a

  def read_primal(atom):
    if type(atom) is Literal:
      return literal_value(atom)  # weakly typed literals stay weak
    x = primal_env.get(atom, primal_env)  # (the dict itself: a marker no value can be)
    return UndefinedPrimal(atom.aval) if x is primal_env else x

  linear_eqns = []
  for eqn in jaxpr.eqns:
    ins = [read_primal(a) for a in eqn.invars]
    if any(is_undefined(x) for x in ins):
      linear_eqns.append(eqn)
      continue
    outs = eqn.primitive.bind(*ins, **eqn.params)
    outs = outs if eqn.primitive.multiple_results else [outs]
    for v, o in zip(eqn.outvars, outs):
      primal_env[v] = o

  ct_env: dict[Var, Any] = {}

  def write_ct(atom, ct):
    if type(atom) is Literal or ct is None or type(ct) is Zero:
      return
    prev = ct_env.get(atom)
    ct_env[atom] = ct if prev is None else add_tangents(prev, ct)

  for v, ct in zip(jaxpr.outvars, cts_out):
    write_ct(v, ct)

  live = _live_outputs(jaxpr, linear_eqns)
  base, namings = source_info.current_name_stack(), {}
  for eqn in reversed(linear_eqns):
    prim = eqn.primitive
    cts = [ct_env.pop(v, None) for v in eqn.outvars]
    if all(c is None for c in cts) and not (
        prim.transposed_without_cotangents and any(v in live for v in eqn.outvars)):
      continue
    cts = [Zero(tangent_aval(v.aval)) if c is None else c for v, c in zip(eqn.outvars, cts)]
    if prim.transpose is None:
      raise NotImplementedError(
          f"Transpose rule (for reverse-mode differentiation) for '{prim.name}' "
          "not implemented")
    ins = [read_primal(a) for a in eqn.invars]
    named = eqn.source_info.name_stack
    if len(named):  # staged under the current name stack extended by the equation's
      naming = namings.get(id(named))  # (the equations keep their stacks alive)
      if naming is None:
        naming = namings[id(named)] = source_info.naming(base + named)
      prev = source_info.enter(naming)
      try:
        cts_in = prim.transpose(cts if prim.multiple_results else cts[0], *ins, **eqn.params)
      finally:
        source_info.leave(prev)
    else:
      cts_in = prim.transpose(cts if prim.multiple_results else cts[0], *ins, **eqn.params)
    for atom, x, ct in zip(eqn.invars, ins, cts_in):
      if is_undefined(x):
        write_ct(atom, ct)

  out = []
  for v, a in zip(jaxpr.invars, args):
    if is_undefined(a):
      ct = ct_env.get(v)
      out.append(Zero(a.aval) if ct is None else ct)
    else:
      out.append(None)
  return out


@cached_on_jaxpr()
def transpose_closed_jaxpr(closed: ClosedJaxpr, linear: Sequence[bool],
                           linear_avals: Sequence[ShapedArray | None] | None = None,
                           zero_cts: Sequence[bool] | None = None,
                           ct_avals: Sequence[ShapedArray] | None = None) -> ClosedJaxpr:
  """A jaxpr mapping (non-linear inputs, output cotangents) to the linear inputs' cotangents.

  ``linear_avals`` (one per input, ``None`` for the jaxpr's) types the linear inputs where
  their cotangents accumulate into values of other types (a loop carry's cotangent has the
  incoming cotangent's weak type, as in JAX, and rules reading an input's type see it).
  Outputs marked in ``zero_cts`` take no cotangent argument: theirs is a symbolic zero.
  ``ct_avals`` types the cotangent arguments as given (by default, the outputs' tangent
  types): a call's transpose is traced on its cotangents' types, weak types included.
  """
  in_avals = closed.in_avals
  nonlin_avals = [a for a, l in zip(in_avals, linear) if not l]
  zero_cts = zero_cts or [False] * len(closed.out_avals)
  if ct_avals is None:
    ct_avals = [tangent_aval(a) for a, z in zip(closed.out_avals, zero_cts) if not z]
  lin_avals = [b or a for a, b in zip(in_avals, linear_avals or [None] * len(in_avals))]

  def fun(*args):
    nonlin, given = args[:len(nonlin_avals)], iter(args[len(nonlin_avals):])
    cts = [Zero(tangent_aval(a)) if z else next(given)
           for a, z in zip(closed.out_avals, zero_cts)]
    it = iter(nonlin)
    prim_args = [UndefinedPrimal(b) if l else next(it)
                 for b, l in zip(lin_avals, linear)]
    cts_in = backward_pass(closed.jaxpr, closed.consts, prim_args, cts)
    return [instantiate(c) for c, l in zip(cts_in, linear) if l]

  return trace_to_jaxpr(fun, nonlin_avals + ct_avals)


@cached_on_jaxpr()
def jvp_closed_jaxpr(closed: ClosedJaxpr, nonzeros: Sequence[bool],
                     instantiate_out: bool | Sequence[bool] = True):
  """A jaxpr mapping (primals, nonzero tangents) to (primal outs, tangent outs).

  Returns (jaxpr, out_nonzeros).  With ``instantiate_out`` every tangent output is present.
  """
  in_avals = closed.in_avals
  tan_avals = [tangent_aval(a) for a, nz in zip(in_avals, nonzeros) if nz]
  n = len(in_avals)
  n_out = len(closed.out_avals)
  inst = [instantiate_out] * n_out if isinstance(instantiate_out, bool) else instantiate_out
  result = {}

  def fun(*args):
    primals, tans = args[:n], iter(args[n:])
    tangents = [next(tans) if nz else Zero(tangent_aval(a))
                for a, nz in zip(in_avals, nonzeros)]
    out_p, out_t = jvp_flat(lambda *xs: eval_jaxpr(closed.jaxpr, closed.consts, *xs),
                            primals, tangents)
    nz_out = [type(t) is not Zero or i for t, i in zip(out_t, inst)]
    result["nz"] = nz_out
    return list(out_p) + [instantiate(t) for t, nz in zip(out_t, nz_out) if nz]

  jaxpr = trace_to_jaxpr(fun, list(in_avals) + tan_avals)
  return jaxpr, result["nz"]


# ---------------------------------------------------------------------------------------
# Helpers for writing rules

def standard_jvp(prim, rules: Sequence[Callable | None], with_output: bool = False):
  """The JVP rule summing per-argument contributions ``rule(tangent, *primals, **params)``
  (``rule(tangent, out, *primals, **params)`` with ``with_output``: the primal output
  first), in argument order; a ``None`` rule or a Zero tangent contributes nothing."""
  def jvp(primals, tangents, **params):
    out = prim.bind(*primals, **params)
    acc = None
    for rule, t in zip(rules, tangents):
      if rule is None or type(t) is Zero:
        continue
      contribution = (rule(t, out, *primals, **params) if with_output
                      else rule(t, *primals, **params))
      acc = contribution if acc is None else add_tangents(acc, contribution)
    return out, (Zero(tangent_aval(get_aval(out))) if acc is None else acc)
  return jvp


def defjvp(prim, *rules) -> None:
  """Per-argument JVP rules ``rule(tangent, *primals, **params) -> tangent contribution``.

  ``None`` marks an argument that is not differentiable (its tangent is ignored).
  """
  prim.jvp = standard_jvp(prim, rules)


def defjvp2(prim, *rules) -> None:
  """Like ``defjvp``, but each rule also receives the primal output first:
  ``rule(tangent, out, *primals, **params)``."""
  prim.jvp = standard_jvp(prim, rules, with_output=True)


def defbilinear(prim, lhs_rule, rhs_rule) -> None:
  """A primitive ``f(x, y, *rest)`` linear in ``x`` and in ``y`` (``rest``, if any, not
  differentiable): its JVP is ``f(tx, y) + f(x, ty)``, and its transpose gives the
  cotangent of whichever of ``x``, ``y`` is the UndefinedPrimal:
  ``lhs_rule(ct, x, y, *rest, **params)`` or ``rhs_rule(...)``."""
  lhs_jvp = lambda t, x, y, *rest, **params: prim.bind(t, y, *rest, **params)
  rhs_jvp = lambda t, x, y, *rest, **params: prim.bind(x, t, *rest, **params)
  prim.jvp = standard_jvp(prim, (lhs_jvp, rhs_jvp))

  def transpose(ct, x, y, *rest, **params):
    lhs = is_undefined(x)
    if lhs and is_undefined(y):  # (JAX's class: an AssertionError)
      raise AssertionError(f"{prim.name} of two values that both depend on the inputs being "
                           "transposed is not linear in them; transpose (linear_transpose, "
                           "vjp) only a function linear in its inputs.")
    if type(ct) is Zero:
      ct_x = Zero(x.aval) if lhs else None
      ct_y = Zero(y.aval) if is_undefined(y) else None
    else:
      ct_x = lhs_rule(ct, x, y, *rest, **params) if lhs else None
      ct_y = rhs_rule(ct, x, y, *rest, **params) if is_undefined(y) else None
    return [ct_x, ct_y] + [None] * len(rest)
  prim.transpose = transpose


def deflinear(prim, transpose_rule) -> None:
  """A primitive linear in all its inputs: the JVP applies the primitive to the tangents."""
  def jvp(primals, tangents, **params):
    out = prim.bind(*primals, **params)
    if all(type(t) is Zero for t in tangents):
      return out, Zero(tangent_aval(get_aval(out)))
    ts = [instantiate(t) for t in tangents]
    return out, prim.bind(*ts, **params)
  prim.jvp = jvp
  prim.transpose = transpose_rule


def zero_jvp(prim) -> None:
  """A primitive with zero derivative everywhere (comparisons, integer ops, ...)."""
  def jvp(primals, tangents, **params):
    out = prim.bind(*primals, **params)
    if prim.multiple_results:
      return out, [Zero(tangent_aval(get_aval(o))) for o in out]
    return out, Zero(tangent_aval(get_aval(out)))
  prim.jvp = jvp
