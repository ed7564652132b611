"""``checkpoint`` (``remat``): trade memory for recomputation in reverse mode.

The body is bound as the ``checkpoint`` call primitive.  When reverse mode splits it
(partial evaluation), its *policy* decides, equation by equation of the known (primal)
part, which values are saved for the backward pass: outputs of equations the policy calls
saveable become residuals, and every other value the backward part needs is recomputed
there from the saved ones and the inputs.  The default policy saves nothing.
``checkpoint_name`` tags a value with the ``name`` primitive so policies can pick it.
"""
from __future__ import annotations

import inspect
from typing import Callable, NamedTuple

import ml_dtypes

from xjax._src.execution.compiled_jaxprs import call_primitive
from xjax._src.foundations import dtypes, tree_util
from xjax._src.foundations.errors import ConcretizationTypeError, api_boundary
from xjax._src.execution.array import Array, argument_array
from xjax._src.core.effects import debug_effect, ordered_debug_effect
from xjax._src.core.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var, eval_jaxpr
from xjax._src.core import source_info
from xjax._src.core.dce import dce_jaxpr
from xjax._src.core.jaxpr_cache import cached_on_jaxpr
from xjax._src.core.trace import Primitive, Tracer, set_current_trace
from xjax._src.core.typed_ndarray import typed_value
from xjax._src.core.values import get_aval
from xjax._src.interpreters import ad
from xjax._src.interpreters.higher_order import (CONST, NEW, cached_trace, call_rules, merge,
                                                 partition, trace_hoisted)
from xjax._src.interpreters.staging import make_debug_info
from xjax._src.primitives.lax.bit_conversions import reduce_precision_p
from xjax._src.primitives.lax.stop_gradient import bind_identity
from xjax._src.primitives.state.discharge import discharged_body, run_with_refs
from xjax._src.primitives.state.types import AbstractRef
from xjax._src.foundations.wrapping import wraps


# ---------------------------------------------------------------------------------------
# What a policy may answer

class RecomputeType:
  """A policy's answer: recompute this value in the backward pass."""

  def __repr__(self) -> str:
    return "Recompute"


class SaveableType:
  """A policy's answer: save this value for the backward pass."""

  def __repr__(self) -> str:
    return "Saveable"


Recompute = RecomputeType()
Saveable = SaveableType()


class Offloadable(NamedTuple):
  """A policy's answer: save this value in memory ``dst`` (moved back to ``src`` for the
  backward pass).  xjax keeps it where it is: saved, like ``Saveable``."""
  src: str
  dst: str


def _decision(policy, eqn: JaxprEqn):
  """The policy's answer for ``eqn``: Saveable, Recompute or an Offloadable."""
  case = policy(eqn.primitive, *[a.aval for a in eqn.invars], **eqn.params)
  if isinstance(case, bool):
    return Saveable if case else Recompute
  if not isinstance(case, (RecomputeType, SaveableType, Offloadable)):
    msg = ("Value returned by a remat policy should be a bool or `ad_checkpoint.Recompute`, "
           f"`ad_checkpoint.Saveable` or `ad_checkpoint.Offloadable(...)`. Got {case} of type "
           f"{type(case)}.")
    if case is Offloadable:
      msg += " Did you return `Offloadable` instead of an instantiated `Offloadable(...)`?"
    raise TypeError(msg)
  return case


def _saves(policy, eqn: JaxprEqn) -> bool:
  """Whether the backward pass reads ``eqn``'s outputs as saved values.  Equations with
  effects run once, in the forward pass (debug prints also run again, see ``_replayed``)."""
  if policy is None:
    return bool(eqn.effects)
  return bool(eqn.effects) or _decision(policy, eqn) is not Recompute


def _replayed(eqn: JaxprEqn) -> bool:
  """Debug prints and callbacks run again with the recomputation, as in JAX."""
  return bool(eqn.effects) and eqn.effects <= {debug_effect, ordered_debug_effect}


# ---------------------------------------------------------------------------------------
# The user API

def checkpoint(fun: Callable, *, prevent_cse: bool | tuple = True, policy=None,
               static_argnums: int | tuple[int, ...] = (), static_argnames=(),
               concrete=None) -> Callable:
  """``fun`` whose intermediates are recomputed, not stored, for reverse mode; ``policy``
  (see ``checkpoint_policies``) names the ones that may be stored."""
  if concrete is not None:
    raise NotImplementedError(
        "The `concrete` option to `jax.checkpoint` was deprecated in JAX v0.8.2, and removed "
        "in JAX v0.10.0. In its place please use `static_argnums`; for details refer to "
        "https://docs.jax.dev/en/latest/jep/11830-new-remat-checkpoint.html.")
  if isinstance(static_argnums, int):
    static_argnums = (static_argnums,)
  if isinstance(prevent_cse, (list, tuple)):
    prevent_cse = tuple(prevent_cse)
  if not isinstance(prevent_cse, (tuple, bool)):
    raise TypeError(f"prevent_cse must be a bool or tuple of bools, got "
                    f"type(prevent_cse)={type(prevent_cse)}")
  del static_argnames  # as JAX's checkpoint: keyword arguments are traced

  @wraps(fun)
  @api_boundary
  def wrapped(*args, **kwargs):
    static = _static_positions(static_argnums, len(args))
    dyn = tuple(a for i, a in enumerate(args) if i not in static)
    given, in_tree = tree_util.tree_flatten((dyn, kwargs))
    leaves = [x if isinstance(x, (Array, Tracer)) else argument_array(x) for x in given]
    jaxpr, consts, out_tree = _traced(fun, args, kwargs, static, in_tree,
                                      tuple(get_aval(x) for x in leaves))
    cse = prevent_cse
    if isinstance(cse, tuple):
      per_arg = [cse[i] if i < len(cse) else True for i, a in enumerate(dyn)]
      cse = (False,) * len(consts) + tuple(
          c for c, a in zip(per_arg, dyn) for _ in tree_util.tree_leaves(a)) + (
          True,) * len(tree_util.tree_leaves(kwargs))
    outs = checkpoint_p.bind(*consts, *leaves, jaxpr=jaxpr, prevent_cse=cse,
                             differentiated=False, policy=policy)
    return tree_util.tree_unflatten(out_tree, _forwarded(jaxpr, len(consts), given, outs))
  return wrapped


def _forwarded(jaxpr, n_consts: int, given: list, outs: list) -> list:
  """Outputs that are the function's concrete inputs unchanged come back as those inputs
  (Python and NumPy values typed), as JAX's checkpoint returns them; a traced input passed
  through is the checkpoint's output, as in JAX's jaxprs (under eager transformations it
  comes back as JAX's does, through the equation's evaluation)."""
  j = jaxpr.jaxpr if isinstance(jaxpr, ClosedJaxpr) else jaxpr
  position = {v: k for k, v in enumerate(j.invars[n_consts:])}
  return [typed_value(g, v.aval) if type(v) is Var and v in position and not isinstance(
      g := given[position[v]], Tracer) else o for v, o in zip(j.outvars, outs)]


remat = checkpoint


def _traced(fun, args, kwargs, static, in_tree, avals):
  """(jaxpr, consts, out_tree) of ``fun`` at these argument types and static arguments,
  traced once per such signature (as JAX caches them) unless it closes over tracers."""
  statics = tuple(args[i] for i in sorted(static))

  def trace():
    out_tree = []

    def flat(*xs):
      d, kw = tree_util.tree_unflatten(in_tree, xs)
      it = iter(d)
      full = [args[i] if i in static else next(it) for i in range(len(args))]
      outs, tree = tree_util.tree_flatten(fun(*full, **kw))
      out_tree.append(tree)
      return outs

    info = make_debug_info(fun, leaf_names(fun, args, kwargs, static))
    try:
      jaxpr, consts = trace_hoisted(flat, avals, info)
    except ConcretizationTypeError as e:
      e.args = (f"{e.args[0]}\n\nConsider using the `static_argnums` parameter for "
                "`jax.remat` or `jax.checkpoint`. See the `jax.checkpoint` docstring and its "
                "example involving `static_argnums`:\n"
                "https://docs.jax.dev/en/latest/_autosummary/jax.checkpoint.html\n",
                ) + e.args[1:]
      raise
    return jaxpr, consts, out_tree[0]

  try:
    hash(statics)
  except TypeError:   # an unhashable static argument: traced on every call
    return trace()
  # (a trace recording source locations is not reused)
  return cached_trace(fun, (in_tree, avals, statics, source_info.active), trace)


def _static_positions(static_argnums, n: int) -> set[int]:
  if not (type(static_argnums) is tuple and all(type(d) is int for d in static_argnums)):
    raise TypeError("the `static_argnums` argument to `jax.checkpoint` / `jax.remat` must be "
                    f"an int, tuple of ints or, bool, but got value {static_argnums}")
  if not all(-n <= d < n for d in static_argnums):
    raise ValueError("the `static_argnums` argument to `jax.checkpoint` / `jax.remat` can "
                     "only take integer values greater than or equal to `-len(args)` and less "
                     f"than `len(args)`, but got {static_argnums}, while `len(args)` = {n}")
  return {d % n for d in static_argnums}


def leaf_names(fun, args, kwargs, static=frozenset()) -> list[str]:
  """Names of the leaves of ``fun``'s arguments (positional ones not in ``static``, then the
  keyword ones), as error messages and ``print_saved_residuals`` show them: ``x``,
  ``p['a']``, ``k``."""
  try:
    params = [p.name for p in inspect.signature(fun).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
  except (TypeError, ValueError):
    params = []
  names = []
  for i, a in enumerate(args):
    if i not in static:
      base = params[i] if i < len(params) else f"args[{i}]"
      names += [base + tree_util.keystr(path) for path, _ in
                tree_util.tree_flatten_with_path(a)[0]]
  for k in sorted(kwargs):
    names += [k + tree_util.keystr(path) for path, _ in
              tree_util.tree_flatten_with_path(kwargs[k])[0]]
  return names


def named_call(fun: Callable, *, name: str | None = None) -> Callable:
  """``fun`` with the equations it stages named ``name`` (by default ``fun.__name__``), as
  under ``named_scope``."""
  if name is None and not hasattr(fun, "__name__"):  # an AttributeError, as JAX's
    raise AttributeError(f"named_call: {fun!r} has no __name__ to name the call by; pass "
                         "name=")
  return wraps(fun)(source_info.extend_name_stack(fun.__name__ if name is None else name)(fun))


def _cse(params: dict, rule: str, origin: list) -> dict:
  """``params`` with ``prevent_cse`` for a new operand list (see ``call_rules``): a bool
  stays; per operand, a hoisted constant is not protected, a new value (tangent, residual)
  is, an operand passed on keeps its flag."""
  pc = params["prevent_cse"]
  if isinstance(pc, bool):
    return params
  return dict(params, prevent_cse=tuple(False if o == CONST else pc[o] if type(o) is int
                                        else True for o in origin))


# ---------------------------------------------------------------------------------------
# The checkpoint primitive's rules

def _partial_eval(trace, args, params):
  """Known outputs and the saved values are computed now (inline, on the parent trace);
  the unknown outputs come from a staged ``checkpoint`` that recomputes the rest."""
  unknowns = [trace.is_unknown(x) for x in args]
  split = _split(params["jaxpr"], tuple(unknowns), params["policy"])
  known_args, unknown_args = partition(unknowns, args)
  known_at, unknown_at = partition(unknowns, range(len(args)))
  with set_current_trace(trace.parent):
    outs = eval_jaxpr(split.forward.jaxpr, split.forward.consts, *known_args)
  known_outs, saved = outs[:split.num_known_outs], outs[split.num_known_outs:]
  known_outs = [_typed_host_value(o, get_aval(o)) for o in known_outs]
  reread = split.staged_known_inputs
  origin = ([CONST] * len(split.staged_consts) + [NEW] * len(saved) +
            [known_at[i] for i in reread] + unknown_at)
  staged = trace.stage(checkpoint_p, [*split.staged_consts, *saved,
                                      *[known_args[i] for i in reread], *unknown_args],
                       _cse(dict(params, jaxpr=split.staged, differentiated=True), "unknown",
                            origin))
  return merge(split.out_unknowns, known_outs, staged)


class _Split:
  """A checkpoint body split for reverse mode (cached per body, unknowns and policy)."""
  __slots__ = ("forward", "num_known_outs", "staged", "staged_consts",
               "staged_known_inputs", "out_unknowns")

  def __init__(self, forward, num_known_outs, staged, staged_consts, staged_known_inputs,
               out_unknowns) -> None:
    self.forward = forward                    # known inputs -> known outputs + saved values
    self.num_known_outs = num_known_outs
    self.staged = staged    # (staged consts, saved, known inputs it reads, unknown inputs)
    self.staged_consts = staged_consts
    self.staged_known_inputs = staged_known_inputs   # positions among the known inputs
    self.out_unknowns = out_unknowns


@cached_on_jaxpr()
def _split(closed: ClosedJaxpr, unknowns: tuple, policy) -> _Split:
  """Splits a checkpoint body by ``policy``: the forward part saves the outputs of the
  equations the policy calls saveable that the backward part needs; the backward part
  recomputes every other known value it reads."""
  known, unknown, out_unknowns, num_res = ad.partial_eval_jaxpr(closed, list(unknowns))
  n_known = len(known.out_avals) - num_res
  kj = known.jaxpr
  residuals = kj.outvars[n_known:]
  recompute, saved = _recomputation(kj, residuals, policy)
  inputs, saved_set = set(kj.invars), set(saved)
  saved_values = [v for v in saved if v not in inputs]
  known_inputs = [i for i, v in enumerate(kj.invars) if v in saved_set]
  recompute_jaxpr = Jaxpr((), saved_values + [kj.invars[i] for i in known_inputs],
                          residuals, recompute, frozenset().union(*(e.effects for e in recompute)))
  recompute_closed = ClosedJaxpr(recompute_jaxpr, ())
  n_saved = len(saved_values)
  unknown_avals = [a for a, u in zip(closed.in_avals, unknowns) if u]

  def backward(*xs):
    res = eval_jaxpr(recompute_jaxpr, (), *xs[:n_saved + len(known_inputs)])
    return eval_jaxpr(unknown.jaxpr, unknown.consts, *res, *xs[n_saved + len(known_inputs):])

  staged, staged_consts = trace_hoisted(backward,
                                        list(recompute_closed.in_avals) + unknown_avals)
  staged, used = dce_jaxpr(staged, [True] * len(staged.out_avals))
  nc = len(staged_consts)
  staged_consts = [c for c, u in zip(staged_consts, used[:nc]) if u]
  used_saved = used[nc:nc + n_saved]
  used_known = used[nc + n_saved:nc + n_saved + len(known_inputs)]
  saved_values = [v for v, u in zip(saved_values, used_saved) if u]
  forward, _ = dce_jaxpr(ClosedJaxpr(
      Jaxpr(kj.constvars, kj.invars, kj.outvars[:n_known] + saved_values, kj.eqns, kj.effects),
      known.consts), [True] * (n_known + len(saved_values)))
  forward = ClosedJaxpr(_with_reduced_precision(forward.jaxpr, set(saved_values)), known.consts)
  return _Split(forward, n_known, staged, staged_consts,
                [i for i, u in zip(known_inputs, used_known) if u], list(out_unknowns))


def _recomputation(jaxpr: Jaxpr, needed, policy):
  """(equations the backward part reruns, in order; values it reads as saved): walks back
  from ``needed`` through the equations whose outputs the policy does not save."""
  producer = {v: e for e in jaxpr.eqns for v in e.outvars}
  rerun, saved, seen = set(), {}, set()
  stack = [v for v in needed if type(v) is not Literal]
  stack += [a for e in jaxpr.eqns if _replayed(e) for a in e.invars if type(a) is not Literal]
  rerun |= {id(e) for e in jaxpr.eqns if _replayed(e)}
  while stack:
    v = stack.pop()
    if v in seen:
      continue
    seen.add(v)
    eqn = producer.get(v)
    if eqn is None or _saves(policy, eqn):
      saved[v] = None
    elif id(eqn) not in rerun:
      rerun.add(id(eqn))
      stack.extend(a for a in eqn.invars if type(a) is not Literal)
  order = {v: i for i, v in enumerate(jaxpr.invars)}
  for i, e in enumerate(jaxpr.eqns):
    for v in e.outvars:
      order[v] = len(jaxpr.invars) + i
  return ([e for e in jaxpr.eqns if id(e) in rerun],
          sorted(saved, key=lambda v: order.get(v, -1)))


def _with_reduced_precision(jaxpr: Jaxpr, saved: set) -> Jaxpr:
  """Rounds each saved float value that the forward part also uses to its own precision
  (``reduce_precision``), so forward and backward see the same value even where XLA
  computes with excess precision (as JAX does)."""
  used = {a for e in jaxpr.eqns for a in e.invars if type(a) is not Literal}
  eqns = []
  for eqn in jaxpr.eqns:
    rounded = [v for v in eqn.outvars
               if v in saved and v in used and dtypes.is_float(v.aval.dtype)]
    inner = {v: Var(v.aval) for v in rounded}
    eqns.append(eqn.replace(outvars=[inner.get(v, v) for v in eqn.outvars]) if inner else eqn)
    for v in rounded:
      finfo = ml_dtypes.finfo(v.aval.dtype)
      eqns.append(JaxprEqn(reduce_precision_p, [inner[v]], [v],
                           dict(exponent_bits=int(finfo.nexp), mantissa_bits=int(finfo.nmant)),
                           source_info=eqn.source_info))
  return Jaxpr(jaxpr.constvars, jaxpr.invars, jaxpr.outvars, eqns, jaxpr.effects,
               jaxpr.debug_info)


def _lowering(ctx, *args, jaxpr, prevent_cse, differentiated, policy):
  """The body as a private function; once differentiated (the recomputation), its inputs
  pass an optimization barrier so XLA cannot merge the recomputation with the forward
  pass (``prevent_cse``)."""
  barrier = [prevent_cse] * len(args) if isinstance(prevent_cse, bool) else prevent_cse
  if differentiated and any(barrier):
    idx = [i for i, b in enumerate(barrier) if b]
    outs = ctx.op("stablehlo.optimization_barrier", [args[i] for i in idx],
                  [ctx.avals_in[i] for i in idx])
    args = list(args)
    for i, o in zip(idx, outs):
      args[i] = o
  return ctx.call(jaxpr, "checkpoint", list(args))


def _discharge_call(is_ref, *args, jaxpr, prevent_cse, **params):
  """A body using refs given to it (closed over or passed in), on their values: the
  call also returns their final values (which its caller writes back)."""
  body, consts = discharged_body(jaxpr, "a checkpoint body")
  if isinstance(prevent_cse, tuple):
    prevent_cse = (False,) * len(consts) + prevent_cse
  outs = checkpoint_p.bind(*consts, *args, jaxpr=body, prevent_cse=prevent_cse, **params)
  n = len(jaxpr.out_avals)
  return outs[n:], outs[:n]


def _impl(*args, jaxpr, **params):
  """Evaluated equation by equation, as JAX's (so eager ``grad(checkpoint(f))`` rounds as
  ``grad(f)``); outputs no equation computed come back canonicalized (``typed_value``)."""
  if any(type(get_aval(x)) is AbstractRef for x in args):
    return run_with_refs(checkpoint_p, args, dict(params, jaxpr=jaxpr))
  outs = eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *args)
  return [_typed_host_value(o, v.aval) for o, v in zip(outs, jaxpr.jaxpr.outvars)]


def _typed_host_value(x, aval):
  """An output no equation computed, canonicalized as JAX's remat returns it: a host value
  typed (``typed_value``), an array or tracer as it is."""
  return x if isinstance(x, (Array, Tracer)) else typed_value(x, aval)


checkpoint_p = call_primitive("remat2", impl=_impl,   # JAX's name for it
                                       lowering=_lowering)
checkpoint_p.discharge_call = _discharge_call
call_rules(checkpoint_p, update=_cse, rules=("jvp", "transpose", "batch"),
           cts_typed_by_body=True)
checkpoint_p.partial_eval = _partial_eval
# a function policy prints as its repr, address masked (as JAX's: ``<function f at 0x..>``)
checkpoint_p.pp_params = lambda shown: sorted(
    (k, repr(v) if k == "policy" and inspect.isfunction(v) else v) for k, v in shown.items())


# ---------------------------------------------------------------------------------------
# checkpoint_name: the ``name`` primitive, an identity that policies can see

def checkpoint_name(x, name: str):
  """``x`` (a pytree) unchanged, each leaf tagged ``name`` for checkpoint policies
  (``save_only_these_names`` and the like)."""
  return tree_util.tree_map(
      lambda leaf: bind_identity(name_p, leaf, get_aval(leaf), name=name), x)


def _name_jvp(primals, tangents, *, name):
  (x,), (t,) = primals, tangents
  return bind_identity(name_p, x, get_aval(x), name=name), t  # (the tangent is not named,
  # as in JAX)


name_p = Primitive("name")
name_p.abstract_eval = lambda x, *, name: x
name_p.impl = lambda x, *, name: x
name_p.lowering = lambda ctx, x, *, name: x
name_p.jvp = _name_jvp
name_p.transpose = lambda ct, x, *, name: [ct]
name_p.batch = lambda axis, args, dims, *, name: (name_p.bind(args[0], name=name), dims[0])
