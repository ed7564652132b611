"""``custom_jvp`` and ``custom_vjp``: user-defined derivative rules.

Calling a decorated function traces it to a jaxpr and binds a call primitive
(``custom_jvp_call`` / ``custom_vjp_call``) that carries the user's rules as flat Python
callables.  Evaluation, lowering and batching treat the call like ``jit``; the JVP rule
runs the user's rule instead of differentiating the body.  For ``custom_vjp`` the JVP rule
runs ``fwd`` and emits ``custom_lin``, a primitive linear in the tangents whose transpose
rule runs ``bwd``.
"""
from __future__ import annotations

import functools
import inspect
from typing import Callable

from xjax._src.execution.compiled_jaxprs import call_primitive
from xjax._src.foundations import dtypes, tree_util
from xjax._src.foundations.errors import api_boundary
from xjax._src.execution.array import Array, make_array
from xjax._src.core import varying
from xjax._src.core.avals import mismatch, tangent_aval, vma_of
from xjax._src.core.dce import dce_jaxpr
from xjax._src.core.jaxpr import ClosedJaxpr, Jaxpr, Var, eval_jaxpr
from xjax._src.core.trace import (Primitive, Tracer, current_trace, eval_trace,
                                  set_current_trace)
from xjax._src.core.typed_ndarray import TYPED_SCALARS, typed_value
from xjax._src.core.values import get_aval
from xjax._src.interpreters import ad, array_builders as build, batching
from xjax._src.interpreters import linear_util as lu
from xjax._src.interpreters.ad import JVPTrace, PartialEvalTrace, Zero
from xjax._src.interpreters.batching import BatchTrace
from xjax._src.interpreters.higher_order import hoist, trace_hoisted
from xjax._src.interpreters.staging import fun_name, staged_constant, trace_to_jaxpr
from xjax._src.primitives.state.discharge import discharged_body
from xjax._src.foundations.wrapping import update_wrapper


# ---------------------------------------------------------------------------------------
# Shared plumbing

def _resolve_args(fun, args, kwargs):
  """The arguments as positional ones, defaults filled in (as JAX: nondiff_argnums may
  name a parameter left to its default); a functools.partial's signature is opaque."""
  if not kwargs and isinstance(fun, functools.partial):
    return tuple(args)
  try:
    signature = inspect.signature(fun)
  except (TypeError, ValueError):   # builtins without a signature
    if kwargs:
      raise
    return tuple(args)
  bound = signature.bind(*args, **kwargs)
  bound.apply_defaults()
  return tuple(bound.args)


def _split_nondiff(args, nondiff_argnums):
  n = len(args)
  nondiff = sorted({i % n for i in nondiff_argnums})
  statics = [args[i] for i in nondiff]
  dyn = tuple(a for i, a in enumerate(args) if i not in nondiff)
  return nondiff, statics, dyn


def _merge(nondiff, statics, dyn):
  out, it = list(dyn), iter(zip(nondiff, statics))
  for i, v in it:
    out.insert(i, v)
  return out


def _as_array(x):
  """``x`` as an array (inside jit a literal of it, as JAX's rules see one)."""
  return x if isinstance(x, (Array, Tracer)) else staged_constant(make_array(x))


_PY_SCALARS = (bool, int, float, complex)


def forward_to_fun(self, name):
  """``__getattr__`` of the custom-rule wrappers: other attributes are the function's (so
  wrappers stack, as ``custom_vjp`` over ``custom_vmap``)."""
  fun = self.__dict__.get("fun")
  if fun is None:
    raise AttributeError(name)
  return getattr(fun, name)


def _trace_call(fun, nondiff, statics, dyn):
  """(hoisted jaxpr, consts, in_tree, leaves, out_tree box) for fun at ``dyn``."""
  leaves, in_tree = tree_util.tree_flatten(dyn)
  leaves = [_as_array(x) for x in leaves]
  out_tree = []

  def flat(*xs):
    out = fun(*_merge(nondiff, statics, tree_util.tree_unflatten(in_tree, xs)))
    out_leaves, tree = tree_util.tree_flatten(out)
    out_tree.append(tree)
    return [_as_array(o) for o in out_leaves]

  jaxpr, consts = trace_hoisted(flat, [get_aval(x) for x in leaves])
  return jaxpr, consts, in_tree, leaves, out_tree[0]


# Transformations that only pass a call on when none of its inputs are theirs.
_PASS_THROUGH = (JVPTrace, PartialEvalTrace, BatchTrace)


def _processing_trace(leaves):
  """The trace that processes a custom-derivative call of ``leaves``: the current one,
  skipping transformations that have no tracer among them (as JAX binds at the parent)."""
  trace = current_trace()
  while isinstance(trace, _PASS_THROUGH) and not any(
      isinstance(x, Tracer) and x._trace is trace for x in leaves):
    trace = trace.parent
  return trace


def _custom_call(prim, fun, args, dyn, params, trace_and_bind, recall, foreign=None):
  """Calls a custom-derivative function as JAX does.  On concrete inputs the function
  just runs; under a JVP the rule runs on the primals (concrete when the JVP is eager), so
  the function is not traced; a trace defined outside xjax that takes such calls the JAX
  way gets it so (``foreign(trace)``); any other trace stages the call
  (``trace_and_bind``).  A JVP whose tracers among the inputs all carry zero tangents
  leaves the call to the transformation below it, on the primals (``recall``: the custom
  function itself)."""
  leaves = tree_util.tree_leaves(dyn)
  # Tracers among the nondiff arguments count too: the call closes over them.
  trace = _processing_trace(tree_util.tree_leaves(args))
  if isinstance(trace, JVPTrace) and all(type(trace.lift(x)[1]) is Zero for x in leaves):
    primal = lambda x: trace.lift(x)[0] if isinstance(x, Tracer) and x._trace is trace else x
    with set_current_trace(trace.parent):
      return recall(*tree_util.tree_map(primal, args))
  with set_current_trace(trace):
    if trace is eval_trace:
      return fun(*args)
    if isinstance(trace, JVPTrace):  # (Python scalar arguments reach the rule typed)
      leaves = [typed_value(x, get_aval(x)) if type(x) in _PY_SCALARS else x for x in leaves]
      return trace.process_primitive(prim, leaves, dict(params, call_jaxpr=None,
                                                          num_consts=0))
    if foreign is not None and hasattr(type(trace), f"process_{prim.name}"):
      return foreign(trace)
    return trace_and_bind()


class SymbolicZero:
  """A zero tangent (or cotangent) handed to a rule defined with ``symbolic_zeros=True``:
  it carries the value's type (``aval``, and through it ``shape``, ``dtype``, ...) instead
  of an array of zeros."""

  def __init__(self, aval) -> None:
    self.aval = aval

  def __repr__(self) -> str:
    return "SymbolicZero"

  def __getattr__(self, name):
    if name == "aval":     # not set yet (copying, unpickling)
      raise AttributeError(name)
    return getattr(self.aval, name)

  @staticmethod
  def from_primal_value(val) -> "SymbolicZero":
    return SymbolicZero(tangent_aval(get_aval(val)))


class CustomVJPPrimal:
  """A primal handed to a ``custom_vjp`` forward rule defined with ``symbolic_zeros=True``:
  its ``value``, and whether it is ``perturbed`` (has a nonzero tangent)."""
  __slots__ = ("value", "perturbed")

  def __init__(self, value, perturbed: bool) -> None:
    self.value = value
    self.perturbed = perturbed

  def __repr__(self) -> str:
    return f"CustomVJPPrimal(value={self.value!r}, perturbed={self.perturbed})"


def custom_vjp_primal_tree_values(tree):
  """The values of a pytree of ``CustomVJPPrimal`` records (their perturbation dropped)."""
  return tree_util.tree_map(lambda x: x.value if isinstance(x, CustomVJPPrimal) else x, tree,
                            is_leaf=lambda x: isinstance(x, CustomVJPPrimal))


def _rule_zeros(tangents, symbolic: bool) -> list:
  """Tangents as a rule sees them: symbolic zeros as ``SymbolicZero`` records when it was
  defined with ``symbolic_zeros=True``, else as arrays of zeros."""
  if symbolic:
    return [SymbolicZero(t.aval) if type(t) is Zero else t for t in tangents]
  return [ad.instantiate(t) for t in tangents]


def _rule_primals(primals, tangents) -> list:
  """Primals as a rule sees them, as JAX hands them over: a Python scalar (plain or typed)
  that is differentiated, or was an argument of the call, stays a number; the other
  scalars -- the literals of a jaxpr re-evaluated under a transformation (a jit's body under
  grad) -- are the arrays they were (JAX passes them as tracers)."""
  return [p if type(p) in TYPED_SCALARS or (type(p) in _PY_SCALARS and type(t) is not Zero)
          else _as_array(p) for p, t in zip(primals, tangents)]


def _rule_output(x):
  """A rule's primal output: a Python number stays one (as JAX returns it), else an array."""
  return x if type(x) in _PY_SCALARS else _as_array(x)


def _check_closure_tangents(tangents, num_consts, kind):
  if any(type(t) is not Zero for t in tangents[:num_consts]):
    raise TypeError(f"Detected differentiation of a {kind} function with respect to a "
                    "closed-over value. That isn't supported because the custom rule only "
                    "specifies how to differentiate with respect to explicit input "
                    "parameters; pass the value as an argument instead.")


def _leaves_up_to(treedef, x, prefix: bool = False) -> list | None:
  """``x``'s parts at the leaves of ``treedef`` (None where it does not fit it); a None
  in ``x`` stands for zeros of the whole subtree below it, as JAX allows in rules. With
  ``prefix`` (a bwd rule's output, as JAX reads it), a leaf of ``x`` where ``treedef`` has
  a subtree stands for each of that subtree's leaves."""
  if treedef.node_data() is None:   # a leaf
    return [x]
  if x is None:
    return [None] * treedef.num_leaves
  kids, node = tree_util.tree_flatten(x, is_leaf=lambda y: y is not x)
  if prefix and node.node_data() is None:
    return [x] * treedef.num_leaves
  children = treedef.children()
  if node.node_data() != treedef.node_data() or len(kids) != len(children):
    return None
  out = []
  for child, kid in zip(children, kids):
    part = _leaves_up_to(child, kid, prefix)
    if part is None:
      return None
    out += part
  return out


def _flat_tangents(tree, expected_tree, avals, what):
  leaves = _leaves_up_to(expected_tree, tree, prefix=what == "Custom VJP bwd rule")
  if leaves is None or not all(
      x is None or tree_util.tree_structure(x).node_data() is None for x in leaves):
    t = tree_util.tree_structure(tree, is_leaf=lambda x: x is None)
    raise TypeError(f"{what} must produce a value with the same pytree structure as the "
                    f"primal output; expected {expected_tree}, got {t}.")
  out = []
  for i, (x, a) in enumerate(zip(leaves, avals)):
    ta = tangent_aval(a)
    if x is None or type(x) in (Zero, SymbolicZero):
      out.append(Zero(ta))     # stays symbolic, as JAX keeps a rule's zero outputs
      continue
    xa = get_aval(x)
    if what == "Custom JVP rule":
      if (xa.shape, xa.dtype) != (ta.shape, ta.dtype):
        raise TypeError(
            "Custom JVP rule must produce primal and tangent outputs with corresponding "
            f"shapes and dtypes. Expected {ta.str_short(False)} (tangent type of "
            f"{a.str_short(False)}) but got {xa.str_short(False)}.")
    elif xa.shape != ta.shape or varying.regions[0] and vma_of(xa) != vma_of(ta):
      raise ValueError(   # (in a shard_map body, the manual axes they vary over count too)
          f"{what} must produce an output with the same type as the args tuple of the "
          f"primal function, but at output[{i}] the bwd rule produced an output of type "
          f"{xa.str_short(False)} corresponding to an input of type {a.str_short(False)}"
          f"{mismatch(a, xa)}")
    # (an integer's float0 tangent is a zero, as JAX's maybe_jvp_tracer takes it)
    out.append(Zero(ta) if ta.dtype == dtypes.float0 else _rule_output(x))
  return out


def _batch_flat_fn(fn, axis, in_batched):
  """``fn(*flat)`` made to take args batched at 0 (where ``in_batched``); outputs at 0."""
  def batched(*xs):
    outs, dims = batching.batch_flat(lambda *ys: fn(*ys), xs,
                                     [0 if b else None for b in in_batched], axis)
    return [batching.matchaxis(o, d, 0, axis.size) for o, d in zip(outs, dims)]
  return batched


def _batch_call(prim, axis, args, dims, params, rebatch):
  in_batched = [d is not None for d in dims]
  args = [batching.moveaxis(x, d, 0) if d is not None else x for x, d in zip(args, dims)]
  batched, _ = batching.batch_closed_jaxpr(params["call_jaxpr"], axis, in_batched,
                                           instantiate=True)
  new = dict(params, call_jaxpr=batched, **rebatch(in_batched))
  outs = prim.bind(*args, **new)
  return outs, [0] * len(outs)


def _discharge_call(prim, kind: str, rules: tuple):
  """The ``discharge_call`` rule of a custom-derivative call whose body uses refs given to
  it (under jit): the body runs on their values and returns their final values too.  The
  rules close over the refs themselves, so the call on values cannot be differentiated."""
  def refuse(*_, **__):
    raise NotImplementedError(
        f"Differentiating a {kind} function whose body uses a mutable array reference "
        "(jax.Ref) from outside it, after it was staged into jit, is not supported by xjax: "
        "differentiate inside the jitted function, or read the ref outside and pass its "
        "value in.")

  def rule(is_ref, *args, call_jaxpr, num_consts, **params):
    body, consts = discharged_body(call_jaxpr, f"a {kind} function")
    outs = prim.bind(*consts, *args, call_jaxpr=body, num_consts=num_consts + len(consts),
                     **dict(params, **{r: refuse for r in rules}))
    n = len(call_jaxpr.out_avals)
    return outs[n:], outs[:n]
  return rule


# ---------------------------------------------------------------------------------------
# custom_jvp

def _nondiff_argnums(fun: Callable, argnums, argnames) -> tuple:
  """The positions of the non-differentiable arguments, given by position or by name (the
  positional-or-keyword parameters of ``fun`` so named), in order, as JAX sorts them."""
  positions = set(argnums)
  if argnames:
    names = (argnames,) if isinstance(argnames, str) else tuple(argnames)
    params = inspect.signature(fun).parameters.values()
    positions.update(i for i, p in enumerate(params)
                     if p.kind is p.POSITIONAL_OR_KEYWORD and p.name in names)
  return tuple(sorted(positions))


class custom_jvp:
  """A function with a custom JVP rule, set with ``defjvp`` or ``defjvps``."""
  jvp: Callable | None = None   # the rule, and whether it takes symbolic zeros (defjvp's)
  symbolic_zeros: bool = False

  __getattr__ = forward_to_fun

  def __init__(self, fun: Callable, nondiff_argnums=(), nondiff_argnames=()) -> None:
    update_wrapper(self, fun)
    self.fun = fun
    self.nondiff_argnums = _nondiff_argnums(fun, nondiff_argnums, nondiff_argnames)

  def defjvp(self, jvp: Callable, symbolic_zeros: bool = False) -> Callable:
    """``jvp(*nondiff_args, primals, tangents) -> (primal_out, tangent_out)``; with
    ``symbolic_zeros`` the zero tangents reach it as ``SymbolicZero`` records."""
    self.jvp = jvp
    self.symbolic_zeros = symbolic_zeros
    return jvp

  def defjvps(self, *jvps) -> None:
    """One rule per argument: ``rule(tangent, primal_out, *primals) -> contribution``."""
    if self.nondiff_argnums:
      raise TypeError("Can't use ``defjvps`` with ``nondiff_argnums``.")
    def jvp(primals, tangents):
      out = self(*primals)
      parts = [f(t, out, *primals) for f, t in zip(jvps, tangents) if f is not None]
      if not parts:
        return out, tree_util.tree_map(lambda o: ad.zeros_of(tangent_aval(get_aval(o))), out)
      return out, functools.reduce(
          lambda a, b: tree_util.tree_map(lambda x, y: x + y, a, b), parts)
    self.defjvp(jvp)

  @api_boundary
  def __call__(self, *args, **kwargs):
    if self.jvp is None:
      raise AttributeError(f"No JVP defined for custom_jvp function {fun_name(self.fun)} "
                           "using defjvp.")
    args = _resolve_args(self.fun, args, kwargs)
    nondiff, statics, dyn = _split_nondiff(args, self.nondiff_argnums)
    in_tree = tree_util.tree_structure(dyn)
    rule, name, out_trees = self.jvp, fun_name(self.fun), []
    symbolic = self.symbolic_zeros

    def jvp_flat(primals, tangents):  # tangents: arrays or symbolic Zeros
      p = tree_util.tree_unflatten(in_tree, primals)
      t = tree_util.tree_unflatten(in_tree, _rule_zeros(tangents, symbolic))
      res = rule(*statics, tuple(p), tuple(t))
      if not isinstance(res, (tuple, list)) or len(res) != 2:
        raise TypeError("Custom JVP rule must return a pair (primal_out, tangent_out); got "
                        f"{type(res).__name__}.")
      out_p, tree = tree_util.tree_flatten(res[0])
      if not out_trees:  # not traced (an eager JVP): the rule gives the output structure
        out_trees.append(tree)
      elif tree != out_trees[0]:
        raise TypeError("Custom JVP rule must produce primal outputs with the same pytree "
                        f"structure as the custom_jvp function {name}: expected "
                        f"{out_trees[0]}, got {tree}.")
      out_p = [_rule_output(o) for o in out_p]
      return out_p, _flat_tangents(res[1], tree, [get_aval(o) for o in out_p],
                                   "Custom JVP rule")

    def trace_and_bind():
      call_jaxpr, consts, _, leaves, out_tree = _trace_call(self.fun, nondiff, statics, dyn)
      out_trees.append(out_tree)
      return custom_jvp_call_p.bind(*consts, *leaves, call_jaxpr=call_jaxpr, jvp=jvp_flat,
                                    num_consts=len(consts), name=name,
                                    symbolic_zeros=symbolic)

    def foreign(trace):
      def flat_fun(*xs):
        out = self.fun(*_merge(nondiff, statics, tree_util.tree_unflatten(in_tree, xs)))
        out_leaves, tree = tree_util.tree_flatten(out)
        out_trees[:] = [tree]
        return out_leaves
      outs = trace.process_custom_jvp_call(
          custom_jvp_call_p, lu.wrap_init(flat_fun), lu.wrap_init(_protocol_rule(jvp_flat)),
          tree_util.tree_leaves(dyn), symbolic_zeros=symbolic)
      if not out_trees:  # (the trace ran neither: its outputs are as many leaves)
        out_trees.append(tree_util.tree_structure(list(outs)))
      return outs

    jvp_flat.__name__ = fun_name(rule)  # printed in jaxprs as the user's rule
    outs = _custom_call(custom_jvp_call_p, self.fun, args, dyn,
                        dict(jvp=jvp_flat, name=name, symbolic_zeros=symbolic),
                        trace_and_bind, self, foreign)
    if not out_trees:  # ran as a plain function on concrete inputs
      return outs
    return tree_util.tree_unflatten(out_trees[0], outs)


def _protocol_rule(jvp_flat, num_consts: int = 0):
  """A flat JVP rule (tangents arrays or symbolic ``Zero``s; primal and tangent outputs
  apart) in JAX's form for traces defined outside xjax: primals then tangents in (the
  first ``num_consts`` of each, a call's constants, dropped), primal then tangent outputs
  out, zero tangents as ``SymbolicZero`` records both ways."""
  def rule(*xs):
    n = len(xs) // 2
    tangents = [Zero(t.aval) if type(t) is SymbolicZero else t for t in xs[n + num_consts:]]
    out_p, out_t = jvp_flat(list(xs[num_consts:n]), tangents)
    return [*out_p, *(SymbolicZero(t.aval) if type(t) is Zero else t for t in out_t)]
  return rule


class _CustomJVPCallPrimitive(Primitive):
  """``custom_jvp_call`` with JAX's protocol for traces defined outside xjax (quax's):
  a bound call (a jaxpr's equation re-evaluated) reaches such a trace's
  ``process_custom_jvp_call`` with its body and rule as wrapped functions, and the trace
  re-binds it with ``bind_with_trace(trace, args, avals, params)``, the two wrapped
  functions in ``params["subfuns"]``."""

  def bind(self, *args, **params):
    trace = current_trace()
    if not hasattr(type(trace), "process_custom_jvp_call"):
      return super().bind(*args, **params)
    closed = params["call_jaxpr"]
    fun = lu.wrap_init(lambda *xs: eval_jaxpr(closed.jaxpr, closed.consts, *xs))
    jvp = lu.wrap_init(_protocol_rule(params["jvp"], params["num_consts"]))
    return trace.process_custom_jvp_call(self, fun, jvp, args,
                                         symbolic_zeros=params["symbolic_zeros"])

  def bind_with_trace(self, trace, args, *avals_params):
    params = dict(avals_params[-1])
    if "subfuns" not in params:
      return super().bind_with_trace(trace, args, params)
    fun, jvp = params.pop("subfuns")
    call = custom_jvp(lambda *xs: list(fun.call_wrapped(*xs)))

    def rule(primals, tangents):
      outs = jvp.call_wrapped(*primals, *tangents)
      return list(outs[:len(outs) // 2]), list(outs[len(outs) // 2:])
    call.defjvp(rule, symbolic_zeros=params.pop("symbolic_zeros", False))
    with set_current_trace(trace):
      return call(*args)


def _custom_jvp_jvp(primals, tangents, *, call_jaxpr, jvp, num_consts, name,
                    symbolic_zeros):
  _check_closure_tangents(tangents, num_consts, "custom_jvp")
  tangents = list(tangents[num_consts:])
  return jvp(_rule_primals(primals[num_consts:], tangents), tangents)


def _custom_jvp_batch(axis, args, dims, **params):
  k = params["num_consts"]

  def rebatch(in_batched):
    rule, nb = params["jvp"], in_batched[k:]

    def jvp(primals, tangents):
      # Symbolic zero tangents stay symbolic (of the per-member type) inside the batch.
      n, zero = len(primals), [type(t) is Zero for t in tangents]

      def rule_flat(*xs):
        it = iter(xs[n:])
        ts = [Zero.like(p) if z else next(it) for p, z in zip(xs[:n], zero)]
        out_p, out_t = rule(list(xs[:n]), ts)
        return _concat(out_p, [ad.instantiate(t) for t in out_t])
      nz = [t for t, z in zip(tangents, zero) if not z]
      nz_batched = [b for b, z in zip(nb, zero) if not z]
      outs = _batch_flat_fn(rule_flat, axis, nb + nz_batched)(*primals, *nz)
      return outs[:len(outs) // 2], outs[len(outs) // 2:]
    jvp.__name__ = getattr(rule, "__name__", "jvp")  # (jaxprs print the user's rule's name)
    return dict(jvp=jvp)
  return _batch_call(custom_jvp_call_p, axis, args, dims, params, rebatch)


def _concat(a, b):
  return list(a) + list(b)


def _custom_jvp_partial_eval(trace, args, params):
  """With unknown inputs the call is part of a linear (tangent) computation, which is
  never differentiated again: its body is staged inline and the rule dropped, as JAX."""
  closed = params["call_jaxpr"]
  return eval_jaxpr(closed.jaxpr, closed.consts, *args)


custom_jvp_call_p = call_primitive("custom_jvp_call", "call_jaxpr",
                                   primitive_class=_CustomJVPCallPrimitive)
custom_jvp_call_p.jvp = _custom_jvp_jvp
custom_jvp_call_p.hidden_params = frozenset({"num_consts"})
custom_jvp_call_p.pp_params = lambda p: sorted(p.items(), key=lambda kv: (kv[0] != "name",
                                                                           kv[0]))
custom_jvp_call_p.names_shared_jaxprs = False  # (JAX's call keeps its name in debug info)
custom_jvp_call_p.batch = _custom_jvp_batch
custom_jvp_call_p.partial_eval = _custom_jvp_partial_eval
custom_jvp_call_p.discharge_call = _discharge_call(custom_jvp_call_p, "custom_jvp", ("jvp",))


# ---------------------------------------------------------------------------------------
# custom_vjp

class custom_vjp:
  """A function with a custom VJP, set with ``defvjp(fwd, bwd)``.

  ``fwd(*args) -> (out, residuals)`` and ``bwd(*nondiff_args, residuals, out_cotangent)
  -> tuple of input cotangents`` (one per differentiable argument, ``None`` for zero).
  """

  __getattr__ = forward_to_fun

  def __init__(self, fun: Callable, nondiff_argnums=(), nondiff_argnames=()) -> None:
    update_wrapper(self, fun)
    self.fun = fun
    self.nondiff_argnums = _nondiff_argnums(fun, nondiff_argnums, nondiff_argnames)
    self.fwd = self.bwd = None
    self.symbolic_zeros = self.optimize_remat = False

  def defvjp(self, fwd: Callable, bwd: Callable, symbolic_zeros: bool = False,
             optimize_remat: bool = False) -> None:
    """With ``symbolic_zeros``, ``fwd`` receives each primal as a ``CustomVJPPrimal``
    (value, perturbed) and ``bwd`` the zero output cotangents as ``SymbolicZero``s.  With
    ``optimize_remat``, a forward pass that needs none of ``fwd``'s residuals (inside
    ``checkpoint``) runs the function itself instead (``remat_opt``)."""
    if symbolic_zeros and optimize_remat:
      raise NotImplementedError(
          "remat optimization for custom_vjp does not support symbolic zeros")
    self.fwd, self.bwd = fwd, bwd
    self.symbolic_zeros = symbolic_zeros
    self.optimize_remat = optimize_remat

  @api_boundary
  def __call__(self, *args, **kwargs):
    if self.fwd is None:
      raise AttributeError(f"No VJP defined for custom_vjp function {fun_name(self.fun)} "
                           "using defvjp.")
    args = _resolve_args(self.fun, args, kwargs)
    nondiff, statics, dyn = _split_nondiff(args, self.nondiff_argnums)
    in_tree = tree_util.tree_structure(dyn)
    fwd, bwd, name, out_trees = self.fwd, self.bwd, fun_name(self.fun), []
    if self.optimize_remat:
      fwd = _remat_optimized(self.fun, fwd, self.nondiff_argnums)
    n_dyn = len(dyn)  # the rules live in jaxprs: they must not keep the (traced) arguments
    in_avals = [get_aval(x) for x in tree_util.tree_leaves(dyn)]
    symbolic = self.symbolic_zeros

    def fwd_flat(perturbed, *primals):
      if symbolic:
        primals = [CustomVJPPrimal(p, d) for p, d in zip(primals, perturbed)]
      res = fwd(*_merge(nondiff, statics, tree_util.tree_unflatten(in_tree, primals)))
      if not isinstance(res, (tuple, list)) or len(res) != 2:
        raise TypeError(f"Custom VJP fwd rule {fun_name(fwd)} must return a pair "
                        f"(output, residuals); got {type(res).__name__}.")
      out, tree = tree_util.tree_flatten(res[0])
      if not out_trees:  # not traced (an eager JVP): fwd gives the output structure
        out_trees.append(tree)
      elif tree != out_trees[0]:
        raise TypeError(f"Custom VJP fwd rule {fun_name(fwd)} must produce an output with "
                        f"the same structure as the custom_vjp function; expected "
                        f"{out_trees[0]}, got {tree}.")
      res_leaves, res_tree = tree_util.tree_flatten(res[1])
      # Python scalars among the residuals reach bwd as they are (as in JAX); arrays are
      # carried to it as values of the computation.
      scalars = tuple((i, r) for i, r in enumerate(res_leaves) if type(r) in _PY_SCALARS)
      arrays = [_as_array(r) for r in res_leaves if type(r) not in _PY_SCALARS]
      return [_rule_output(o) for o in out], arrays, (res_tree, scalars)

    def bwd_flat(res_tree, res, cts):  # cts: arrays or symbolic Zeros
      res_tree, scalars = res_tree
      res = list(res)
      for i, r in scalars:
        res.insert(i, r)
      r = tree_util.tree_unflatten(res_tree, res)
      g = tree_util.tree_unflatten(out_trees[0], _rule_zeros(cts, symbolic))
      cts_in = bwd(*statics, r, g)
      if not isinstance(cts_in, (tuple, list)) or len(cts_in) != n_dyn:
        raise TypeError(f"Custom VJP bwd rule {fun_name(bwd)} must produce a tuple with one "
                        f"entry per differentiable argument ({n_dyn}); got {cts_in!r:.80}")
      return _flat_tangents(tuple(cts_in), in_tree, in_avals, "Custom VJP bwd rule")

    def trace_and_bind():
      call_jaxpr, consts, _, leaves, out_tree = _trace_call(self.fun, nondiff, statics, dyn)
      out_trees.append(out_tree)
      return custom_vjp_call_p.bind(*consts, *leaves, call_jaxpr=call_jaxpr, fwd=fwd_flat,
                                    bwd=bwd_flat, num_consts=len(consts), name=name,
                                    symbolic_zeros=symbolic)

    fwd_flat.__name__, bwd_flat.__name__ = fun_name(fwd), fun_name(bwd)  # as printed in JAX
    outs = _custom_call(custom_vjp_call_p, self.fun, args, dyn,
                        dict(fwd=fwd_flat, bwd=bwd_flat, name=name, symbolic_zeros=symbolic),
                        trace_and_bind, self)
    if not out_trees:  # ran as a plain function on concrete inputs
      return outs
    return tree_util.tree_unflatten(out_trees[0], outs)


def _custom_vjp_jvp(primals, tangents, *, call_jaxpr, fwd, bwd, num_consts, name,
                    symbolic_zeros):
  _check_closure_tangents(tangents, num_consts, "custom_vjp")
  perturbed = [type(t) is not Zero for t in tangents[num_consts:]]
  primals = _rule_primals(primals[num_consts:], tangents[num_consts:])
  trace = current_trace()
  if type(trace) is PartialEvalTrace and not any(map(trace.is_unknown, primals)):
    # (linearizing: the rule runs where its known primals live, as JAX runs it on the
    # linearize trace's parent; what it makes, such as flax's Variables, belongs there)
    with set_current_trace(trace.parent):
      outs, res, res_tree = fwd(perturbed, *primals)
  else:
    outs, res, res_tree = fwd(perturbed, *primals)
  in_zeros = [not p for p in perturbed]
  ts = [t for t, p in zip(tangents[num_consts:], perturbed) if p]
  out_avals = [tangent_aval(get_aval(o)) for o in outs]
  tans = custom_lin_p.bind(*res, *ts, num_res=len(res), res_tree=res_tree, bwd=bwd,
                           out_avals=tuple(out_avals), symbolic_zeros=symbolic_zeros,
                           in_zeros=in_zeros)
  return outs, tans


def _custom_vjp_batch(axis, args, dims, **params):
  k = params["num_consts"]

  def rebatch(in_batched):
    fwd, bwd = params["fwd"], params["bwd"]
    box = {}

    def fwd_b(perturbed, *primals):
      def f(*xs):
        outs, res, box["tree"] = fwd(perturbed, *xs)
        box["n"] = len(outs)
        return outs + res
      both = _batch_flat_fn(f, axis, in_batched[k:])(*primals)
      return both[:box["n"]], both[box["n"]:], box["tree"]

    def bwd_b(res_tree, res, cts):
      # Zero cotangents stay symbolic, of one example's aval (bwd sees SymbolicZeros, as JAX)
      zeros = [Zero(c.aval.update(shape=c.aval.shape[1:])) if type(c) is Zero else None
               for c in cts]
      live = [c for c in cts if type(c) is not Zero]

      def f(*xs):
        it = iter(xs[len(res):])
        inner = [next(it) if z is None else z for z in zeros]
        return [ad.instantiate(c) for c in bwd(res_tree, xs[:len(res)], inner)]
      cts_in = _batch_flat_fn(f, axis, [True] * (len(res) + len(live)))(*res, *live)
      # the cotangent of an unbatched input sums over the batch (as JAX's)
      return [c if b or get_aval(c).dtype == dtypes.float0 else build.reduce_sum(c, (0,))
              for c, b in zip(cts_in, in_batched[k:])]
    return dict(fwd=fwd_b, bwd=bwd_b)
  return _batch_call(custom_vjp_call_p, axis, args, dims, params, rebatch)


custom_vjp_call_p = call_primitive("custom_vjp_call", "call_jaxpr")
custom_vjp_call_p.jvp = _custom_vjp_jvp
custom_vjp_call_p.hidden_params = frozenset({"num_consts"})
custom_vjp_call_p.pp_params = custom_jvp_call_p.pp_params
custom_vjp_call_p.names_shared_jaxprs = False
custom_vjp_call_p.batch = _custom_vjp_batch
custom_vjp_call_p.discharge_call = _discharge_call(custom_vjp_call_p, "custom_vjp",
                                                   ("fwd", "bwd"))


# custom_lin: the linear tangent map of a custom_vjp function, transposed by running bwd.

def _custom_lin_abstract_eval(*avals, out_avals, **_):
  return list(out_avals)


def _custom_lin_impl(*args, **_):
  """custom_lin is only ever transposed: evaluating, compiling, batching or differentiating
  it is forward mode applied to a custom_vjp function, JAX's TypeError."""
  raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.")


def _custom_lin_transpose(cts, *args, num_res, res_tree, bwd, out_avals, symbolic_zeros,
                          in_zeros):
  """bwd's cotangents of the inputs that had tangents (``in_zeros``: those that had none)."""
  cts_in = bwd(res_tree, list(args[:num_res]), list(cts))
  return [None] * num_res + [c for c, z in zip(cts_in, in_zeros) if not z]


custom_lin_p = Primitive("custom_lin", multiple_results=True)
custom_lin_p.abstract_eval = _custom_lin_abstract_eval
custom_lin_p.impl = _custom_lin_impl
custom_lin_p.lowering = custom_lin_p.batch = custom_lin_p.jvp = _custom_lin_impl
custom_lin_p.transpose = _custom_lin_transpose
custom_lin_p.transposed_without_cotangents = True
custom_lin_p.hidden_params = frozenset({"out_avals", "res_tree"})  # (as JAX prints it)


def zero_from_primal(val, symbolic_zeros: bool = False):
  """Zero tangents for the pytree of primals ``val`` (float0 for integer primals), as
  ``SymbolicZero`` records when ``symbolic_zeros``."""
  if symbolic_zeros:
    return tree_util.tree_map(SymbolicZero.from_primal_value, val)
  return tree_util.tree_map(lambda x: ad.zeros_of(tangent_aval(get_aval(x))), val)


# ---------------------------------------------------------------------------------------
# remat_opt: custom_vjp's forward rule that becomes the function itself when no residual
# is used (``defvjp(..., optimize_remat=True)``)

def _with_unused_inputs(jaxpr: Jaxpr, at: int, avals) -> Jaxpr:
  """``jaxpr`` taking extra (ignored) inputs of ``avals`` before its input ``at``."""
  invars = list(jaxpr.invars[:at]) + [Var(a) for a in avals] + list(jaxpr.invars[at:])
  return Jaxpr((), invars, jaxpr.outvars, jaxpr.eqns, jaxpr.effects)


def _joint(fwd: ClosedJaxpr, fun: ClosedJaxpr):
  """Both jaxprs taking (fwd's consts, fun's consts, their inputs); and those consts."""
  (fwd_j, fwd_c), (fun_j, fun_c) = hoist(fwd), hoist(fun)
  fwd_j = _with_unused_inputs(fwd_j.jaxpr, len(fwd_c), [get_aval(c) for c in fun_c])
  fun_j = _with_unused_inputs(fun_j.jaxpr, 0, [get_aval(c) for c in fwd_c])
  return ClosedJaxpr(fwd_j, ()), ClosedJaxpr(fun_j, ()), [*fwd_c, *fun_c]


def _remat_optimized(fun, fwd, nondiff_argnums):
  """``fwd`` bound as ``remat_opt``: (residuals, outputs) of ``fwd``, carrying ``fun``'s
  jaxpr too.  Residuals that are inputs are passed on, not computed."""
  def wrapped(*args):
    nondiff, statics, dyn = _split_nondiff(args, nondiff_argnums)
    leaves, in_tree = tree_util.tree_flatten(dyn)
    leaves = [_as_array(x) for x in leaves]
    trees = {}

    def fwd_flat(*xs):
      res = fwd(*_merge(nondiff, statics, tree_util.tree_unflatten(in_tree, xs)))
      if not isinstance(res, (tuple, list)) or len(res) != 2:
        raise TypeError(f"Custom VJP fwd rule {fun_name(fwd)} must return a pair "
                        f"(output, residuals); got {type(res).__name__}.")
      out, trees["out"] = tree_util.tree_flatten(res[0])
      r, trees["res"] = tree_util.tree_flatten(res[1])
      return [_as_array(v) for v in r + out]

    def fun_flat(*xs):
      return [_as_array(v) for v in tree_util.tree_leaves(
          fun(*_merge(nondiff, statics, tree_util.tree_unflatten(in_tree, xs))))]

    avals = [get_aval(x) for x in leaves]
    fwd_c = trace_to_jaxpr(fwd_flat, avals)
    num_res = trees["res"].num_leaves
    passed = [fwd_c.jaxpr.invars.index(v) if v in fwd_c.jaxpr.invars else None
              for v in fwd_c.jaxpr.outvars[:num_res]]
    fwd_c = ClosedJaxpr(Jaxpr(
        fwd_c.jaxpr.constvars, fwd_c.jaxpr.invars,
        [v for v, p in zip(fwd_c.jaxpr.outvars, passed) if p is None] +
        fwd_c.jaxpr.outvars[num_res:], fwd_c.jaxpr.eqns, fwd_c.jaxpr.effects), fwd_c.consts)
    fwd_j, fun_j, consts = _joint(fwd_c, trace_to_jaxpr(fun_flat, avals))
    num_computed = sum(p is None for p in passed)
    outs = remat_opt_p.bind(*consts, *leaves, num_consts=len(consts), num_res=num_computed,
                            fwd_jaxpr=fwd_j, fun_jaxpr=fun_j)
    computed = iter(outs[:num_computed])
    res = [next(computed) if p is None else leaves[p] for p in passed]
    return (tree_util.tree_unflatten(trees["out"], outs[num_computed:]),
            tree_util.tree_unflatten(trees["res"], res))
  return update_wrapper(wrapped, fwd)


def _remat_opt_jvp(primals, tangents, *, fwd_jaxpr, **_):
  """Differentiated again, the forward rule is differentiated inline (the optimization
  applies to first-order reverse mode)."""
  nonzeros = [type(t) is not Zero for t in tangents]
  jvp, out_nz = ad.jvp_closed_jaxpr(fwd_jaxpr, nonzeros, instantiate_out=False)
  outs = eval_jaxpr(jvp.jaxpr, jvp.consts, *primals, *[t for t in tangents if type(t) is not Zero])
  n = len(fwd_jaxpr.out_avals)
  it = iter(outs[n:])
  return outs[:n], [next(it) if nz else Zero(tangent_aval(a))
                    for nz, a in zip(out_nz, fwd_jaxpr.out_avals)]


def _remat_opt_transpose(cts, *args, **params):
  raise NotImplementedError("remat optimization for custom_vjp does not support higher-order AD")


def _remat_opt_batch(axis, args, dims, *, num_consts, num_res, fwd_jaxpr, fun_jaxpr):
  in_batched = [d is not None for d in dims]
  args = [batching.moveaxis(x, d, 0) if d is not None else x for x, d in zip(args, dims)]
  fwd_b, _ = batching.batch_closed_jaxpr(fwd_jaxpr, axis, in_batched, instantiate=True)
  fun_b, _ = batching.batch_closed_jaxpr(fun_jaxpr, axis, in_batched, instantiate=True)
  fwd_j, fun_j, consts = _joint(fwd_b, fun_b)
  outs = remat_opt_p.bind(*consts, *args, num_consts=len(consts) + num_consts, num_res=num_res,
                          fwd_jaxpr=fwd_j, fun_jaxpr=fun_j)
  return outs, [0] * len(outs)


def _remat_opt_dce(used_outputs, eqn):
  """Only the used outputs are computed; with no residual used, by the function itself."""
  p = eqn.params
  num_res = p["num_res"]
  used_res, used_outs = used_outputs[:num_res], used_outputs[num_res:]
  fun, _ = dce_jaxpr(p["fun_jaxpr"], used_outs)
  fwd = dce_jaxpr(p["fwd_jaxpr"], used_outputs)[0] if any(used_res) else fun
  return eqn.replace(outvars=[v for v, u in zip(eqn.outvars, used_outputs) if u],
                     params=dict(p, num_res=sum(used_res), fwd_jaxpr=fwd, fun_jaxpr=fun))


remat_opt_p = call_primitive("remat_opt", "fwd_jaxpr")
remat_opt_p.jvp = _remat_opt_jvp
remat_opt_p.transpose = _remat_opt_transpose
remat_opt_p.batch = _remat_opt_batch
remat_opt_p.dce = _remat_opt_dce


# ---------------------------------------------------------------------------------------
# linear_call: a linear function with its transpose given by the user

def linear_call(fun: Callable, fun_transpose: Callable, residual_args, linear_args):
  """``fun(residual_args, linear_args)``, where ``fun`` is linear in ``linear_args``; its
  transpose (reverse mode, ``linear_transpose``) is ``fun_transpose(residual_args,
  cotangents)``, whose own transpose is ``fun`` again."""
  res, res_tree = tree_util.tree_flatten(residual_args)
  lin, lin_tree = tree_util.tree_flatten(linear_args)
  res, lin = [_as_array(x) for x in res], [_as_array(x) for x in lin]
  res_avals = [get_aval(x) for x in res]
  out_trees = []

  def fun_flat(*xs):
    out, tree = tree_util.tree_flatten(fun(tree_util.tree_unflatten(res_tree, xs[:len(res)]),
                                           tree_util.tree_unflatten(lin_tree, xs[len(res):])))
    out_trees.append(tree)
    return [_as_array(o) for o in out]

  callee, consts = trace_hoisted(fun_flat, res_avals + [get_aval(x) for x in lin])
  out_tree = out_trees[0]
  traced = []

  def transpose_thunk():
    """(the transpose's jaxpr, its consts), traced once, when first transposed."""
    if not traced:
      def t_flat(*xs):
        out, tree = tree_util.tree_flatten(fun_transpose(
            tree_util.tree_unflatten(res_tree, xs[:len(res)]),
            tree_util.tree_unflatten(out_tree, xs[len(res):])))
        if tree != lin_tree:
          raise TypeError("transpose output pytree structure must match that of linear "
                          f"inputs, got output structure {tree} and input structure "
                          f"{lin_tree}.")
        return [_as_array(o) for o in out]
      traced.append(trace_hoisted(
          t_flat, res_avals + [tangent_aval(a) for a in callee.out_avals]))
    return traced[0]

  outs = linear_call_p.bind(*consts, *res, *lin, callee=callee,
                            transpose_thunk=transpose_thunk, num_callee_consts=len(consts),
                            num_res=len(res))
  return tree_util.tree_unflatten(out_tree, outs)


def _linear_call_jvp(primals, tangents, *, num_callee_consts, num_res, **params):
  k = num_callee_consts + num_res
  if any(type(t) is not Zero for t in tangents[:k]):
    raise AssertionError("linear_call is not differentiable with respect to its residual "
                         "arguments (or values its function closes over); only the linear "
                         "arguments may carry tangents.")
  fixed = dict(params, num_callee_consts=num_callee_consts, num_res=num_res)
  outs = linear_call_p.bind(*primals, **fixed)
  tans = linear_call_p.bind(*primals[:k], *[ad.instantiate(t) for t in tangents[k:]], **fixed)
  return outs, tans


def _linear_call_transpose(cts, *args, callee, transpose_thunk, num_callee_consts, num_res):
  transpose, t_consts = transpose_thunk()
  f_consts = args[:num_callee_consts]
  res = args[num_callee_consts:num_callee_consts + num_res]
  cts = [ad.instantiate(c) for c in cts]
  outs = linear_call_p.bind(*t_consts, *res, *cts, callee=transpose,
                            transpose_thunk=lambda: (callee, f_consts),
                            num_callee_consts=len(t_consts), num_res=num_res)
  return [None] * (num_callee_consts + num_res) + list(outs)


linear_call_p = call_primitive("linear_call", "callee")
linear_call_p.jvp = _linear_call_jvp
linear_call_p.transpose = _linear_call_transpose
