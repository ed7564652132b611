"""Primitives, traces and tracers: the interpreter machinery every transformation uses.

A transformation is a ``Trace``.  ``prim.bind(*args)`` hands the primitive to the current
trace, which interprets it (evaluate, record, differentiate, batch).  A trace that needs
to compute on its inputs' underlying values does so with its *parent* trace current, so
transformations nest without a global level counter ("stackless" design).
"""
from __future__ import annotations

import os
import sys
import threading
import types
from collections import namedtuple
from contextlib import contextmanager
from typing import Any, Callable, Sequence


from xjax._src.foundations import errors
from xjax._src.foundations.config import config
from xjax._src.foundations.sharding import get_abstract_mesh
from xjax._src.core.jaxpr_cache import bounded_put
from xjax._src.core import varying
from xjax._src.core.avals import ShapedArray, sharded_types, varying_types


class Primitive:
  """A named operation.  Its rules live beside its definition in ``xjax/_src/primitives/lax``.

  - ``abstract_eval(*avals, **params)``: output aval(s); raises on bad input.
  - ``lowering(ctx, *operands, **params)``: emits StableHLO (see backend/lowering.py).
  - ``jvp(primals, tangents, **params)``: (primal_out, tangent_out); tangents may be Zero.
  - ``transpose(cts, *args, **params)``: cotangents of the linear (UndefinedPrimal) args.
  - ``batch(args, dims, **params)``: (out, out_dim) for vmap.
  - ``vma_rule(*avals, **params)``: optional; the manual mesh axes the result (a list of
    them with multiple results) varies over in a shard_map body, for a collective; without
    one, results vary as the operands do (see ``core/varying.py``).
  - ``host_kernel(avals, out_avals, **params)``: optional; a function of NumPy arrays that
    computes the primitive for those types bit for bit as XLA:CPU does, or None where
    NumPy would differ (see ``execution/host_eval.py``).
  - ``impl``: eager evaluation.  The default, a compiled one-primitive program, is
    installed on the class by the executor (``dispatch.py``), so primitive definitions
    never import the executor; a primitive may set its own.
  - ``partial_eval``: optional rule for higher-order primitives (known/unknown split).
  - ``staging(trace, args, params)``: optional; what a staging trace records for the
    primitive instead of its one equation (an inlined ``jit`` records its body's).
  - ``dce(used_outputs, eqn) -> eqn``: optional dead-code rule, an equivalent equation for
    one only some of whose outputs are used (``checkpoint``'s DCE asks it).
  - ``physical_lowering``: the lowering used when an operand or result has an extended
    dtype (PRNG keys), for structural primitives whose attributes name dimensions: keys
    are stored with trailing dimensions (see ``core.avals.physical_aval``).
  - ``lower_transposed(ctx, *operands, permutation, **params)``: optional; emits the
    primitive's result already transposed by ``permutation`` (``ctx.avals_out`` is the
    transposed type), or returns None. Lowering asks it when the only use of the result is
    a ``transpose`` (the vmapped gradients of matmuls end so), which then costs nothing.
  - ``discharge``: a state primitive's rule for running it on plain values (see
    ``primitives/state/discharge.py``); ``discharge_call``, that of a call whose body
    may take refs.

  ``ATTRIBUTES`` lists every attribute a primitive has; ``RULES`` those of them that are
  rules, each set once (where the primitive is built, or by one ``ad.defjvp``-style
  helper right after).  With ``XJAX_CHECK_RULE_DECLARATIONS=1`` in the environment,
  setting an undeclared attribute raises and setting a rule a second time is recorded in
  ``rules_set_twice`` (a test checks both).
  """
  RULES = ("abstract_eval", "effectful_abstract_eval", "sharding_rule", "vma_rule",
           "host_kernel", "impl",
           "lowering", "physical_lowering", "lower_transposed", "jvp", "transpose", "batch", "partial_eval", "staging", "dce",
           "discharge", "discharge_call", "effects", "pp_params", "pp_eqn")
  ATTRIBUTES = RULES + ("name", "multiple_results", "hidden_params", "pp_alias_jaxpr",
                        "is_collective", "ref_allocating", "call_primitive", "types_cached",
                        "transposed_without_cotangents", "names_shared_jaxprs")

  # Class-level defaults (a subclass or an instance may override them):
  multiple_results = False
  impl: Callable  # see the docstring
  # (avals, **params) -> (out avals, effects), for effects that depend on the operands'
  # types (``def_effectful_abstract_eval``); staging then uses it instead of ``effects``.
  effectful_abstract_eval: Callable | None = None
  # (avals, **params) -> the sharding in the type of the result (a NamedSharding over the
  # abstract mesh, or None: unsharded), or a list of them with multiple results; asked only
  # when an operand's type is sharded (over Explicit mesh axes). Without one, results are
  # unsharded.
  sharding_rule: Callable | None = None
  vma_rule: Callable | None = None  # see the docstring
  host_kernel: Callable | None = None  # see the docstring
  lower_transposed: Callable | None = None  # see the docstring
  ref_allocating = False  # makes a mutable ref (the JVP trace always runs its rule)
  call_primitive = False  # JAX's flag: calls the jaxpr in its `call_jaxpr` (CallPrimitive)
  # Its shape rule is a function of the operand types and parameters alone (no context: axis
  # names, meshes), so ``eval_types`` may remember its results.
  types_cached = False
  pp_eqn: Callable | None = None  # prints an equation its own way (see core/jaxpr.py)

  def __init__(self, name: str, multiple_results: bool = False) -> None:
    self.name = name
    self.multiple_results = multiple_results
    self.lowering: Callable | None = None
    self.jvp: Callable | None = None
    self.transpose: Callable | None = None
    self.batch: Callable | None = None
    self.partial_eval: Callable | None = None
    self.staging: Callable | None = None
    self.dce: Callable | None = None
    self.physical_lowering: Callable | None = None
    self.discharge: Callable | None = None
    self.discharge_call: Callable | None = None
    self.effects: Callable | None = None   # params -> set of effects of one equation
    self.pp_params: Callable | None = None  # params -> the (name, value) pairs printed
    self.hidden_params: frozenset = frozenset()  # params the jaxpr printer leaves out
    self.pp_alias_jaxpr: str | None = None  # a jaxpr param printed with the eqn's names
    # whether a ``name`` parameter names the eqn's jaxprs where the printer shows them once
    # ahead of the jaxpr (JAX's heuristic; its custom calls keep the name elsewhere)
    self.names_shared_jaxprs = True
    self.is_collective = False  # binds to a named axis (batching runs it unbatched too)
    # transposed even when no cotangent reaches its outputs (custom_vjp's bwd runs then, as
    # in JAX: its results need not be zero)
    self.transposed_without_cotangents = False

  def bind(self, *args, **params):
    if varying.regions[0]:  # (in a shard_map body: operands made to vary alike)
      args = varying.match_operands(self, args)
    try:
      return _ctx.trace.process_primitive(self, args, params)
    except TypeError as e:  # an operand of no JAX type (``values.get_aval`` names it)
      bad = next((i for i, a in enumerate(args) if a is getattr(e, "invalid_value", args)),
                 None)
      if bad is None:
        raise
      raise TypeError(f"Error interpreting argument to {self} as a JAX value. The problematic "
                      f"value is of type {type(args[bad])} and was passed to {self} at "
                      f"position {bad}.\n") from e

  def bind_with_trace(self, trace: "Trace", args, *avals_params):
    """Has ``trace`` interpret this primitive on ``args``. JAX 0.10's form passes the
    operands' types too, ``(trace, args, avals, params)``; they are the operands'."""
    return trace.process_primitive(self, args, avals_params[-1])

  def abstract_eval(self, *avals, **params):  # replaced by each primitive's shape rule
    raise NotImplementedError(f"Abstract evaluation for '{self.name}' not implemented")

  # -- JAX's way of setting rules (``jax.extend.core.Primitive``) --------------------------
  def def_impl(self, impl: Callable) -> Callable:
    """Sets the eager evaluation rule, ``impl(*args, **params)``."""
    self.impl = impl
    return impl

  def def_abstract_eval(self, abstract_eval: Callable) -> Callable:
    """Sets the shape rule, ``abstract_eval(*avals, **params)`` returning ShapedArray(s);
    a result of the wrong kind raises an error naming this primitive."""
    self.abstract_eval = _checked_abstract_eval(self, abstract_eval)
    return abstract_eval

  def def_effectful_abstract_eval(self, effectful_abstract_eval: Callable) -> Callable:
    """Sets a shape rule returning ``(avals, effects)``: staging records the effects on
    the equation (and its jaxpr), which is then never dropped as dead code."""
    def with_effects(*avals, **params):
      out, effects = effectful_abstract_eval(*avals, **params)
      return _checked_out(self, out), frozenset(effects)
    self.effectful_abstract_eval = with_effects
    self.abstract_eval = lambda *avals, **params: with_effects(*avals, **params)[0]
    return effectful_abstract_eval

  def __repr__(self) -> str:
    return self.name


def eval_types(prim: Primitive, avals: Sequence, params: dict, effects: bool = False):
  """The result type(s) of ``prim`` on operands of types ``avals``: its shape rule's, with
  the shardings its sharding rule gives where an operand's type is sharded or a
  ``sharding`` or ``out_sharding`` parameter asks for one (then also
  checked there: ShardingTypeError where the result's sharding would be ambiguous). With
  ``effects``, ``(types, effects)`` (from the effectful shape rule when it has one).
  A ``types_cached`` primitive's types are remembered (once a type is sharded, per
  abstract mesh too: sharding rules may read the context's)."""
  if not prim.types_cached:
    return _eval_types(prim, avals, params, effects)
  try:
    key = (prim, effects, config._trace_token, len(avals), *avals, *params.items())
    if sharded_types[0]:
      key = (get_abstract_mesh(), *key)
    hit = _types.get(key)
  except TypeError:  # unhashable parameters
    return _eval_types(prim, avals, params, effects)
  if hit is None:
    hit = _eval_types(prim, avals, params, effects)
    bounded_put(_types, key, hit, 4096)
  if prim.multiple_results:  # (a list the caller may change)
    return (list(hit[0]), hit[1]) if effects else list(hit)
  return hit


_types: dict = {}  # (primitive, effects?, config, avals, params) -> eval_types' result


def _eval_types(prim: Primitive, avals: Sequence, params: dict, effects: bool):
  if prim.effectful_abstract_eval is not None:
    out, found = prim.effectful_abstract_eval(*avals, **params)
  else:
    out = prim.abstract_eval(*avals, **params)
    found = None
  if (params.get("sharding") is not None or params.get("out_sharding") is not None  # asked for
      or sharded_types[0] and any(getattr(a, "_sharding", None) is not None for a in avals)):
    out = _with_type_shardings(prim, avals, out, params)
  if varying_types[0] and varying.active(avals):
    out = varying.with_result_vma(prim, avals, out, params)
  if not effects:
    return out
  if found is None:
    found = _NO_EFFECTS if prim.effects is None else frozenset(prim.effects(**params))
  return out, found


_NO_EFFECTS = frozenset()


def _with_type_shardings(prim: Primitive, avals, out, params):
  rule = prim.sharding_rule
  if rule is None:  # the shape rule's types (a call's: its body's) as they are
    return out
  outs = list(out) if prim.multiple_results else [out]
  shardings = rule(*avals, **params)
  if not prim.multiple_results:
    shardings = [shardings]
  typed = [_typed(o, s, avals) for o, s in zip(outs, shardings)]
  return typed if prim.multiple_results else typed[0]


def _typed(aval, sharding, operands=()):
  """``aval`` with the type sharding ``sharding`` (None: unsharded): an operand's type
  when it is that type (elementwise results mostly are), else a new one."""
  if type(aval) is not ShapedArray or aval._sharding is sharding:
    return aval
  for a in operands:
    if (type(a) is ShapedArray and a._sharding is sharding and a.shape == aval.shape
        and a.dtype == aval.dtype and a.weak_type == aval.weak_type and a._vma == aval._vma):
      return a
  return aval.update(sharding=sharding)


def _checked_abstract_eval(prim: Primitive, rule: Callable) -> Callable:
  def abstract_eval(*avals, **params):
    return _checked_out(prim, rule(*avals, **params))
  return abstract_eval


def _checked_out(prim: Primitive, out):
  """``out`` when it is what ``prim``'s shape rule must return; else a TypeError."""
  if prim.multiple_results:
    ok = isinstance(out, (tuple, list)) and all(isinstance(a, ShapedArray) for a in out)
    expected = "a sequence of ShapedArray (multiple_results=True)"
  else:
    ok = isinstance(out, ShapedArray)
    expected = "a ShapedArray (set multiple_results=True to return several)"
  if not ok:
    raise TypeError(f"The abstract evaluation rule of primitive '{prim.name}' returned "
                    f"{out!r}; expected {expected}.")
  return out


# Rules set a second time, as (primitive, rule, "file:line"): recorded while
# XJAX_CHECK_RULE_DECLARATIONS=1 (see Primitive; tests/primitives/test_rule_declarations.py).
rules_set_twice: list[tuple[str, str, str]] = []


def _set_declared_once(prim: Primitive, name: str, value) -> None:
  """``Primitive.__setattr__`` under ``XJAX_CHECK_RULE_DECLARATIONS=1``."""
  if name not in Primitive.ATTRIBUTES:
    raise AttributeError(f"Primitive '{prim.name}' has no attribute '{name}': a primitive's "
                         "attributes are those Primitive.ATTRIBUTES declares.")
  if name in Primitive.RULES and value is not None:
    old = vars(prim).get(name)
    if old is not None and old is not value:
      caller = sys._getframe(1)
      rules_set_twice.append((prim.name, name,
                              f"{caller.f_code.co_filename}:{caller.f_lineno}"))
  object.__setattr__(prim, name, value)


if os.environ.get("XJAX_CHECK_RULE_DECLARATIONS") == "1":
  Primitive.__setattr__ = _set_declared_once


# ---------------------------------------------------------------------------------------
# Traces

class Trace:
  """An interpreter for primitives.  Subclasses implement ``process_primitive``."""
  __slots__ = ("parent", "alive", "__weakref__")
  # Whether the class is defined outside xjax: a custom interpreter written against JAX's
  # trace protocol (quax's), which sees calls as JAX's traces would.
  defined_outside_xjax = False

  def __init_subclass__(cls, **kwargs) -> None:
    super().__init_subclass__(**kwargs)
    cls.defined_outside_xjax = not cls.__module__.startswith("xjax.")

  def __init__(self, parent: "Trace | None" = None) -> None:
    self.parent = parent
    self.alive = True

  def process_primitive(self, prim: Primitive, args: Sequence[Any], params: dict):
    raise NotImplementedError(type(self).__name__)

  def invalidate(self) -> None:
    self.alive = False

  def is_valid(self) -> bool:
    """Whether the transformation is still running (JAX's name for ``alive``)."""
    return self.alive

  def full_raise(self, value):
    """``value`` as it is (JAX's older API: a trace took in lower tracers with it)."""
    return value

  @property
  def main(self) -> "Trace":
    """What identifies this transformation (JAX's older API; ``x._trace.main is main``)."""
    return self

  def __repr__(self) -> str:
    return type(self).__name__


class _TraceContext(threading.local):
  def __init__(self) -> None:
    self.trace: Trace = eval_trace


class set_current_trace:
  """``with set_current_trace(trace):`` makes ``trace`` current for the block (a class, not
  a generator: transformations enter one for nearly every primitive they process)."""
  __slots__ = ("_trace", "_prev")

  def __init__(self, trace: Trace) -> None:
    self._trace = trace

  def __enter__(self) -> Trace:
    ctx = _ctx
    self._prev = ctx.trace
    ctx.trace = self._trace
    return self._trace

  def __exit__(self, *exc) -> None:
    _ctx.trace = self._prev


@contextmanager
def new_trace(trace: Trace):
  """Makes ``trace`` current for the block, then marks it dead so leaked tracers error."""
  ctx = _ctx
  prev = ctx.trace
  ctx.trace = trace
  try:
    yield trace
  finally:
    ctx.trace = prev
    trace.invalidate()


def current_trace() -> Trace:
  return _ctx.trace


# ---------------------------------------------------------------------------------------
# Tracers

# Declared on a type (an abstract value's class) for its traced values: ``tracer.name``
# calls ``fget(tracer)``, ``tracer.name(...)`` calls ``fun(tracer, ...)``.
aval_property = namedtuple("aval_property", ["fget"])
aval_method = namedtuple("aval_method", ["fun"])


class Tracer:
  """A stand-in for an array while a transformation runs.

  Tracers share ``Array``'s operators and methods (attached by xjax.numpy), so user code
  cannot tell them apart except where JAX says it can: printing, and conversion to Python
  or NumPy values, which needs a concrete value.
  """
  __slots__ = ("_trace", "_aval", "__weakref__")  # (libraries cache on tracers weakly)
  __array_priority__ = 1000

  def __init__(self, trace: "Trace", aval) -> None:
    """JAX's constructor, for the tracers of traces that libraries define (custom
    interpreters); xjax's own tracers have their own and derive their type."""
    self._trace = trace
    self._aval = aval

  @property
  def aval(self) -> ShapedArray:
    try:
      return self._aval
    except AttributeError:
      raise NotImplementedError(f"{type(self).__name__} defines no aval") from None

  @aval.setter
  def aval(self, aval) -> None:
    self._aval = aval

  def to_concrete_value(self):
    """The concrete value this tracer stands for, or None when it is abstract."""
    return None

  # -- static facts ----------------------------------------------------------------------
  @property
  def shape(self):
    return self.aval.shape

  @property
  def dtype(self):
    return self.aval.dtype

  @property
  def ndim(self):
    return self.aval.ndim

  @property
  def size(self):
    return self.aval.size

  @property
  def weak_type(self):
    return self.aval.weak_type

  def __len__(self) -> int:
    if not self.aval.shape:
      raise TypeError("len() of unsized object")
    return self.aval.shape[0]

  # -- conversions to Python values need a concrete value --------------------------------
  def _concrete_or_raise(self, error_cls):
    value = self.to_concrete_value()
    if value is None:
      raise error_cls(self, _describe_tracer(self))
    return value

  def __bool__(self) -> bool:
    return bool(self._concrete_or_raise(errors.TracerBoolConversionError))

  def __int__(self) -> int:
    return int(self._concrete_or_raise(errors.ConcretizationTypeError))

  # float(), complex(), NumPy conversion and tolist() never read a tracer's concrete
  # value, even under an eager grad (as JAX 0.10): astype or int() do where it is known.
  def __float__(self) -> float:
    raise errors.ConcretizationTypeError(self, _conversion_context(float))

  def __complex__(self) -> complex:
    raise errors.ConcretizationTypeError(self, _conversion_context(complex))

  def __index__(self) -> int:
    return self._concrete_or_raise(errors.TracerIntegerConversionError).__index__()

  def __array__(self, dtype=None, copy=None):
    raise errors.TracerArrayConversionError(self, _describe_tracer(self))

  def item(self, *args):
    return self._concrete_or_raise(errors.ConcretizationTypeError).item(*args)

  def tolist(self):
    raise errors.ConcretizationTypeError(self, _describe_tracer(self))

  def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
    raise errors.ConcretizationTypeError(
        self, f"The __dlpack__() method was called on traced array with shape "
              f"{self.aval.str_short(short_dtypes=False)}.\n{_describe_tracer(self)}")

  def tobytes(self, order="C"):
    raise errors.ConcretizationTypeError(self, _unavailable(self, "The tobytes() method"))

  # -- jax.Array's placement API: only concrete arrays are placed ------------------------
  dimension_as_value = None   # (not a symbolic dimension)

  @property
  def sharding(self):
    raise AttributeError(_no_sharding_message(self))

  @property
  def device(self):
    raise AttributeError(f"{type(self).__name__} has no attribute device")

  committed = property(lambda self: _concrete_only(self, "The 'committed' attribute",
                                                   " is not available on "))
  addressable_shards = property(lambda self: _concrete_only(
      self, "The 'addressable_shards' attribute", " is not available on "))
  global_shards = property(lambda self: _concrete_only(self, "The global_shards property"))
  is_fully_addressable = property(lambda self: _concrete_only(
      self, "The is_fully_addressable property"))
  is_fully_replicated = property(lambda self: _concrete_only(
      self, "The is_fully_replicated property"))
  traceback = property(lambda self: _concrete_only(self, "The traceback property"))

  def addressable_data(self, index):
    _concrete_only(self, "The addressable_data() method")

  def delete(self):
    _concrete_only(self, "The delete() method")

  def devices(self):
    _concrete_only(self, "The devices() method")

  def is_deleted(self):
    _concrete_only(self, "The is_deleted() method")

  def on_device_size_in_bytes(self):
    _concrete_only(self, "The on_device_size_in_bytes() method")

  def unsafe_buffer_pointer(self):
    _concrete_only(self, "The unsafe_buffer_pointer() method")

  def full_lower(self):
    """This tracer (JAX's older API, kept for libraries that call it)."""
    return self

  def get_referent(self):
    """The object that identifies this value (``core.get_referent``): the tracer itself."""
    return self

  __hash__ = None  # (as JAX's tracers: not Hashable, "unhashable type: 'JVPTracer'")

  def __getattr__(self, name):
    # Attributes a type declares for its traced values (``aval_method``/``aval_property``,
    # used by high-level types, jax.experimental.hijax); only names not found otherwise.
    if (name in ("aval", "_aval", "_trace") or name.startswith("__")
        or name in getattr(type(self), "__slots__", ())):   # (an unset field)
      raise AttributeError(name)
    if name == "sharding":
      raise AttributeError(_no_sharding_message(self))
    if name in ("block_until_ready", "copy_to_host_async"):
      raise AttributeError(_unavailable(self, f"The '{name}' method", " is not available on "))
    attr = getattr(self.aval, name, None)
    if type(attr) is aval_property:
      return attr.fget(self)
    if type(attr) is aval_method:
      return types.MethodType(attr.fun, self)
    raise AttributeError(f"{type(self).__name__} has no attribute {name}")

  def __setitem__(self, idx, value):
    setitem = getattr(self.aval, "_setitem", None)   # a traced mutable ref's type has one
    if setitem is None:
      raise TypeError(_immutable_message())
    setitem(self, idx, value)

  def __iter__(self):
    if not self.aval.shape:
      raise TypeError("iteration over a 0-d array")
    return (self[i] for i in range(self.aval.shape[0]))

  def __repr__(self) -> str:
    if config._values["jax_tracer_repr"] == "jax":
      return self.jax_repr()
    return f"Traced<{self.aval!r}>with<{self._trace!r}>"

  def jax_repr(self) -> str:
    """The tracer as JAX 0.10 prints it (``jax_tracer_repr="jax"``)."""
    return f"{type(self).__name__}({self.aval})"

  def __str__(self) -> str:
    return repr(self)

  def __format__(self, spec) -> str:
    if spec:
      raise TypeError(f"unsupported format string passed to {type(self).__name__}.__format__")
    return repr(self)

  def __reduce__(self):
    raise TypeError("Tracers cannot be pickled; pickle concrete arrays outside "
                    "transformations instead.")

  def __copy__(self):
    return self

  def __deepcopy__(self, memo):
    return self


def _immutable_message() -> str:
  return ("JAX arrays are immutable and do not support in-place item assignment. Instead of "
          "x[idx] = y, use x = x.at[idx].set(y) or another .at[] method: "
          "https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html")


def _conversion_context(fun) -> str:
  return (f"The problem arose with the `{fun.__name__}` function. If trying to convert the "
          f"data type of a value, try using `x.astype({fun.__name__})` or "
          f"`jnp.array(x, {fun.__name__})` instead.\n")


def _unavailable(tracer: Tracer, what: str, verb: str = " was called on ") -> str:
  """JAX's message for ``what`` (an Array attribute) used on ``tracer``."""
  return (f"{what}{verb}traced array with shape {tracer.aval.str_short(short_dtypes=False)}."
          f"\n{_describe_tracer(tracer)}")


def _concrete_only(tracer: Tracer, what: str, verb: str = " was called on "):
  raise errors.ConcretizationTypeError(tracer, _unavailable(tracer, what, verb))


def _no_sharding_message(tracer: Tracer) -> str:
  return (f"The 'sharding' attribute is not available on traced array with shape "
          f"{tracer.aval.str_short(short_dtypes=False)}. To query sharding information on "
          "tracers, use `jax.typeof(x)`.")


def _describe_tracer(tracer: Tracer) -> str:
  describe = getattr(tracer._trace, "describe_tracer", None)
  try:
    return describe(tracer) if describe is not None else ""
  except Exception:  # describing is best effort; never mask the real error
    return ""


def is_tracer(x) -> bool:
  return isinstance(x, Tracer)


# ---------------------------------------------------------------------------------------
# Eager evaluation

class EvalTrace(Trace):
  """The bottom trace: runs each primitive at once (``impl``) on concrete values."""
  __slots__ = ()

  def process_primitive(self, prim, args, params):
    for x in args:
      if isinstance(x, Tracer):
        raise escaped_tracer_error(x, prim)
    return prim.impl(*args, **params)

  def invalidate(self) -> None:  # the eval trace lives forever
    pass


def escaped_tracer_error(tracer: Tracer, prim: Primitive | None = None):
  where = f" while evaluating {prim.name}" if prim is not None else ""
  state = "has finished" if not tracer._trace.alive else "is not active here"
  return errors.UnexpectedTracerError(
      f"Encountered an unexpected tracer{where}: {tracer!r}. The transformation that "
      f"created it ({tracer._trace!r}) {state}.")


eval_trace = EvalTrace()
_ctx = _TraceContext()
