"""``cond`` and ``switch``: the ``cond`` primitive, one jaxpr per branch, lowered to
``stablehlo.case``."""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from xjax._src.core import varying
from xjax._src.foundations import dtypes, tree_util
from xjax._src.backend.lowering import TOKEN
from xjax._src.core.avals import ShapedArray, mismatch, ordered_axes, tangent_aval, vma_of
from xjax._src.foundations.errors import api_boundary
from xjax._src.core.jaxpr import ClosedJaxpr, Jaxpr, Var
from xjax._src.core.trace import Primitive, Tracer
from xjax._src.backend import clients
from xjax._src.execution.array import Array, from_buffer, make_array
from xjax._src.execution.compiled_jaxprs import run_closed_jaxpr
from xjax._src.execution.eager_primitives import apply_primitive
from xjax._src.execution.result_checks import checks_results
from xjax._src.foundations.sharding import PLACING
from xjax._src.interpreters.staging import fun_source_info, staged_constant
from xjax._src.core.values import get_aval
from xjax._src.interpreters import ad, batching
from xjax._src.interpreters.ad import Zero
from xjax._src.primitives.lax import elementwise as ew
from xjax._src.primitives.lax import shapes
from xjax._src.primitives.lax.empty2 import empty_like_aval
from xjax._src.primitives.lax.stop_gradient import stop_gradient
from xjax._src.core.effects import check_control_flow_effects
from xjax._src.interpreters.higher_order import (cached_trace, hoist, merge, partition,
                                                 trace_hoisted)
from xjax._src.primitives.lax.control_flow.body_tracing import (
    avals_of, call, in_python, listed, pcast_hint, same_types, trace_user_fun)
from xjax._src.primitives.lax.control_flow.carried_refs import carrying_refs, refs_among
from xjax._src.primitives.state.discharge import read_refs, write_refs

_I32 = ShapedArray((), np.dtype(np.int32))


# ---------------------------------------------------------------------------------------
# User API

_NO_OPERAND = object()


def _keyword_operand(operands: tuple, operand) -> tuple:
  """The operands, also accepting JAX's older single ``operand=`` keyword form."""
  if operand is _NO_OPERAND:
    return operands
  if operands:
    raise TypeError("if 'operand' keyword is passed then no positional operands can be "
                    f"passed, got operand={operand!r} and positional operands {operands}")
  return (operand,)


@api_boundary
def switch(index, branches: Sequence[Callable], *operands, operand=_NO_OPERAND):
  """Applies ``branches[clamp(index, 0, len(branches) - 1)]`` to ``operands``."""
  operands = _keyword_operand(operands, operand)
  branches = list(branches) if not callable(branches) else branches
  if not callable(branches) and not branches:
    raise ValueError("Empty branch sequence")
  if callable(branches):
    raise TypeError("switch: branches argument should be a non-empty sequence of callables, "
                    f"got {branches!r}")
  for b in branches:
    if not callable(b):
      raise TypeError(f"switch: branches argument should be a sequence of callables, got {b!r}")
  idx_aval = get_aval(index)
  if idx_aval.shape:
    raise TypeError(f"Branch index must be scalar, got {index!r} of shape {idx_aval.shape}.")
  if not dtypes.is_integer(idx_aval.dtype):
    raise TypeError(f"Index type must be an integer, got {idx_aval.dtype.name}.")
  if len(branches) == 1:
    return branches[0](*operands)
  index = ew.convert_element_type(index, np.int32)
  index = ew.clamp(np.int32(0), index, np.int32(len(branches) - 1))
  if in_python(index):
    return branches[int(index)](*operands)
  names = [f"branches[{i}]" for i in range(len(branches))]
  return _bind_cond(index, branches, operands, names)


@api_boundary
def cond(pred, true_fun: Callable, false_fun: Callable, *operands, operand=_NO_OPERAND):
  """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``, staged when traced."""
  if (not callable(true_fun) and callable(false_fun) and len(operands) == 2
      and callable(operands[1]) and operand is _NO_OPERAND):
    # The older form cond(pred, true_operand, true_fun, false_operand, false_fun).
    true_x, true_f, false_x, false_f = true_fun, false_fun, *operands
    return cond(pred, lambda xs: true_f(xs[0]), lambda xs: false_f(xs[1]), (true_x, false_x))
  operands = _keyword_operand(operands, operand)
  if not callable(true_fun) or not callable(false_fun):
    raise TypeError("lax.cond: true_fun and false_fun arguments should be callable.")
  aval = get_aval(pred)
  if aval.shape:
    raise TypeError(f"Pred must be a scalar, got {pred!r} of shape {aval.shape}.")
  if aval.dtype != np.bool_:
    pred = ew.ne(pred, ew.convert_element_type(np.zeros((), aval.dtype), aval.dtype))
  if in_python(pred):
    return true_fun(*operands) if pred else false_fun(*operands)
  index = ew.convert_element_type(pred, np.int32)
  return _bind_cond(index, [false_fun, true_fun], operands, ["false_fun", "true_fun"])


def _check_branch_outputs(api: str, first, other) -> None:
  """JAX's TypeError, in its words, where two branches' outputs differ in structure or in
  type (weak types aside); each branch is ``(name, function, jaxpr, out_tree)``."""
  (name1, f1, jaxpr1, tree1), (name2, f2, jaxpr2, tree2) = first, other
  avals1, avals2 = jaxpr1.out_avals, jaxpr2.out_avals
  if tree1 == tree2 and same_types(avals1, avals2):
    return
  head = f"{name1} is {fun_source_info(f1)}\n{name2} is {fun_source_info(f2)}\n\n"
  component = lambda p: f" at path {tree_util.keystr(p)}" if p else ""
  if tree1 != tree2:
    diffs = [f"{name1} output{component(p)} is a {a} but {name2} output{component(p)} is a "
             f"{b}, so {why}" for p, a, b, why in tree_util.equality_errors(
                 tree_util.tree_unflatten(tree1, avals1), tree_util.tree_unflatten(tree2, avals2),
                 leaf_name="pytree leaf")]
    differences = f"{diffs[0]}.\n" if len(diffs) == 1 else listed(diffs, spaced=True)
    raise TypeError(f"{api} branch outputs must have the same pytree structure, but they "
                    f"differ:\n\n{head}{differences}\nRevise {name1} and/or {name2} so that "
                    "they have the same pytree structure.")
  paths = [p for p, _ in tree_util.tree_flatten_with_path(
      tree_util.tree_unflatten(tree1, range(len(avals1))))[0]]
  differ = [(p, a, b) for p, a, b in zip(paths, avals1, avals2) if not same_types([a], [b])]
  diffs = [f"the output of {name1}{component(p)} has type {a.str_short()} but the "
           f"corresponding output of {name2} has type {b.str_short()}{mismatch(a, b)}"
           for p, a, b in differ]
  # (as JAX's, the axes named are those the *other* branch's output lacks)
  hint = pcast_hint([(ordered_axes(vma_of(x) - vma_of(y)), f" to the output of {n}"
                      f"{component(p)}") for p, a, b in differ
                     for n, x, y in ((name1, b, a), (name2, a, b))
                     if vma_of(x) != vma_of(y) and vma_of(y) - vma_of(x)], spaced=False)
  raise TypeError(f"{api} branches must have equal output types but they differ.\n\n{head}"
                  f"{listed(diffs, spaced=False)}\n{hint}Revise {name1} and/or {name2} so that "
                  "all output types match.")


def _bind_cond(index, funs, operands, names):
  leaves, in_tree = tree_util.tree_flatten(operands)
  avals = avals_of(leaves)
  traced_for = "cond" if names == ["false_fun", "true_fun"] else "switch"
  traced = [trace_user_fun(f, in_tree, avals, traced_for) for f in funs]
  if traced_for == "cond":  # (JAX compares true_fun's outputs with false_fun's)
    _check_branch_outputs("cond", ("true_fun", funs[1], *traced[1][::2]),
                          ("false_fun", funs[0], *traced[0][::2]))
  for i in range(1, len(funs) if traced_for == "switch" else 0):
    _check_branch_outputs("switch", ("branch 0", funs[0], *traced[0][::2]),
                          (f"branch{i}", funs[i], *traced[i][::2]))
  refs = refs_among(*(c for _, c, _ in traced))   # passed as values, written back after
  lifted = [carrying_refs(j, c, refs, f"cond's {name}")
            for (j, c, _), name in zip(traced, names)]
  branches, consts = _join_consts([j for j, _ in lifted], [c for _, c in lifted])
  check_control_flow_effects("cond" if len(funs) == 2 else "switch",
                             frozenset().union(*(b.effects for b in branches)))
  operands = [*consts, *read_refs(refs), *leaves]
  branches, forwarded = _without_forwarded(branches)
  outs = iter(cond_p.bind(index, *operands, branches=tuple(branches)))
  values = [next(outs) if k is None else _as_result(operands[k]) for k in forwarded]
  written = [j for j in range(len(refs)) if forwarded[j] != len(consts) + j]
  write_refs([refs[j] for j in written], [values[j] for j in written])
  return tree_util.tree_unflatten(traced[0][2], values[len(refs):])


def _as_result(x):
  """An operand a cond returns as it is, as an array (a Python or NumPy value converted, as
  JAX's cond returns arrays)."""
  return x if isinstance(x, (Array, Tracer)) else staged_constant(make_array(x))


def _without_forwarded(branches: Sequence[ClosedJaxpr]):
  """The branches without the outputs that every branch forwards from the same input (as
  JAX's cond leaves them out: such a value is the operand, unbatched where it is, and a
  ref that no branch writes keeps its value), and for each output that input's index, or
  None where the cond computes it."""
  def source(b, i):
    index = {id(v): k for k, v in enumerate(b.jaxpr.invars)}
    return index.get(id(b.jaxpr.outvars[i]))
  n_out = len(branches[0].jaxpr.outvars)
  forwarded = tuple(
      k if k is not None and all(source(b, i) == k for b in branches[1:]) else None
      for i, k in ((i, source(branches[0], i)) for i in range(n_out)))
  if all(k is None for k in forwarded):
    return branches, forwarded
  keep = [i for i, k in enumerate(forwarded) if k is None]

  def pruned():
    return [ClosedJaxpr(Jaxpr(b.jaxpr.constvars, b.jaxpr.invars,
                              [b.jaxpr.outvars[i] for i in keep], b.jaxpr.eqns,
                              b.jaxpr.effects), b.consts) for b in branches], ()
  return cached_trace(branches[0], ("forwarded", tuple(branches[1:]), forwarded),
                      pruned)[0], forwarded


def _join_consts(jaxprs: Sequence[ClosedJaxpr], consts: Sequence[Sequence]):
  """Branches whose leading consts differ become branches taking the union of every
  branch's consts, a value closed over by several branches passed once (as JAX's common
  consts); the same jaxprs each time for the same branches, const types and sharing."""
  slots: dict = {}
  joined_consts, layout = [], []
  for cs in consts:
    seen: dict = {}
    where = []
    for c in cs:  # the n-th use of a value within one branch keeps its own slot
      key = (id(c), seen.setdefault(id(c), 0))
      seen[id(c)] += 1
      if key not in slots:
        slots[key] = len(joined_consts)
        joined_consts.append(c)
      where.append(slots[key])
    layout.append(tuple(where))
  avals = tuple(get_aval(c) for c in joined_consts)
  joined, _ = cached_trace(jaxprs[0], ("join", tuple(jaxprs[1:]), avals, tuple(layout)),
                           lambda: (_joined(jaxprs, avals, layout), ()))
  return joined, joined_consts


def _joined(jaxprs: Sequence[ClosedJaxpr], avals, layout) -> list[ClosedJaxpr]:
  out = []
  for j, where in zip(jaxprs, layout):
    jx = j.jaxpr
    invars = [Var(a) for a in avals]
    for own, slot in zip(jx.invars[:len(where)], where):
      invars[slot] = own
    new = Jaxpr((), invars + jx.invars[len(where):], jx.outvars, jx.eqns, jx.effects)
    out.append(ClosedJaxpr(new, ()))
  return out


def _join_closed(closed: Sequence[ClosedJaxpr]):
  hoisted = [hoist(c) for c in closed]
  return _join_consts([h for h, _ in hoisted], [c for _, c in hoisted])


# ---------------------------------------------------------------------------------------
# The cond primitive: operands (index:i32[], *args); params branches (consts hoisted)

def _cond_abstract_eval(index, *avals, branches):
  if index.shape or index.dtype != np.int32:
    raise TypeError(f"cond: index must be an int32 scalar, got {index.str_short(short_dtypes=True)}")
  return branches[0].out_avals


def _cond_lowering(ctx, index, *args, branches):
  effectful = any(b.effects for b in branches)  # the token is captured and returned first
  out_avals = [TOKEN, *ctx.avals_out] if effectful else list(ctx.avals_out)
  token = ctx.give_token(effectful, [])

  def region(br):
    def body(sub, _):
      sub.take_token(effectful, token)
      return sub.give_token(effectful, sub.lower_jaxpr(br.jaxpr, (), list(args)))
    return ctx.region([], body)
  regions = [region(b) for b in branches]
  outs = ctx.op("stablehlo.case", [index], out_avals, regions=regions, in_avals=[_I32])
  return ctx.take_token(effectful, outs)


def _cond_jvp(primals, tangents, *, branches):
  index, args = primals[0], primals[1:]
  nz = [type(t) is not Zero for t in tangents[1:]]
  out_nz = [False] * len(branches[0].out_avals)
  for b in branches:
    _, b_nz = ad.jvp_closed_jaxpr(b, nz, instantiate_out=False)
    out_nz = [x or y for x, y in zip(out_nz, b_nz)]
  jvps = [ad.jvp_closed_jaxpr(b, nz, instantiate_out=out_nz)[0] for b in branches]
  new_branches, consts = _join_closed(jvps)
  tans = [t for t in tangents[1:] if type(t) is not Zero]
  outs = cond_p.bind(index, *consts, *args, *tans, branches=tuple(new_branches))
  n = len(branches[0].out_avals)
  it = iter(outs[n:])
  out_t = [next(it) if z else Zero(tangent_aval(a))
           for z, a in zip(out_nz, branches[0].out_avals)]
  return outs[:n], out_t


def _shared_residual_slots(res_avals: Sequence[Sequence[ShapedArray]]):
  """One residual list for every branch, as JAX joins them: each type gets as many slots
  as the branch needing the most of it (a branch fills the slots it does not use with
  zeros).  Returns (slot avals, per branch the slot of each of its residuals)."""
  slots: list = []
  where = []
  for avals in res_avals:
    taken: set = set()
    mine = []
    for a in avals:
      s = next((s for s, b in enumerate(slots) if b == a and s not in taken), None)
      if s is None:
        slots.append(a)
        s = len(slots) - 1
      taken.add(s)
      mine.append(s)
    where.append(tuple(mine))
  return slots, where


def _cond_partial_eval(trace, args, params):
  branches = params["branches"]
  index, ops = args[0], args[1:]
  if trace.is_unknown(index):
    return trace.stage(cond_p, args, params)
  unknowns = [trace.is_unknown(x) for x in ops]
  n_out = len(branches[0].out_avals)
  out_uk = [False] * n_out
  for b in branches:
    _, _, b_uk, _ = ad.partial_eval_jaxpr(b, unknowns)
    out_uk = [x or y for x, y in zip(out_uk, b_uk)]
  splits = [ad.partial_eval_jaxpr(b, unknowns, instantiate=out_uk) for b in branches]
  slots, where = _shared_residual_slots(
      [k.out_avals[len(k.out_avals) - nr:] for k, _, _, nr in splits])
  n_known_out = n_out - sum(out_uk)
  known_ops, uk_ops = partition(unknowns, ops)
  known_avals = [get_aval(x) for x in known_ops]

  def known_branch(i):
    known = splits[i][0]

    def fun(*xs):  # (every slot made empty first, then filled, as JAX's jaxprs show it)
      outs = call(known, *xs)
      res = [empty_like_aval(a) for a in slots]
      for s, r in zip(where[i], outs[n_known_out:]):
        res[s] = r
      return outs[:n_known_out] + res
    return trace_hoisted(fun, known_avals, cache_on=(
        known, ("cond_known", n_known_out, tuple(slots), where[i])))

  def unknown_branch(i):
    unknown = splits[i][1]
    uk_avals = [get_aval(x) for x in uk_ops]

    def fun(*xs):
      res, rest = xs[:len(slots)], xs[len(slots):]
      return call(unknown, *[res[s] for s in where[i]], *rest)
    return trace_hoisted(fun, slots + uk_avals,
                         cache_on=(unknown, ("cond_unknown", tuple(slots), where[i])))

  kb = [known_branch(i) for i in range(len(branches))]
  known_branches, kconsts = _join_consts([j for j, _ in kb], [c for _, c in kb])
  known_outs = cond_p.bind(index, *kconsts, *known_ops, branches=tuple(known_branches))
  residuals = known_outs[n_known_out:]
  ub = [unknown_branch(i) for i in range(len(branches))]
  unknown_branches, uconsts = _join_consts([j for j, _ in ub], [c for _, c in ub])
  staged = trace.stage(cond_p, [index, *uconsts, *residuals, *uk_ops],
                       dict(branches=tuple(unknown_branches)))
  return merge(out_uk, known_outs[:n_known_out], staged)


def _cond_transpose(cts, index, *args, branches):
  linear = [ad.is_undefined(x) for x in args]
  nonlin = [x for x in args if not ad.is_undefined(x)]
  cts = [ad.instantiate(c) for c in cts]
  transposed = [ad.transpose_closed_jaxpr(b, linear) for b in branches]
  new_branches, consts = _join_closed(transposed)
  outs = cond_p.bind(index, *consts, *nonlin, *cts, branches=tuple(new_branches))
  it = iter(outs)
  return [None] + [next(it) if l else None for l in linear]


def _cond_batch(axis, args, dims, *, branches):
  index, ops = args[0], args[1:]
  idx_dim, op_dims = dims[0], dims[1:]
  if idx_dim is not None:
    # A batched predicate: evaluate every branch, then select per lane.
    ops = [batching.bdim_to_front(x, d, axis.size) for x, d in zip(ops, op_dims)]
    index = batching.moveaxis(index, idx_dim, 0)
    outs_per_branch = []
    for i, b in enumerate(branches):
      bj, _ = batching.batch_closed_jaxpr(b, axis, [True] * len(ops), instantiate=True)
      # each branch sees its lanes' operands, the others' with their gradients stopped (as
      # JAX: so an unselected branch's NaN derivative cannot reach a gradient)
      taken = ew.eq(index, np.int32(i))
      outs_per_branch.append(call(bj, *[_lanes(taken, x) for x in ops]))
    outs = []
    for cases in zip(*outs_per_branch):
      shape = get_aval(cases[0]).shape
      which = shapes.broadcast_in_dim(index, shape, (0,))
      outs.append(ew.select_n(which, *cases))
    return outs, [0] * len(outs)
  ops = [batching.moveaxis(x, d, 0) if d is not None else x for x, d in zip(ops, op_dims)]
  in_b = [d is not None for d in op_dims]
  out_b = [False] * len(branches[0].out_avals)
  for b in branches:
    _, bb = batching.batch_closed_jaxpr(b, axis, in_b)
    out_b = [x or y for x, y in zip(out_b, bb)]
  batched = [batching.batch_closed_jaxpr(b, axis, in_b, instantiate=out_b)[0] for b in branches]
  new_branches, consts = _join_closed(batched)
  outs = cond_p.bind(index, *consts, *ops, branches=tuple(new_branches))
  return outs, [0 if b else None for b in out_b]


def _lanes(taken, x):
  """``x`` where ``taken`` (broadcast from the leading axis), else ``stop_gradient(x)``."""
  stopped = stop_gradient(x)
  shape = get_aval(x).shape
  if get_aval(taken).ndim != len(shape):
    taken = shapes.broadcast_in_dim(taken, shape, tuple(range(get_aval(taken).ndim)))
  return ew.select_n(taken, stopped, x)


def _cond_impl(index, *ops, branches):
  """Eager ``cond``: the branch the index picks (XLA's conditional runs the last one for an
  index out of range), compiled and run on its own. Its results are the conditional's; the
  branches not taken are traced but not compiled (an eager ``cond`` with new closures on
  every call compiles one of them, not all). Placed or checked results, and an index
  committed to a device or of another type than int32[] (its error), take the compiled
  conditional."""
  aval = get_aval(index)
  if (clients.several_devices or PLACING[0] or checks_results() or aval.shape
      or aval.dtype != np.int32 or (type(index) is Array and index._committed)):
    return apply_primitive(cond_p, index, *ops, branches=branches)
  i = int(index)
  branch = branches[i if 0 <= i < len(branches) else -1]
  outs = run_closed_jaxpr(branch, ops, "cond")
  # the conditional's types, its first branch's (weak types may differ between branches)
  return [x if x.aval == a else from_buffer(x._buf, a, x._committed)
          for x, a in zip(outs, branches[0].out_avals)]


cond_p = Primitive("cond", multiple_results=True)
cond_p.impl = _cond_impl
cond_p.vma_rule = varying.from_bodies
cond_p.abstract_eval = _cond_abstract_eval
cond_p.lowering = _cond_lowering
cond_p.effects = lambda branches: frozenset().union(*(b.effects for b in branches))
cond_p.jvp = _cond_jvp
cond_p.partial_eval = _cond_partial_eval
cond_p.transpose = _cond_transpose
cond_p.batch = _cond_batch
