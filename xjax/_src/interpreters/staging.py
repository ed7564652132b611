"""Staging: the trace that records primitives into a jaxpr (used by jit, make_jaxpr, and
every transformation that needs a jaxpr of a function: control flow bodies, linearize).
"""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from xjax._src.foundations import dtypes, tree_util
from xjax._src.backend.lowering import user_constant_lowering
from xjax._src.core import leaks, source_info
from xjax._src.core.avals import ShapedArray
from xjax._src.core.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var
from xjax._src.core.trace import (Trace, Tracer, current_trace, escaped_tracer_error,
                                  eval_trace, eval_types, new_trace, set_current_trace)
from xjax._src.foundations.config import config
from xjax._src.core.values import get_aval


class DebugInfo(NamedTuple):
  """What a traced function is and the names of its flattened arguments and results.

  ``traced_for`` names the API tracing it ("jit", "cond", ...); ``func_src_info`` reads
  "name at file:line" (or "<unknown>"); ``arg_names`` and ``result_paths`` are tuples of
  names, or None where unknown; ``result_paths`` may also be a thunk, called once the
  results are known (``resolve_result_paths``).
  """
  traced_for: str
  func_src_info: str | None
  arg_names: tuple[str | None, ...] | None
  result_paths: tuple[str, ...] | Callable[[], tuple[str, ...]] | None

  @property
  def func_name(self) -> str:
    return self.func_src_info.split(" ")[0] if self.func_src_info else "<unknown>"

  def _file_and_line(self) -> tuple[str | None, int | None]:
    _, at, where = (self.func_src_info or "").partition(" at ")
    filename, colon, line = where.rpartition(":")
    if not at or not colon or not line.isdigit():
      return None, None
    return filename, int(line)

  @property
  def func_filename(self) -> str | None:
    return self._file_and_line()[0]

  @property
  def func_lineno(self) -> int | None:
    return self._file_and_line()[1]

  def replace_func_name(self, name: str) -> DebugInfo:
    _, at, where = (self.func_src_info or "").partition(" at ")
    return self._replace(func_src_info=f"{name} at {where}" if at else name)

  def with_unknown_names(self) -> DebugInfo:
    return self._replace(arg_names=None, result_paths=None)

  def resolve_result_paths(self) -> DebugInfo:
    """This DebugInfo with a result-paths thunk replaced by its value."""
    if callable(self.result_paths):
      return self._replace(result_paths=tuple(self.result_paths()))
    return self

  def set_result_paths(self, ans) -> DebugInfo:
    """This DebugInfo naming the leaves of the result ``ans``."""
    return self._replace(result_paths=result_paths_of(ans))

  def assert_arg_names(self, expected_count: int) -> None:
    assert self.arg_names is None or len(self.arg_names) == expected_count, (
        expected_count, self)

  def assert_result_paths(self, expected_count: int) -> None:
    assert self.result_paths is None or (not callable(self.result_paths) and len(
        self.result_paths) == expected_count), (expected_count, self)

  def safe_arg_names(self, expected_count: int) -> tuple[str | None, ...]:
    """The argument names, or ``expected_count`` empty names where they are unknown."""
    self.assert_arg_names(expected_count)
    return tuple(self.arg_names) if self.arg_names is not None else ("",) * expected_count

  def safe_result_paths(self, expected_count: int) -> tuple[str, ...]:
    """The result paths, or ``expected_count`` empty names where they are unknown."""
    self.assert_result_paths(expected_count)
    return (tuple(self.result_paths) if self.result_paths is not None
            else ("",) * expected_count)

  def filter_arg_names(self, keep: Sequence[bool]) -> tuple[str | None, ...] | None:
    if self.arg_names is None:
      return None
    return tuple(n for n, k in zip(self.safe_arg_names(len(keep)), keep) if k)

  def filter_result_paths(self, keep: Sequence[bool]) -> tuple[str, ...] | None:
    if self.result_paths is None:
      return None
    return tuple(n for n, k in zip(self.safe_result_paths(len(keep)), keep) if k)


def result_paths_of(ans) -> tuple[str, ...]:
  """Names of the leaves of a function's result ``ans``: "result", "result[0]", ..."""
  return tuple(f"result{tree_util.keystr(path)}"
               for path, _ in tree_util.tree_flatten_with_path(ans)[0])


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


def fun_source_info(fun) -> str:
  """"name at file:line" for a function (seeing through functools.partial), "<unknown>"
  where Python does not record where it was defined."""
  while isinstance(fun, functools.partial):
    fun = fun.func
  where = fun_source(fun)
  return "<unknown>" if where == "<unknown>" else f"{fun_name(fun)} at {where}"


def make_debug_info(fun, arg_names: Sequence[str] | None, *, traced_for: str = "jit",
                    result_paths=None) -> DebugInfo:
  """The DebugInfo of tracing ``fun`` for ``traced_for``."""
  return DebugInfo(traced_for, fun_source_info(fun),
                   None if arg_names is None else tuple(arg_names), result_paths)



_folding = [config._read("eager_constant_folding")]
config.on_change("eager_constant_folding", lambda v: _folding.__setitem__(0, bool(v)))


def staged_constant(x, made: bool = True):
  """``x`` as a tracer of the current trace where that trace stages (inside ``jit``), as
  JAX's array constructors and jitted functions give: ``jnp.array(...)`` inside a jitted
  function is traced, so it cannot decide Python control flow or a shape. A scalar ``x``
  just ``made`` on the host is a literal, as JAX's constructors make inside a trace; one
  passed through (a concrete array the function closes over) is a constant."""
  trace = current_trace()
  if isinstance(x, Tracer):
    return trace.to_tracer(x) if type(trace) is DynamicJaxprTrace and not _folding[0] else x
  while type(trace) is not DynamicJaxprTrace:  # (a value under vmap or grad inside jit: jit's)
    trace = trace.parent
    if trace is None:
      return x
  if _folding[0]:
    return x
  return DynamicJaxprTracer(trace, trace.to_atom(x, made))


def staged_literal(x):
  """The host scalar a staged tracer stands for when it is a literal (``jnp.array(2.)``
  inside ``jit``), else None: conversions of it fold, as JAX's do."""
  if type(x) is DynamicJaxprTracer and type(x._var) is Literal:
    return x._var.val
  return None


# The constants a jaxpr inlines as literals where they are scalars (JAX's ``literalable``
# types); concrete ``Array``s are not among them.
_LITERAL_TYPES = (int, float, complex, np.generic, np.ndarray)


class DynamicJaxprTracer(Tracer):
  __slots__ = ("_var",)  # (not `var`: that is the array method)

  def __init__(self, trace: "DynamicJaxprTrace", var: Var) -> None:
    self._trace = trace
    self._var = var

  @property
  def aval(self) -> ShapedArray:
    return self._var.aval

  def jax_repr(self) -> str:
    return f"JitTracer({self.aval})"


class DynamicJaxprTrace(Trace):
  """Records each primitive as an equation.  Values from outside become constants.

  Python and NumPy scalars become literals; other values (concrete arrays, or tracers of
  enclosing transformations) become constvars, hoisted by the caller as arguments.
  """
  __slots__ = ("eqns", "invars", "const_vars", "const_values", "debug_info", "effects",
               "name_depth")

  def __init__(self, debug_info: DebugInfo | None = None, parent: Trace | None = None) -> None:
    super().__init__(parent)
    self.eqns: list[JaxprEqn] = []
    self.invars: list[Var] = []
    self.const_vars: dict[int, Var] = {}
    self.const_values: list[tuple[Var, Any]] = []
    self.debug_info = debug_info
    self.effects: set = set()
    # equations are named relative to the name stack the trace began in
    self.name_depth = len(source_info.current_name_stack())

  def __repr__(self) -> str:
    return "DynamicJaxprTrace"

  def new_arg(self, aval: ShapedArray, source_info=None) -> DynamicJaxprTracer:
    """A new input of the jaxpr being traced (``source_info``, JAX's, is taken for its
    signature: xjax records no source locations)."""
    var = Var(aval)
    self.invars.append(var)
    return DynamicJaxprTracer(self, var)

  def to_atom(self, x, made: bool = False):
    """The variable or literal ``x`` is in this trace's jaxpr; a scalar ``made`` on the host
    during this trace (not only a Python or NumPy scalar) is a literal."""
    if isinstance(x, Tracer):
      if x._trace is self:
        return x._var
      if not x._trace.alive:
        raise escaped_tracer_error(x)
      if staged_literal(x) is not None:
        return x._var  # an enclosing trace's literal is inlined, as JAX inlines them
      return self._const_var(x, x.aval)
    aval = get_aval(x)
    if (not aval.shape and (made or isinstance(x, _LITERAL_TYPES)) and type(aval) is ShapedArray
        and not dtypes.is_extended(aval.dtype) and user_constant_lowering(x) is None):
      # Python and NumPy scalars are inlined, as JAX 0.10 does; arrays (``jnp.float32(2)``
      # made outside the trace included), PRNG keys and values of the types libraries
      # lower themselves stay constvars (a Python float or complex is kept as given, so it
      # prints as written, as JAX's)
      return Literal(x if type(x) in (float, complex) else np.asarray(x, dtype=aval.dtype)[()],
                     aval)
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
    if _folding[0] and not any(isinstance(x, Tracer) for x in args):
      with set_current_trace(eval_trace):  # eager_constant_folding: computed now
        return prim.bind_with_trace(eval_trace, args, params)
    if prim.staging is not None:
      return prim.staging(self, args, params)
    return self.record(prim, args, params)

  def record(self, prim, args, params):
    """Records one equation of ``prim`` on ``args``; its output tracer(s)."""
    atoms = [self.to_atom(x) for x in args]
    out, effects = eval_types(prim, [a.aval for a in atoms], params, effects=True)
    out_avals = out if prim.multiple_results else [out]
    outvars = [Var(a) for a in out_avals]
    if effects:
      self.effects |= effects
    self.eqns.append(JaxprEqn(prim, atoms, outvars, params, effects,
                              source_info.staged(self.name_depth)))
    tracers = [DynamicJaxprTracer(self, v) for v in outvars]
    return tracers if prim.multiple_results else tracers[0]

  def inline(self, closed: ClosedJaxpr, args: Sequence[Any]) -> list:
    """Copies ``closed``'s equations onto ``args`` with the types they were traced with (as
    JAX inlines a call: a tangent typed from a weakly typed primal stays weak); its
    output tracers. Equations with a staging rule (a conversion of what is now a literal,
    a nested inline call) are staged again by it."""
    env: dict[Var, Any] = {}
    for v, x in zip(closed.jaxpr.constvars, closed.consts):
      env[v] = self.to_atom(x)
    for v, x in zip(closed.jaxpr.invars, args):
      env[v] = self.to_atom(x)
    read = lambda v: v if isinstance(v, Literal) else env[v]
    for eqn in closed.jaxpr.eqns:
      atoms = [read(v) for v in eqn.invars]
      if eqn.primitive.staging is not None:
        ins = [a.val if isinstance(a, Literal) else DynamicJaxprTracer(self, a) for a in atoms]
        outs = eqn.primitive.staging(self, ins, eqn.params)
        outs = outs if eqn.primitive.multiple_results else [outs]
        env.update((v, o._var) for v, o in zip(eqn.outvars, outs))
        continue
      outvars = [type(v)(v.aval) for v in eqn.outvars]  # (a DropVar stays one)
      env.update(zip(eqn.outvars, outvars))
      if eqn.effects:
        self.effects |= eqn.effects
      here = source_info.staged(self.name_depth)
      source = eqn.source_info
      if here is not None:  # named under the current stack extended by the equation's
        source = source.replace(here.name_stack + source.name_stack)
      self.eqns.append(eqn.replace(invars=atoms, outvars=outvars, source_info=source))
    return [DynamicJaxprTracer(self, read(v)) for v in closed.jaxpr.outvars]

  def to_closed_jaxpr(self, outs: Sequence[Any]) -> ClosedJaxpr:
    outvars = [self.to_atom(x) for x in outs]
    constvars = [v for v, _ in self.const_values]
    consts = [c for _, c in self.const_values]
    info = self.debug_info and self.debug_info.resolve_result_paths()
    jaxpr = Jaxpr(constvars, self.invars, outvars, self.eqns, self.effects, info)
    return ClosedJaxpr(jaxpr, consts)

  # -- error messages ----------------------------------------------------------------------
  def describe_tracer(self, tracer: DynamicJaxprTracer) -> str:
    info = self.debug_info
    if info is None:
      return ""
    deps = self._input_dependencies(tracer._var)
    where = f"While tracing the function {info.func_src_info}"
    if not deps:
      return (f"{where}, this value became a tracer because it was computed by JAX "
              "operations from constants; use NumPy (np) instead of xjax.numpy (jnp) for "
              "values that must stay concrete.\n")
    known = info.arg_names or ()
    names = [known[i] if i < len(known) and known[i] else f"args[{i}]" for i in deps]
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
        f"while tracing the function {debug_info.func_src_info}")
    leaks.check_no_leaks(trace, what)
  return closed
