"""``custom_linear_solve`` and ``custom_root``: solves whose derivatives come from the
linear operator (implicit differentiation), not from the solver's iterations.

``linear_solve`` is a primitive over (matvec, vecmat, solve, transpose_solve) jaxprs whose
closed-over values are operands.  Its JVP solves again for ``db - (d matvec) x``; it is
linear in ``b``, and its transpose is the solve with the transposed operator.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from xjax._src.foundations import tree_util
from xjax._src.core.avals import tangent_aval
from xjax._src.core.jaxpr import eval_jaxpr
from xjax._src.core.trace import Primitive, Tracer
from xjax._src.core.typed_ndarray import typed_value
from xjax._src.execution.array import Array, scalar_array
from xjax._src.core.values import get_aval
from xjax._src.primitives.custom_derivatives import custom_jvp
from xjax._src.interpreters import ad, batching
from xjax._src.interpreters.ad import Zero
from xjax._src.interpreters.higher_order import as_closed, hoist, trace_hoisted
from xjax._src.primitives.lax import elementwise as ew


def _trace(fun, name, tree, avals, has_aux=False):
  """``fun`` on pytree ``tree`` of ``avals`` as (jaxpr taking consts first, consts, the
  tree of its aux output); the jaxpr returns the solution's leaves, then aux's."""
  aux_trees = []

  def flat(*xs):
    out = fun(tree_util.tree_unflatten(tree, list(xs)))
    out, aux = out if has_aux else (out, None)
    leaves, out_tree = tree_util.tree_flatten(out)
    if out_tree != tree:
      raise TypeError(f"{name}() output pytree structure must match b, got {out_tree} "
                      f"and {tree}.")
    shapes, expected = [np.shape(x) for x in leaves], [a.shape for a in avals]
    if shapes != expected:
      raise ValueError(f"{name}() output shapes must match b, got {shapes} and {expected}")
    aux_leaves, aux_tree = tree_util.tree_flatten(aux)
    aux_trees.append(aux_tree)
    return leaves + aux_leaves
  jaxpr, consts = trace_hoisted(flat, avals)
  return jaxpr.jaxpr, consts, aux_trees[0]


def _transposed(jaxpr, consts, tree, avals):
  """The transpose of the linear map ``jaxpr`` (consts first) on pytree ``tree``."""
  def vecmat(y):
    args = [*consts, *(ad.UndefinedPrimal(a) for a in avals)]
    cts = ad.backward_pass(jaxpr, [], args, tree_util.tree_leaves(y))[len(consts):]
    return tree_util.tree_unflatten(tree, [ad.instantiate(c) for c in cts])
  return vecmat


def _tangent(fun, primal, tangent):
  """The tangent of ``fun``'s output at pytree ``primal`` along ``tangent``."""
  leaves, tree = tree_util.tree_flatten(primal)
  out_tree = []

  def flat(*xs):
    out, t = tree_util.tree_flatten(fun(tree_util.tree_unflatten(tree, list(xs))))
    out_tree.append(t)
    return out
  _, tangents = ad.jvp_flat(flat, leaves, tree_util.tree_leaves(tangent))
  return tree_util.tree_unflatten(out_tree[0], [ad.instantiate(t) for t in tangents])


def _split(args, counts):
  out, i = [], 0
  for n in counts:
    out.append(list(args[i:i + n]))
    i += n
  out.append(list(args[i:]))
  return out


def _abstract_eval(*avals, jaxprs, counts):
  """The right-hand side's avals, then those of the solve's aux outputs."""
  rhs = avals[sum(counts):]
  return [*rhs, *(v.aval for v in jaxprs[2].outvars[len(rhs):])]


def _impl(*args, jaxprs, counts):
  groups = _split(args, counts)
  return eval_jaxpr(jaxprs[2], [], *groups[2], *groups[-1])


def _lowering(ctx, *args, jaxprs, counts):
  groups = _split(args, counts)
  return ctx.lower_jaxpr(jaxprs[2], [], groups[2] + groups[-1])


def _jvp(primals, tangents, *, jaxprs, counts):
  """The solution's tangent solves again; the aux outputs' tangents are zero."""
  out = linear_solve_p.bind(*primals, jaxprs=jaxprs, counts=counts)
  groups = _split(primals, counts)
  tgroups = _split(tangents, counts)
  x, aux = out[:len(groups[-1])], out[len(groups[-1]):]
  aux_zeros = [Zero(tangent_aval(get_aval(o))) for o in aux]
  rhs = [ad.instantiate(t) if type(t) is not Zero else None for t in tgroups[-1]]
  if any(type(t) is not Zero for t in tgroups[0]):  # d(matvec) applied to x
    _, dmv = ad.jvp_flat(lambda *cs: eval_jaxpr(jaxprs[0], [], *cs, *x), groups[0], tgroups[0])
    rhs = [ew.neg(d) if r is None else ew.sub(r, d) if type(d) is not Zero else r
           for r, d in zip(rhs, [ad.instantiate(d) for d in dmv])]
  if all(r is None for r in rhs):
    return out, [Zero(tangent_aval(get_aval(o))) for o in x] + aux_zeros
  rhs = [ad.zeros_of(tangent_aval(get_aval(o))) if r is None else r for r, o in zip(rhs, x)]
  consts = [p for g in groups[:-1] for p in g]
  dx = linear_solve_p.bind(*consts, *rhs, jaxprs=jaxprs, counts=counts)[:len(x)]
  return out, [*dx, *aux_zeros]


def _transpose(cts, *args, jaxprs, counts):
  """Solves with the transposed operator; the aux outputs' cotangents are dropped (their
  tangents are zero)."""
  n = sum(counts)
  if any(ad.is_undefined(a) for a in args[:n]):
    raise TypeError("custom_linear_solve is only linear in its right-hand side")
  cts = cts[:len(args) - n]
  if all(type(c) is Zero for c in cts):
    return [None] * n + [Zero(a.aval) for a in args[n:]]
  if jaxprs[3] is None:
    raise TypeError("transpose_solve required for backwards mode automatic "
                    "differentiation of custom_linear_solve")
  cts = [ad.instantiate(c) for c in cts]
  g = _split(args[:n], counts)[:-1]
  swapped = (jaxprs[1], jaxprs[0], jaxprs[3], jaxprs[2])
  swapped_counts = (counts[1], counts[0], counts[3], counts[2])
  outs = linear_solve_p.bind(*g[1], *g[0], *g[3], *g[2], *cts, jaxprs=swapped,
                             counts=swapped_counts)
  return [None] * n + list(outs[:len(cts)])


def _batch(axis, args, dims, *, jaxprs, counts):
  """The solve of each batch element stays a ``custom_linear_solve`` (so its derivative
  stays implicit): the right-hand side and solution are batched at 0, and each of the four
  jaxprs is batched over its own operands."""
  groups, gdims = _split(list(args), counts), _split(list(dims), counts)
  rhs = [batching.bdim_to_front(x, d, axis.size, axis.explicit_mesh_axis)
         for x, d in zip(groups[-1], gdims[-1])]
  new_jaxprs, operands, new_counts = [], [], []
  for jaxpr, consts, cdims in zip(jaxprs, groups[:-1], gdims[:-1]):
    if jaxpr is None:
      new_jaxprs.append(None)
      new_counts.append(0)
      continue
    consts = [x if d is None else batching.moveaxis(x, d, 0) for x, d in zip(consts, cdims)]
    in_batched = [d is not None for d in cdims] + [True] * len(rhs)
    batched, _ = batching.batch_closed_jaxpr(as_closed(jaxpr), axis, in_batched, True)
    batched, extra = hoist(batched)
    new_jaxprs.append(batched.jaxpr)
    operands += [*extra, *consts]
    new_counts.append(len(extra) + len(consts))
  outs = linear_solve_p.bind(*operands, *rhs, jaxprs=tuple(new_jaxprs),
                             counts=tuple(new_counts))
  return outs, [0] * len(outs)


linear_solve_p = Primitive("custom_linear_solve", multiple_results=True)
linear_solve_p.abstract_eval = _abstract_eval
linear_solve_p.impl = _impl
linear_solve_p.lowering = _lowering
linear_solve_p.jvp = _jvp
linear_solve_p.transpose = _transpose
linear_solve_p.batch = _batch


def custom_linear_solve(matvec: Callable, b: Any, solve: Callable,
                        transpose_solve: Callable | None = None, symmetric: bool = False,
                        has_aux: bool = False):
  """``solve(matvec, b)``, differentiated implicitly through the linear map ``matvec``.

  ``solve(matvec, b)`` and ``transpose_solve(vecmat, b)`` must solve ``matvec(x) = b`` and
  ``vecmat(x) = b``; ``symmetric=True`` uses ``solve`` for both.  With ``has_aux`` the
  solvers return ``(x, aux)`` and the result is ``(x, aux)``.
  """
  leaves, tree = tree_util.tree_flatten(b)
  avals = [get_aval(x) for x in leaves]
  mv, mv_consts, _ = _trace(matvec, "matvec", tree, avals)
  matvec_fn = lambda x: tree_util.tree_unflatten(
      tree, eval_jaxpr(mv, [], *mv_consts, *tree_util.tree_leaves(x)))
  s, s_consts, aux_tree = _trace(lambda x: solve(matvec_fn, x), "solve", tree, avals, has_aux)
  if symmetric:
    vm, vm_consts, ts, ts_consts = mv, mv_consts, s, s_consts
  else:
    vecmat = _transposed(mv, mv_consts, tree, avals)
    vm, vm_consts, _ = _trace(vecmat, "vecmat", tree, avals)
    ts, ts_consts, _ = (None, [], None) if transpose_solve is None else _trace(
        lambda x: transpose_solve(vecmat, x), "transpose_solve", tree, avals, has_aux)
  counts = (len(mv_consts), len(vm_consts), len(s_consts), len(ts_consts))
  out = linear_solve_p.bind(*mv_consts, *vm_consts, *s_consts, *ts_consts, *leaves,
                            jaxprs=(mv, vm, s, ts), counts=counts)
  x = tree_util.tree_unflatten(tree, out[:len(leaves)])
  return (x, tree_util.tree_unflatten(aux_tree, out[len(leaves):])) if has_aux else x


def custom_root(f: Callable, initial_guess: Any, solve: Callable, tangent_solve: Callable,
                has_aux: bool = False):
  """The root ``solve(f, initial_guess)`` of ``f``, differentiated implicitly: tangents
  solve the linearized ``f`` with ``tangent_solve(g, y)`` (which returns x with g(x) = y).
  Only what ``f`` closes over gets tangents: ``solve`` is traced, and what it closes over
  enters the root as operands without derivatives, as in JAX."""
  guess_leaves, tree = tree_util.tree_flatten(initial_guess)
  avals = [get_aval(x) for x in guess_leaves]
  closed, consts = trace_hoisted(
      lambda *xs: _leaves_as(f(tree_util.tree_unflatten(tree, list(xs))), tree, "f"), avals)

  def f_of(cs, x):
    return tree_util.tree_unflatten(
        tree, eval_jaxpr(closed.jaxpr, [], *cs, *tree_util.tree_leaves(x)))

  aux_tree = []

  def solve_flat(*xs):
    out = solve(f, tree_util.tree_unflatten(tree, list(xs)))
    sol, aux = out if has_aux else (out, None)
    aux_leaves, aux_tree_ = tree_util.tree_flatten(aux)
    aux_tree.append(aux_tree_)
    return _leaves_as(sol, tree, "solve") + aux_leaves
  solved, solve_consts = trace_hoisted(solve_flat, avals)
  n = len(guess_leaves)

  @custom_jvp
  def root(cs, scs, guess):
    outs = eval_jaxpr(solved.jaxpr, [], *scs, *tree_util.tree_leaves(guess))
    outs = [_literal_out(o, v.aval) for o, v in zip(outs, solved.jaxpr.outvars)]
    return tree_util.tree_unflatten(tree, outs[:n]), outs[n:]

  def root_jvp(primals, tangents):
    cs, scs, guess = primals
    dcs = tangents[0]
    sol, aux = root(cs, scs, guess)
    f_dot = _tangent(lambda c: f_of(c, sol), cs, dcs)
    lin = lambda v: _tangent(lambda x: f_of(cs, x), sol, v)
    dx = tangent_solve(lin, f_dot)
    zeros = [ad.zeros_of(tangent_aval(get_aval(a))) for a in aux]
    return (sol, aux), (tree_util.tree_map(ew.neg, dx), zeros)

  root.defjvp(root_jvp)
  out, aux = root(list(consts), list(solve_consts), initial_guess)
  return (out, tree_util.tree_unflatten(aux_tree[0], aux)) if has_aux else out


def _literal_out(o, aval):
  """An output of the traced ``solve`` as JAX hands it back: a Python number it returned
  as a typed scalar, a constant array as an Array."""
  if isinstance(o, (Array, Tracer)):
    return o
  if type(o) in (int, float, complex):
    return typed_value(o, aval)
  return scalar_array(o, aval.dtype, aval.weak_type)


def _leaves_as(out, tree, name: str) -> list:
  """The leaves of ``fun``'s output ``out``, which must have the guess's structure."""
  leaves, out_tree = tree_util.tree_flatten(out)
  if out_tree != tree:
    raise TypeError(f"{name}() output pytree structure must match initial_guess, got "
                    f"{out_tree} and {tree}.")
  return leaves
