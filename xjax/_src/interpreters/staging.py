"""Staging: the trace that records primitives into a jaxpr (used by jit, make_jaxpr, and
every transformation that needs a jaxpr of a function: control flow bodies, linearize).
"""
from __future__ import annotations

import inspect
from typing import Any, Callable, Sequence

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.backend.lowering import user_constant_lowering
from xjax._src.core import leaks, source_info
from xjax._src.core.avals import ShapedArray
from xjax._src.core.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var
from xjax._src.core.trace import Trace, Tracer, escaped_tracer_error, new_trace
from xjax._src.core.values import get_aval


class DebugInfo:
  """Where a traced function comes from, and names for its flattened arguments."""
  __slots__ = ("func_name", "func_src", "arg_names")

  def __init__(self, func_name: str, func_src: str, arg_names: Sequence[str]) -> None:
    self.func_name = func_name
    self.func_src = func_src
    self.arg_names = list(arg_names)


def fun_name(fun) -> str:
  name = getattr(fun, "__name__", None)
  if name is None:
    inner = getattr(fun, "func", None)
    name = getattr(inner, "__name__", None) if inner is not None else None
  return name or type(fun).__name__


def fun_source(fun) -> str:
  try:
    code = inspect.unwrap(fun).__code__
    return f"{code.co_filename}:{code.co_firstlineno}"
  except (AttributeError, ValueError):
    return "<unknown>"


def make_debug_info(fun, arg_names: Sequence[str]) -> DebugInfo:
  return DebugInfo(fun_name(fun), fun_source(fun), arg_names)


_NO_EFFECTS = frozenset()


class DynamicJaxprTracer(Tracer):
  __slots__ = ("var",)

  def __init__(self, trace: "DynamicJaxprTrace", var: Var) -> None:
    self._trace = trace
    self.var = var

  @property
  def aval(self) -> ShapedArray:
    return self.var.aval

  def jax_repr(self) -> str:
    return f"JitTracer({self.aval})"


class DynamicJaxprTrace(Trace):
  """Records each primitive as an equation.  Values from outside become constants.

  Python and NumPy scalars become literals; other values (concrete arrays, or tracers of
  enclosing transformations) become constvars, hoisted by the caller as arguments.
  """
  __slots__ = ("eqns", "invars", "const_vars", "const_values", "debug_info", "effects")

  def __init__(self, debug_info: DebugInfo | None = None, parent: Trace | None = None) -> None:
    super().__init__(parent)
    self.eqns: list[JaxprEqn] = []
    self.invars: list[Var] = []
    self.const_vars: dict[int, Var] = {}
    self.const_values: list[tuple[Var, Any]] = []
    self.debug_info = debug_info
    self.effects: set = set()

  def __repr__(self) -> str:
    return "DynamicJaxprTrace"

  def new_arg(self, aval: ShapedArray) -> DynamicJaxprTracer:
    var = Var(aval)
    self.invars.append(var)
    return DynamicJaxprTracer(self, var)

  def to_atom(self, x):
    if isinstance(x, Tracer):
      if x._trace is self:
        return x.var
      if not x._trace.alive:
        raise escaped_tracer_error(x)
      return self._const_var(x, x.aval)
    aval = get_aval(x)
    if (not aval.shape and type(aval) is ShapedArray and not dtypes.is_extended(aval.dtype)
        and user_constant_lowering(x) is None):
      # scalars are inlined, as JAX does (PRNG keys, and values of the types libraries
      # lower themselves, stay constvars)
      return Literal(np.asarray(x, dtype=aval.dtype)[()], aval)
    return self._const_var(x, aval)

  def to_tracer(self, x) -> DynamicJaxprTracer:
    """``x`` as one of this trace's tracers (a constant or literal where it is a value)."""
    if isinstance(x, DynamicJaxprTracer) and x._trace is self:
      return x
    return DynamicJaxprTracer(self, self.to_atom(x))

  def _const_var(self, x, aval: ShapedArray) -> Var:
    var = self.const_vars.get(id(x))
    if var is None:
      var = self.const_vars[id(x)] = Var(aval)
      self.const_values.append((var, x))
    return var

  def process_primitive(self, prim, args, params):
    if prim.staging is not None:
      return prim.staging(self, args, params)
    return self.record(prim, args, params)

  def record(self, prim, args, params):
    """Records one equation of ``prim`` on ``args``; its output tracer(s)."""
    atoms = [self.to_atom(x) for x in args]
    if prim.effectful_abstract_eval is None:
      out = prim.abstract_eval(*[a.aval for a in atoms], **params)
      effects = _NO_EFFECTS if prim.effects is None else frozenset(prim.effects(**params))
    else:
      out, effects = prim.effectful_abstract_eval(*[a.aval for a in atoms], **params)
    out_avals = out if prim.multiple_results else [out]
    outvars = [Var(a) for a in out_avals]
    if effects:
      self.effects |= effects
    self.eqns.append(JaxprEqn(prim, atoms, outvars, params, effects,
                              source_info.current() if source_info.active else None))
    tracers = [DynamicJaxprTracer(self, v) for v in outvars]
    return tracers if prim.multiple_results else tracers[0]

  def to_closed_jaxpr(self, outs: Sequence[Any]) -> ClosedJaxpr:
    outvars = [self.to_atom(x) for x in outs]
    constvars = [v for v, _ in self.const_values]
    consts = [c for _, c in self.const_values]
    jaxpr = Jaxpr(constvars, self.invars, outvars, self.eqns, self.effects, self.debug_info)
    return ClosedJaxpr(jaxpr, consts)

  # -- error messages ----------------------------------------------------------------------
  def describe_tracer(self, tracer: DynamicJaxprTracer) -> str:
    info = self.debug_info
    if info is None:
      return ""
    deps = self._input_dependencies(tracer.var)
    where = f"While tracing the function {info.func_name} at {info.func_src}"
    if not deps:
      return (f"{where}, this value became a tracer because it was computed by JAX "
              "operations from constants; use NumPy (np) instead of xjax.numpy (jnp) for "
              "values that must stay concrete.\n")
    names = [info.arg_names[i] if i < len(info.arg_names) else f"args[{i}]" for i in deps]
    which = ", ".join(names)
    noun = "argument" if len(names) == 1 else "arguments"
    return (f"{where}, this concrete value was not available in Python because it depends "
            f"on the value of the {noun} {which}, and the computation of these values is "
            "being staged out (that is, delayed rather than executed eagerly).\n")

  def _input_dependencies(self, var: Var) -> list[int]:
    positions = {v: i for i, v in enumerate(self.invars)}
    producers = {}
    for eqn in self.eqns:
      for o in eqn.outvars:
        producers[o] = eqn
    seen, stack, found = set(), [var], set()
    while stack:
      v = stack.pop()
      if v in seen or type(v) is Literal:
        continue
      seen.add(v)
      if v in positions:
        found.add(positions[v])
      eqn = producers.get(v)
      if eqn is not None:
        stack.extend(a for a in eqn.invars if type(a) is not Literal)
    return sorted(found)


def trace_to_jaxpr(fun: Callable, in_avals: Sequence[ShapedArray],
                   debug_info: DebugInfo | None = None) -> tuple[ClosedJaxpr, Any]:
  """Traces ``fun(*tracers) -> list of outputs`` to a ClosedJaxpr."""
  trace = DynamicJaxprTrace(debug_info)
  with new_trace(trace):
    args = [trace.new_arg(a) for a in in_avals]
    outs = fun(*args)
    closed = trace.to_closed_jaxpr(outs)
  if leaks.checking():
    del args, outs
    what = "staging" if debug_info is None else (
        f"while tracing the function {debug_info.func_name} at {debug_info.func_src}")
    leaks.check_no_leaks(trace, what)
  return closed
