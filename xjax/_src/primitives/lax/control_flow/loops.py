"""Loops: ``while_loop`` and ``scan`` (with ``fori_loop`` and ``map`` built on them).

``while`` carries (cond consts, body consts, carry) through ``stablehlo.while``, led by the
effect token when its bodies have effects (so they run in program order, once per
iteration).  ``scan`` lowers to a while loop over an index that slices ``xs`` and stacks
``ys``; unlike ``while`` it has partial-evaluation and transpose rules, so reverse-mode
differentiation works.
"""
from __future__ import annotations

import functools
import inspect
import operator
from typing import Callable

import numpy as np

from xjax._src.core import varying
from xjax._src.foundations import dtypes, tree_util
from xjax._src.backend.lowering import TOKEN
from xjax._src.core.avals import (ShapedArray, mismatch, result_sharding, spec_of,
                                   tangent_aval, vma_of)
from xjax._src.foundations.sharding import PartitionSpec
from xjax._src.core.concrete import concrete_or_error
from xjax._src.foundations.errors import (ConcretizationTypeError, InconclusiveDimensionOperation,
                                         api_boundary)
from xjax._src.core.jaxpr import Var
from xjax._src.core.trace import Primitive, Tracer
from xjax._src.execution.array import Array
from xjax._src.core.values import get_aval
from xjax._src.interpreters import ad, batching
from xjax._src.interpreters.ad import Zero
from xjax._src.interpreters.staging import make_debug_info, trace_to_jaxpr
from xjax._src.primitives.lax import elementwise as ew
from xjax._src.primitives.lax import reductions, shapes
from xjax._src.core.effects import check_control_flow_effects
from xjax._src.interpreters.higher_order import (cached_trace, carry_fixpoint, hoist, merge,
                                                 partition, trace_hoisted)
from xjax._src.primitives.lax.control_flow.body_tracing import (
    avals_of, call, in_python, listed, newly_varying, pcast_hint, same_types, split,
    trace_user_fun)
from xjax._src.primitives.lax.control_flow.carried_refs import carrying_refs, refs_among
from xjax._src.primitives.state.discharge import read_refs, write_refs


# ---------------------------------------------------------------------------------------
# User API

@api_boundary
def while_loop(cond_fun: Callable, body_fun: Callable, init_val):
  """Repeats ``val = body_fun(val)`` while ``cond_fun(val)``; returns the final ``val``."""
  if not callable(cond_fun) or not callable(body_fun):
    raise TypeError("while_loop: cond_fun and body_fun arguments should be callable.")
  if in_python():
    try:
      val = tree_util.tree_map(_as_array, init_val)
      while cond_fun(val):
        val = tree_util.tree_map(_as_array, body_fun(val))
      return val
    except ConcretizationTypeError:  # (under vmap, say: the loop is staged instead, as JAX)
      pass
  leaves, tree = tree_util.tree_flatten(init_val)
  avals = avals_of(leaves)
  arg_tree = tree_util.tree_structure((init_val,))
  cond_j, cond_consts, cond_tree = trace_user_fun(cond_fun, arg_tree, avals, "while_cond")
  if not tree_util.treedef_is_leaf(cond_tree) or len(cond_j.out_avals) != 1:
    raise TypeError(f"cond_fun must return a boolean scalar, but got pytree {cond_tree}.")
  if cond_j.out_avals[0].shape or cond_j.out_avals[0].dtype != np.bool_:
    raise TypeError("cond_fun must return a boolean scalar, but got output type(s) "
                    f"{list(cond_j.out_avals)}.")
  body_j, body_consts, body_tree = trace_user_fun(body_fun, arg_tree, avals, "while_body")
  if body_tree == tree and _promote_weak_carry(leaves, avals, body_j.out_avals):
    init_val = tree_util.tree_unflatten(tree, leaves)
    return while_loop(cond_fun, body_fun, init_val)
  _check_carry("while_loop body function", body_fun, tree, avals, body_tree,
               body_j.out_avals)
  refs = refs_among(cond_consts, body_consts)   # carried as values, written back after
  cond_j, cond_consts = carrying_refs(cond_j, cond_consts, refs, "while_loop's cond_fun",
                                      returns_refs=False)
  body_j, body_consts = carrying_refs(body_j, body_consts, refs, "while_loop's body_fun")
  check_control_flow_effects("while", cond_j.effects | body_j.effects)
  leaves = read_refs(refs) + leaves
  outs = while_p.bind(*cond_consts, *body_consts, *leaves, cond_jaxpr=cond_j,
                      body_jaxpr=body_j, cond_nconsts=len(cond_consts),
                      body_nconsts=len(body_consts))
  outs = _forward_unchanged(body_j, len(body_consts), leaves, outs)
  write_refs(refs, outs[:len(refs)])
  return tree_util.tree_unflatten(tree, outs[len(refs):])


def _as_array(x):
  """``x`` as an array (JAX's ``lax.asarray``): Python scalars weakly typed."""
  if isinstance(x, (Array, Tracer)):
    return x
  aval = get_aval(x)
  return ew.convert_element_type(x, aval.dtype, aval.weak_type)


def _forward_unchanged(body, nconsts, init_leaves, outs):
  """Carries the body passes through untouched come back as the init values themselves
  (Python scalars stay Python scalars, as in JAX)."""
  invars, outvars = body.jaxpr.invars[nconsts:], body.jaxpr.outvars
  return [x if i < len(outvars) and outvars[i] is invars[i] else o
          for i, (x, o) in enumerate(zip(init_leaves, outs))] + list(outs[len(init_leaves):])


def _promote_weak_carry(leaves, in_avals, out_avals) -> bool:
  """Weakly typed carry inits whose dtype the body changes become strong, of the promotion
  of both (in place; as JAX: a weak float carry the body makes an int stays a float, and
  the body's carry types then disagree).  A weak init the body merely strengthens stays
  weak, as in JAX.

  Returns whether any changed, so the caller retraces with the promoted inits.
  """
  changed = False
  for k, (a, b) in enumerate(zip(in_avals, out_avals)):
    if a.weak_type and a.dtype != b.dtype:
      leaves[k] = ew.convert_element_type(leaves[k], dtypes.result_type(a, b), False)
      changed = True
  return changed


def _check_carry(what, body_fun, in_tree, in_avals, out_tree, out_avals):
  """JAX's TypeError, in its words, where the body's carry output differs from its input
  in structure or in type (weak types aside)."""
  if in_tree == out_tree and same_types(in_avals, out_avals):
    return
  try:
    name = next(iter(inspect.signature(body_fun).parameters))
  except (ValueError, TypeError, StopIteration):
    name = None

  def component(path):
    if name:
      return f"the input carry component {name}{tree_util.keystr(path)}" if path else \
          f"the input carry {name}"
    return f"the input carry at path {tree_util.keystr(path)}" if path else "the input carry"
  if in_tree != out_tree:
    try:
      diffs = [f"{component(path)} is a {a} but the corresponding component of the carry "
               f"output is a {b}, so {why}" for path, a, b, why in tree_util.equality_errors(
                   tree_util.tree_unflatten(in_tree, in_avals),
                   tree_util.tree_unflatten(out_tree, out_avals))]
      differences = listed(diffs, spaced=True)
    except Exception:   # (an output tree that does not rebuild)
      differences = (f"the input tree structure is:\n{in_tree}\nthe output tree structure "
                     f"is:\n{out_tree}\n")
    raise TypeError(f"{what} carry input and carry output must have the same pytree "
                    f"structure, but they differ:\n\n{differences}\nRevise the function so "
                    "that the carry output has the same pytree structure as the carry input.")
  paths = [p for p, _ in tree_util.tree_flatten_with_path(
      tree_util.tree_unflatten(in_tree, range(len(in_avals))))[0]]
  diffs = [f"{component(path)} has type {a.str_short()} but the corresponding output carry "
           f"component has type {b.str_short()}{mismatch(a, b)}"
           for path, a, b in zip(paths, in_avals, out_avals) if not same_types([a], [b])]
  hint = pcast_hint([(newly_varying(a, b), ", to the initial carry value corresponding to "
                      + component(path)) for path, a, b in zip(paths, in_avals, out_avals)
                     if not same_types([a], [b]) and newly_varying(a, b)], spaced=True)
  raise TypeError(f"{what} carry input and carry output must have equal types, but they "
                  f"differ:\n\n{listed(diffs, spaced=True)}\n{hint}Revise the function so "
                  "that all output types match the corresponding input types.")


@api_boundary
def fori_loop(lower, upper, body_fun: Callable, init_val, *, unroll=None):
  """``for i in range(lower, upper): val = body_fun(i, val)``.

  Concrete bounds give a ``scan`` (reverse-mode differentiable); traced bounds a while loop.
  """
  if not callable(body_fun):
    raise TypeError("fori_loop: body_fun argument should be callable.")
  unroll = None if unroll is None else _static_unroll(unroll)
  lo_c, hi_c = _concrete_int(lower), _concrete_int(upper)
  dtype = _bound_dtype(lower, upper)
  weak = get_aval(lower).weak_type  # the index is as weak as ``lower``
  if lo_c is not None and hi_c is not None:  # concrete bounds act as Python ints
    dtype, weak = dtypes.default_int_dtype(), True
  if lo_c is not None and hi_c is not None and in_python():  # (the index a Python int)
    for i in range(lo_c, hi_c):
      init_val = body_fun(i, init_val)
    return init_val
  if lo_c is not None and hi_c is not None:
    one = ew.convert_element_type(np.ones((), dtype), dtype, weak)
    def step(loop_carry, _):  # (JAX's name for it, which its errors show)
      i, val = loop_carry
      return (ew.add(i, one), body_fun(i, val)), None
    start = ew.convert_element_type(np.asarray(lo_c, dtype), dtype, weak)
    # ``step`` is new on every call: its trace is cached on ``body_fun`` instead.
    (_, out), _ = _scan(step, (start, init_val), None, max(hi_c - lo_c, 0), False,
                        1 if unroll is None else unroll, (body_fun, ("fori", dtype, weak)))
    return out
  if unroll is not None and unroll is not False and unroll != 1:
    raise ValueError("Can only use `unroll` in `fori_loop` if the loop bounds are statically "
                     "known: pass Python ints (or concrete arrays) as lower and upper, or drop "
                     "unroll.")
  # (a bound of another dtype converted, strongly typed; the index as weak as ``lower``)
  if get_aval(lower).dtype != dtype:
    lower = ew.convert_element_type(lower, dtype)
  if get_aval(upper).dtype != dtype:
    upper = ew.convert_element_type(upper, dtype)

  def body(loop_carry):  # (JAX's name for it, which its errors show)
    i, hi, val = loop_carry
    return ew.add(i, ew._const(i, 1)), hi, body_fun(i, val)
  _, _, out = while_loop(lambda c: ew.lt(c[0], c[1]), body, (lower, upper, init_val))
  return out


def _concrete_int(x):
  if isinstance(x, Tracer):
    return None
  try:
    return int(x)
  except (TypeError, ValueError, InconclusiveDimensionOperation):  # (a symbolic bound)
    return None


def _bound_dtype(lower, upper):
  """The loop index dtype: the bounds' common dtype, as JAX: equal dtypes, or signed
  integers where a weakly typed bound takes the other's type."""
  lo, hi = get_aval(lower), get_aval(upper)
  if lo.dtype == hi.dtype:
    return lo.dtype
  if all(np.issubdtype(a.dtype, np.signedinteger) for a in (lo, hi)) and (
      lo.weak_type != hi.weak_type):
    return hi.dtype if lo.weak_type else lo.dtype
  raise TypeError("lower and upper arguments to fori_loop must have equal types, "
                  f"got {lo.dtype.name} and {hi.dtype.name}")


@api_boundary
def scan(f: Callable, init, xs=None, length: int | None = None, reverse: bool = False,
         unroll: int | bool = 1, _split_transpose: bool = False):
  """``carry, y = f(carry, x)`` over the leading axis of ``xs``; returns (carry, stacked ys)."""
  return _scan(f, init, xs, length, reverse, unroll, (f, "scan"))


def _static_unroll(unroll):
  """``unroll`` as a bool or an int: ConcretizationTypeError when traced, TypeError for a
  float (as JAX)."""
  unroll = concrete_or_error(unroll, "scan unroll (a concrete int or bool)")
  return unroll if isinstance(unroll, bool) else operator.index(unroll)


def _scan(f: Callable, init, xs, length, reverse, unroll, cache_on: tuple):
  """``scan``, with ``f``'s trace cached on ``cache_on`` = (owner, key): what ``f`` is."""
  if not callable(f):
    raise TypeError(f"scan: f argument should be a callable, got {f!r}")
  unroll = _static_unroll(unroll)
  if not isinstance(unroll, bool) and unroll < 0:
    raise ValueError("`unroll` must be a `bool` or a non-negative `int`.")
  if isinstance(reverse, Tracer):  # a TypeError, as JAX's (an unhashable parameter)
    raise TypeError(f"scan: reverse must be a static bool, got the traced value {reverse}.")
  xs_leaves, xs_tree = tree_util.tree_flatten(xs)
  xs_avals = avals_of(xs_leaves)
  lengths = []
  for x, a in zip(xs_leaves, xs_avals):
    if not a.shape:  # (a Python scalar is a ValueError in JAX, a 0-d array an IndexError)
      raise (IndexError if hasattr(x, "shape") else ValueError)(
          f"scan got value with no leading axis to scan over: "
          f"{a.str_short(short_dtypes=True) if hasattr(x, 'shape') else x}.")
    lengths.append(a.shape[0])
  if length is not None:
    length = int(length)
    if any(n != length for n in lengths):
      raise ValueError(f"scan got `length` argument of {length} which disagrees with leading "
                       f"axis sizes {sorted(set(lengths))}.")
  elif lengths:
    if len(set(lengths)) > 1:
      shown = ", ".join(str(n) for n in lengths)
      raise ValueError("scan got values with different leading axis sizes: " + shown + ".")
    length = lengths[0]
  else:
    raise ValueError("scan got no values to scan over and `length` not provided.")
  if any(spec_of(a)[0] is not None for a in xs_avals):  # (over Explicit mesh axes)
    raise ValueError("0th dimension of all xs should be replicated. Got " + ", ".join(
        str(PartitionSpec(*spec_of(a))) for a in xs_avals))
  if in_python():
    return _scan_in_python(f, init, xs_leaves, xs_tree, length, reverse)
  carry_leaves, carry_tree = tree_util.tree_flatten(init)
  carry_avals = avals_of(carry_leaves)
  x_avals = [_element(a) for a in xs_avals]
  in_tree = tree_util.tree_structure((init, xs))
  body_avals = tuple(carry_avals + x_avals)
  owner, what = cache_on
  jaxpr, consts, (c_tree, y_tree, n_c) = cached_trace(
      owner, (what, in_tree, body_avals), lambda: _trace_scan_body(f, in_tree, body_avals))
  if c_tree == carry_tree and _promote_weak_carry(carry_leaves, carry_avals,
                                                  jaxpr.out_avals[:n_c]):
    return _scan(f, tree_util.tree_unflatten(carry_tree, carry_leaves), xs, length, reverse,
                 unroll, cache_on)
  _check_carry("scan body function", f, carry_tree, carry_avals, c_tree,
               jaxpr.out_avals[:n_c])
  unroll = int(length if unroll is True else (1 if unroll is False else unroll))
  refs = refs_among(consts)   # carried as values, written back after
  jaxpr, consts = carrying_refs(jaxpr, consts, refs, "scan's body")
  check_control_flow_effects("scan", jaxpr.effects)
  carry_leaves = read_refs(refs) + carry_leaves
  n_c += len(refs)
  outs = scan_p.bind(*consts, *carry_leaves, *xs_leaves, jaxpr=jaxpr, num_consts=len(consts),
                     num_carry=len(carry_leaves), length=length, reverse=bool(reverse),
                     unroll=unroll)
  carry = _forward_unchanged(jaxpr, len(consts), carry_leaves, outs[:n_c])
  write_refs(refs, carry[:len(refs)])
  return (tree_util.tree_unflatten(carry_tree, carry[len(refs):]),
          tree_util.tree_unflatten(y_tree, outs[n_c:]))


def _scan_in_python(f: Callable, init, xs_leaves, xs_tree, length: int, reverse: bool):
  """``scan`` as a Python loop (under ``disable_jit``, as JAX's): ``ys`` stacked with
  ``concatenate``, so they are as weakly typed as all of them are."""
  if length == 0:
    raise ValueError("zero-length scan is not supported in disable_jit() mode because the "
                     "output type is unknown.")
  carry, ys = init, []
  for i in (range(length - 1, -1, -1) if reverse else range(length)):
    x = tree_util.tree_unflatten(xs_tree, [shapes.index_in_dim(v, i, keepdims=False)
                                           for v in xs_leaves])
    carry, y = f(carry, x)
    ys.append(y)
  if reverse:
    ys.reverse()
  stack = lambda *vs: shapes.concatenate([shapes.expand_dims(v, (0,)) for v in vs], 0)
  return carry, tree_util.tree_map(stack, *ys)


def _mapped(f: Callable, xs):
  """``f`` vectorized over the leading axis of every leaf of ``xs`` (vmap's core)."""
  leaves, tree = tree_util.tree_flatten(xs)
  size = get_aval(leaves[0]).shape[0]
  out_tree = []

  def flat(*ls):
    out, t = tree_util.tree_flatten(f(tree_util.tree_unflatten(tree, list(ls))))
    out_tree.append(t)
    return out
  outs, dims = batching.batch_flat(flat, leaves, [0] * len(leaves),
                                   batching.AxisData(size, None))
  return tree_util.tree_unflatten(
      out_tree[0], [batching.matchaxis(o, d, 0, size) for o, d in zip(outs, dims)])


def _trace_scan_body(f: Callable, in_tree, avals):
  """(jaxpr, consts, (carry tree, y tree, number of carry leaves)) of ``f(carry, x)``."""
  out_tree_box = []

  def body(*leaves):
    c, x = tree_util.tree_unflatten(in_tree, leaves)
    out = f(c, x)
    if not isinstance(out, (tuple, list)) or len(out) != 2:  # a TypeError, as JAX's
      shown = tree_util.tree_map(lambda v: get_aval(v) if isinstance(v, Tracer) else v, out)
      raise TypeError(f"scan body output must be a pair, got {shown}: return (carry, y).")
    carry_out, y = out
    c_leaves, c_tree = tree_util.tree_flatten(carry_out)
    y_leaves, y_tree = tree_util.tree_flatten(y)
    out_tree_box.append((c_tree, y_tree, len(c_leaves)))
    return c_leaves + y_leaves

  jaxpr, consts = trace_hoisted(body, avals, make_debug_info(f, None, traced_for="scan"))
  return jaxpr, consts, out_tree_box[0]


@api_boundary
def map(f: Callable, xs, *, batch_size: int | None = None):
  """``stack([f(x) for x in xs])`` over the leading axis of pytree ``xs``, as a scan."""
  scalars = [x for x in tree_util.tree_leaves(xs) if not hasattr(x, "shape")]
  if scalars:
    raise ValueError("scan got value with no leading axis to scan over: "
                     f"{', '.join(str(x) for x in scalars)}.")
  if batch_size is None:
    return scan(lambda _, x: ((), f(x)), (), xs)[1]
  leaves, tree = tree_util.tree_flatten(xs)
  n = get_aval(leaves[0]).shape[0]
  nb, rem = divmod(n, batch_size) if batch_size else (0, n)  # (0: one vmap, as JAX)
  outs = None
  if nb:
    main = [shapes.reshape(shapes.slice_in_dim(x, 0, nb * batch_size),
                           (nb, batch_size) + get_aval(x).shape[1:]) for x in leaves]
    ys = scan(lambda _, x: ((), _mapped(f, tree_util.tree_unflatten(tree, x))), (), main)[1]
    outs = tree_util.tree_map(
        lambda y: shapes.reshape(y, (nb * batch_size,) + get_aval(y).shape[2:]), ys)
  if rem:
    tail = tree_util.tree_unflatten(tree, [shapes.slice_in_dim(x, nb * batch_size, n)
                                           for x in leaves])
    rest = _mapped(f, tail)
    outs = rest if outs is None else tree_util.tree_map(
        lambda a, b: shapes.concatenate([a, b], 0), outs, rest)
  return outs


# ---------------------------------------------------------------------------------------
# The while primitive: operands (cond consts, body consts, carry)

def _while_abstract_eval(*avals, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
  return body_jaxpr.out_avals


@functools.lru_cache(maxsize=256)
def _lanes(pred: ShapedArray, carry: tuple):
  """For a batched predicate (a vmapped loop's, one per lane), the jaxprs the lowering
  adds: whether any lane goes on, and each carry updated only in the lanes still going
  (a carry without the predicate's leading dimensions takes its new value); None for a
  scalar predicate."""
  if not pred.shape:
    return None
  axes = tuple(range(pred.ndim))

  def keep(p, *xs):
    new, old = xs[:len(carry)], xs[len(carry):]
    return [n if a.shape[:pred.ndim] != pred.shape else
            ew.select_n(shapes.broadcast_in_dim(p, a.shape, axes), o, n)
            for n, o, a in zip(new, old, carry)]
  return (trace_to_jaxpr(lambda p: [reductions.reduce_or(p, axes)], [pred]),
          trace_to_jaxpr(keep, [pred, *carry, *carry]))


def _while_lowering(ctx, *args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
  nc = cond_nconsts + body_nconsts
  effectful = bool(cond_jaxpr.effects or body_jaxpr.effects)  # the token is carried first
  avals = [TOKEN, *ctx.avals_in] if effectful else list(ctx.avals_in)

  lanes = _lanes(cond_jaxpr.out_avals[0], tuple(body_jaxpr.out_avals))

  def cond_region(sub, xs):
    cc, bc, carry = split(sub.take_token(effectful, xs), [cond_nconsts, body_nconsts])
    pred = sub.lower_jaxpr(cond_jaxpr.jaxpr, (), cc + carry)
    return pred if lanes is None else sub.lower_jaxpr(lanes[0].jaxpr, (), pred)

  def body_region(sub, xs):
    xs = sub.take_token(effectful, xs)
    cc, bc, carry = split(xs, [cond_nconsts, body_nconsts])
    outs = sub.lower_jaxpr(body_jaxpr.jaxpr, (), bc + carry)
    if lanes is not None:  # finished lanes keep their carry
      pred = sub.lower_jaxpr(cond_jaxpr.jaxpr, (), cc + carry)
      outs = sub.lower_jaxpr(lanes[1].jaxpr, (), pred + outs + carry)
    return sub.give_token(effectful, xs[:nc] + outs)

  regions = [ctx.region(avals, cond_region), ctx.region(avals, body_region)]
  outs = ctx.op("stablehlo.while", ctx.give_token(effectful, args), avals, regions=regions)
  outs = ctx.take_token(effectful, [outs] if isinstance(outs, str) else outs)
  return outs[nc:]


def _while_jvp(primals, tangents, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
  cc, bc, carry = split(primals, [cond_nconsts, body_nconsts])
  _, bc_t, carry_t = split(tangents, [cond_nconsts, body_nconsts])
  bc_nz = [type(t) is not Zero for t in bc_t]
  carry_nz = carry_fixpoint(
      lambda nz: ad.jvp_closed_jaxpr(body_jaxpr, bc_nz + nz, instantiate_out=nz)[1],
      [type(t) is not Zero for t in carry_t])
  body_jvp, _ = ad.jvp_closed_jaxpr(body_jaxpr, bc_nz + carry_nz, instantiate_out=carry_nz)
  nb, n = len(bc), len(carry)
  bct = [t for t, z in zip(bc_t, bc_nz) if z]
  ct = [ad.instantiate(t) for t, z in zip(carry_t, carry_nz) if z]
  n_bct = len(bct)
  # New body: consts (bc, bct), carry (carry, ct).
  b_avals = [get_aval(x) for x in [*bc, *bct, *carry, *ct]]

  def body(*xs):
    b, bt, c, t = split(xs, [nb, n_bct, n])[:4]
    outs = call(body_jvp, *b, *c, *bt, *t)
    return outs[:n] + outs[n:]
  new_body, body_consts = trace_hoisted(body, b_avals,
                                        cache_on=(body_jvp, ("while_jvp", nb, n_bct, n)))
  c_avals = [get_aval(x) for x in [*cc, *carry, *ct]]
  ncc = len(cc)

  def cond(*xs):
    return call(cond_jaxpr, *xs[:ncc + n])
  new_cond, cond_consts = trace_hoisted(cond, c_avals,
                                        cache_on=(cond_jaxpr, ("while_jvp", ncc, n)))
  outs = while_p.bind(*cond_consts, *cc, *body_consts, *bc, *bct, *carry, *ct,
                      cond_jaxpr=new_cond, body_jaxpr=new_body,
                      cond_nconsts=len(cond_consts) + ncc,
                      body_nconsts=len(body_consts) + nb + n_bct)
  out_p, out_t = outs[:n], iter(outs[n:])
  return out_p, [next(out_t) if z else Zero(tangent_aval(get_aval(p)))
                 for z, p in zip(carry_nz, out_p)]


def _while_partial_eval(trace, args, params):
  cond_jaxpr, body_jaxpr = params["cond_jaxpr"], params["body_jaxpr"]
  ncc, nbc = params["cond_nconsts"], params["body_nconsts"]
  cc, bc, carry = split(args, [ncc, nbc])
  bc_uk = [trace.is_unknown(x) for x in bc]
  carry_uk = carry_fixpoint(lambda uk: ad.partial_eval_jaxpr(body_jaxpr, bc_uk + uk)[2],
                            [trace.is_unknown(x) for x in carry])
  cc_uk = [trace.is_unknown(x) for x in cc]
  _, _, cond_uk, _ = ad.partial_eval_jaxpr(cond_jaxpr, cc_uk + carry_uk)
  staged = trace.stage(while_p, list(args), params)
  if cond_uk[0] or all(carry_uk):
    return staged
  # The known carries do not depend on unknown ones: compute them with a known loop.
  body_known, _, _, _ = ad.partial_eval_jaxpr(body_jaxpr, bc_uk + carry_uk)
  cond_known, _, _, _ = ad.partial_eval_jaxpr(cond_jaxpr, cc_uk + carry_uk)
  kcc = [x for x, u in zip(cc, cc_uk) if not u]
  kbc = [x for x, u in zip(bc, bc_uk) if not u]
  kcarry = [x for x, u in zip(carry, carry_uk) if not u]
  nk = len(kcarry)
  new_cond, c_consts = trace_hoisted(lambda *xs: call(cond_known, *xs)[:1],
                                     [get_aval(x) for x in kcc + kcarry],
                                     cache_on=(cond_known, "while_known"))
  new_body, b_consts = trace_hoisted(lambda *xs: call(body_known, *xs)[:nk],
                                     [get_aval(x) for x in kbc + kcarry],
                                     cache_on=(body_known, ("while_known", nk)))
  known = while_p.bind(*c_consts, *kcc, *b_consts, *kbc, *kcarry, cond_jaxpr=new_cond,
                       body_jaxpr=new_body, cond_nconsts=len(c_consts) + len(kcc),
                       body_nconsts=len(b_consts) + len(kbc))
  it = iter(known)
  return [s if u else next(it) for s, u in zip(staged, carry_uk)]


def _while_transpose(cts, *args, **params):
  raise ValueError("Reverse-mode differentiation does not work for lax.while_loop or "
                   "lax.fori_loop with dynamic start/stop values. Try using lax.scan, or "
                   "using fori_loop with static (Python int) start/stop values.")


def _while_batch(axis, args, dims, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
  """As JAX's rule: where the predicate is batched, every carry is batched at 0 and the
  predicate comes out batched (the loop runs while any lane's holds, and the lowering keeps
  finished lanes' carries); otherwise batched carries sit after the predicate's own
  dimensions (those of an inner vmap's batched predicate), so its shape stays a prefix."""
  cc, bc, carry = split(args, [cond_nconsts, body_nconsts])
  ccd, bcd, cd = split(list(dims), [cond_nconsts, body_nconsts])
  batched = lambda ds: [d is not None for d in ds]
  carry_b = carry_fixpoint(
      lambda b: batching.batch_closed_jaxpr(body_jaxpr, axis, batched(bcd) + b)[1],
      batched(cd))
  _, (pred_b,) = batching.batch_closed_jaxpr(cond_jaxpr, axis, batched(ccd) + carry_b)
  if pred_b:
    carry_b = [True] * len(carry)
  at = 0 if pred_b else cond_jaxpr.out_avals[0].ndim
  carry_dims = [at if b else None for b in carry_b]
  body_b = batching.batch_closed_jaxpr_axes(body_jaxpr, axis, bcd + carry_dims, carry_dims)
  cond_b = batching.batch_closed_jaxpr_axes(cond_jaxpr, axis, ccd + carry_dims,
                                            [0 if pred_b else None])
  carry = [x if t is None else batching.matchaxis(x, d, t, axis.size)
           for x, d, t in zip(carry, cd, carry_dims)]
  new_cond, c_consts = hoist(cond_b)
  new_body, b_consts = hoist(body_b)
  outs = while_p.bind(*c_consts, *cc, *b_consts, *bc, *carry, cond_jaxpr=new_cond,
                      body_jaxpr=new_body, cond_nconsts=len(c_consts) + len(cc),
                      body_nconsts=len(b_consts) + len(bc))
  return outs, carry_dims


while_p = Primitive("while", multiple_results=True)
while_p.vma_rule = varying.from_bodies
while_p.abstract_eval = _while_abstract_eval
while_p.lowering = _while_lowering
while_p.effects = lambda cond_jaxpr, body_jaxpr, **_: cond_jaxpr.effects | body_jaxpr.effects
while_p.jvp = _while_jvp
while_p.partial_eval = _while_partial_eval
while_p.transpose = _while_transpose
while_p.batch = _while_batch


# ---------------------------------------------------------------------------------------
# The scan primitive: operands (consts, carry, xs); the body maps (consts, carry, x) to
# (carry, y)

def _element(a: ShapedArray) -> ShapedArray:
  """The type of one of the values a scan takes from ``a`` along its leading dimension:
  the other dimensions split as ``a``'s (as JAX's)."""
  return ShapedArray(a.shape[1:], a.dtype, a.weak_type, vma=vma_of(a), sharding=result_sharding(
      "scan", [a], a.shape[1:], a.dtype, spec_of(a)[1:]))


def _stacked(a: ShapedArray, length: int) -> ShapedArray:
  """The type of ``length`` values of type ``a`` stacked (a scan's ys): the new leading
  dimension unsplit, the others split as ``a``'s."""
  shape = (length,) + a.shape
  return ShapedArray(shape, a.dtype, a.weak_type, vma=vma_of(a), sharding=result_sharding(
      "scan", [a], shape, a.dtype, (None,) + spec_of(a)))


def _scan_abstract_eval(*avals, jaxpr, num_consts, num_carry, length, reverse, unroll):
  outs = jaxpr.out_avals
  return list(outs[:num_carry]) + [_stacked(a, length) for a in outs[num_carry:]]


def _scan_as_while(*args, jaxpr, num_consts, num_carry, length, reverse, unroll):
  """Scan in terms of while_loop, dynamic slicing and dynamic updates.

  ``unroll`` steps are inlined per loop iteration; the ``length % unroll`` remaining steps
  follow the loop (with ``unroll >= length`` there is no loop at all).
  """
  consts, init, xs = split(args, [num_consts, num_carry])
  ys0 = [shapes.full(t.shape, 0, t.dtype, sharding=t._sharding)
         for t in (_stacked(a, length) for a in jaxpr.out_avals[num_carry:])]
  unroll = max(1, min(int(unroll), length))

  def step(k, carry, ys):
    idx = ew.sub(np.int32(length - 1), k) if reverse else k
    # the step index is never negative: no wrapping select per step (as JAX's scan)
    x = [shapes.dynamic_index_in_dim(a, idx, 0, keepdims=False, allow_negative_indices=False)
         for a in xs]
    outs = call(jaxpr, *consts, *carry, *x)
    ys = [shapes.dynamic_update_index_in_dim(y, o, idx, 0, allow_negative_indices=False)
          for y, o in zip(ys, outs[num_carry:])]
    return outs[:num_carry], ys

  def block(state):
    i, carry, ys = state
    for j in range(unroll):
      carry, ys = step(ew.add(i, np.int32(j)), carry, ys)
    return ew.add(i, np.int32(unroll)), carry, ys

  looped = (length // unroll) * unroll
  carry, ys = list(init), ys0
  if looped > unroll:
    start = ew.convert_element_type(np.int32(0), np.int32)
    _, carry, ys = while_loop(lambda s: ew.lt(s[0], np.int32(looped)), block,
                              (start, carry, ys))
  elif looped:
    _, carry, ys = block((np.int32(0), carry, ys))
  for k in range(looped, length):
    carry, ys = step(np.int32(k), carry, ys)
  return list(carry) + list(ys)


def _scan_lowering(ctx, *args, **params):
  from xjax._src.interpreters.staging import trace_to_jaxpr
  closed = trace_to_jaxpr(lambda *xs: _scan_as_while(*xs, **params), list(ctx.avals_in))
  return ctx.lower_jaxpr(closed.jaxpr, closed.consts, list(args))


def _scan_params(params, **updates):
  new = dict(params)
  new.update(updates)
  return new


def _scan_jvp(primals, tangents, *, jaxpr, num_consts, num_carry, length, reverse, unroll):
  nc, n = num_consts, num_carry
  consts, carry, xs = split(primals, [nc, n])
  c_t, carry_t, xs_t = split(tangents, [nc, n])
  const_nz = [type(t) is not Zero for t in c_t]
  xs_nz = [type(t) is not Zero for t in xs_t]
  n_ys = len(jaxpr.out_avals) - n
  carry_nz = carry_fixpoint(
      lambda nz: ad.jvp_closed_jaxpr(jaxpr, const_nz + nz + xs_nz,
                                     instantiate_out=nz + [False] * n_ys)[1],
      [type(t) is not Zero for t in carry_t])
  jvp_j, out_nz = ad.jvp_closed_jaxpr(jaxpr, const_nz + carry_nz + xs_nz,
                                      instantiate_out=carry_nz + [False] * n_ys)
  ys_nz = out_nz[n:]
  ct = [t for t, z in zip(c_t, const_nz) if z]
  cat = [ad.instantiate(t) for t, z in zip(carry_t, carry_nz) if z]
  xt = [t for t, z in zip(xs_t, xs_nz) if z]
  nx = len(xs)
  avals = [get_aval(v) for v in consts + ct + carry + cat] + list(jaxpr.in_avals[nc + n:]) + [
      tangent_aval(a) for a, z in zip(jaxpr.in_avals[nc + n:], xs_nz) if z]
  n_ct, n_cat = len(ct), len(cat)

  def body(*args):
    c, cdot, ca, cadot, x, xdot = split(args, [nc, n_ct, n, n_cat, nx])
    outs = call(jvp_j, *c, *ca, *x, *cdot, *cadot, *xdot)
    p, t = outs[:n + n_ys], outs[n + n_ys:]
    n_cat_out = sum(carry_nz)
    return p[:n] + t[:n_cat_out] + p[n:] + t[n_cat_out:]
  new_j, hoisted = trace_hoisted(body, avals,
                                 cache_on=(jaxpr, ("jvp", nc, n, const_nz, carry_nz, xs_nz)))
  outs = scan_p.bind(*hoisted, *consts, *ct, *carry, *cat, *xs, *xt, jaxpr=new_j,
                     num_consts=len(hoisted) + nc + n_ct, num_carry=n + n_cat,
                     length=length, reverse=reverse, unroll=unroll)
  carry_p, carry_tn, ys_p, ys_tn = split(outs, [n, n_cat, n_ys])[:4]
  it_c, it_y = iter(carry_tn), iter(ys_tn)
  out_avals = _scan_abstract_eval(jaxpr=jaxpr, num_consts=nc, num_carry=n, length=length,
                                  reverse=reverse, unroll=unroll)
  tans = [next(it_c) if z else Zero(tangent_aval(a))
          for z, a in zip(carry_nz, out_avals[:n])]
  tans += [next(it_y) if z else Zero(tangent_aval(a)) for z, a in zip(ys_nz, out_avals[n:])]
  return carry_p + ys_p, tans


def _forwarded_residuals(known_j, num_res: int, k_args, n_kc: int, n_kcarry: int):
  """The residual outputs of the known body that need not come out of the known scan, as
  two {residual index: value} dicts: loop constants (a known const passed through, or a
  constant of the body), and known xs passed through (already stacked)."""
  jaxpr = known_j.jaxpr
  consts = dict(zip(jaxpr.invars[:n_kc], k_args[:n_kc]))
  consts.update(zip(jaxpr.constvars, known_j.consts))
  xs = dict(zip(jaxpr.invars[n_kc + n_kcarry:], k_args[n_kc + n_kcarry:]))
  res = list(enumerate(jaxpr.outvars[len(jaxpr.outvars) - num_res:]))
  invariant = {i: consts[v] for i, v in res if isinstance(v, Var) and v in consts}
  per_step = {i: xs[v] for i, v in res if isinstance(v, Var) and v in xs}
  return invariant, per_step


def _drop(outs, first: int, forwarded) -> list:
  """``outs`` without the residuals (counted from ``first``) in ``forwarded``."""
  return outs[:first] + [o for i, o in enumerate(outs[first:]) if i not in forwarded]


def _scan_partial_eval(trace, args, params):
  jaxpr, nc, n = params["jaxpr"], params["num_consts"], params["num_carry"]
  consts, carry, xs = split(args, [nc, n])
  const_uk = [trace.is_unknown(x) for x in consts]
  xs_uk = [trace.is_unknown(x) for x in xs]
  n_ys = len(jaxpr.out_avals) - n
  carry_uk = carry_fixpoint(
      lambda uk: ad.partial_eval_jaxpr(jaxpr, const_uk + uk + xs_uk,
                                       instantiate=uk + [False] * n_ys)[2],
      [trace.is_unknown(x) for x in carry])
  unknowns = const_uk + carry_uk + xs_uk
  known_j, unknown_j, out_uk, num_res = ad.partial_eval_jaxpr(
      jaxpr, unknowns, instantiate=carry_uk + [False] * n_ys)
  k_args = partition(unknowns, args)[0]
  n_kc = sum(not u for u in const_uk)
  n_kcarry = sum(not u for u in carry_uk)
  # Residuals that are loop constants go to the unknown scan as consts, and those that
  # are known xs are passed as they are: only the others are stacked by the known scan.
  invariant, per_step = _forwarded_residuals(known_j, num_res, k_args, n_kc, n_kcarry)
  forwarded = {**invariant, **per_step}
  kj, kconsts = trace_hoisted(
      lambda *xs_: _drop(call(known_j, *xs_), len(known_j.out_avals) - num_res, forwarded),
      known_j.in_avals, cache_on=(known_j, ("scan_known", tuple(invariant), tuple(per_step))))
  known_outs = scan_p.bind(*kconsts, *k_args, **_scan_params(
      params, jaxpr=kj, num_consts=len(kconsts) + n_kc, num_carry=n_kcarry))
  n_stacked = num_res - len(invariant)
  n_from_scan = n_stacked - len(per_step)
  from_scan = iter(known_outs[len(known_outs) - n_from_scan:])
  known_outs = known_outs[:len(known_outs) - n_from_scan]
  stacked = [per_step[i] if i in per_step else next(from_scan)
             for i in range(num_res) if i not in invariant]
  # Unknown scan: consumes the invariant residuals as consts, the others as xs.
  res_avals = unknown_j.in_avals[:num_res]
  inv_vals = list(invariant.values())
  uk_consts = [x for x, u in zip(consts, const_uk) if u] + inv_vals
  uk_carry = [x for x, u in zip(carry, carry_uk) if u]
  uk_xs = [x for x, u in zip(xs, xs_uk) if u]
  n_uc, n_ucarry = len(uk_consts), len(uk_carry)
  avals = [get_aval(x) for x in uk_consts + uk_carry] + [
      a for i, a in enumerate(res_avals) if i not in invariant] + [
      a for a, u in zip(jaxpr.in_avals[nc + n:], xs_uk) if u]

  def unknown_body(*a):
    c, ca, r, x = split(a, [n_uc, n_ucarry, n_stacked])
    c, inv = c[:n_uc - len(inv_vals)], dict(zip(invariant, c[n_uc - len(inv_vals):]))
    r = iter(r)
    res = [inv[i] if i in invariant else next(r) for i in range(num_res)]
    return call(unknown_j, *res, *c, *ca, *x)
  uj, uconsts = trace_hoisted(
      unknown_body, avals,
      cache_on=(unknown_j, ("scan_unknown", n_uc, n_ucarry, num_res, tuple(invariant))))
  staged = trace.stage(scan_p, [*uconsts, *uk_consts, *uk_carry, *stacked, *uk_xs],
                       _scan_params(params, jaxpr=uj, num_consts=len(uconsts) + n_uc,
                                    num_carry=n_ucarry))
  return merge(out_uk, known_outs, staged)


def _scan_transpose(cts, *args, jaxpr, num_consts, num_carry, length, reverse, unroll):
  nc, n = num_consts, num_carry
  consts, carry, xs = split(args, [nc, n])
  const_lin = [ad.is_undefined(x) for x in consts]
  xs_lin = [ad.is_undefined(x) for x in xs]
  linear = const_lin + [True] * n + xs_lin
  ct_carry = [ad.instantiate(c) for c in cts[:n]]
  # The carry's cotangent accumulates from the incoming one (its types, as in JAX)
  # and zero cotangents of ys stay symbolic (none is summed into it, as in JAX)
  ys_zero = tuple(type(c) is ad.Zero for c in cts[n:])
  t_j = ad.transpose_closed_jaxpr(
      jaxpr, linear, tuple([None] * nc + map_avals(ct_carry) + [None] * len(xs)),
      (False,) * n + ys_zero)
  nl_consts = [x for x, l in zip(consts, const_lin) if not l]
  nl_xs = [x for x, l in zip(xs, xs_lin) if not l]
  lin_const_avals = [tangent_aval(a) for a, l in zip(jaxpr.in_avals[:nc], const_lin) if l]
  ct_ys = [c for c, z in zip(cts[n:], ys_zero) if not z]
  acc0 = [ad.zeros_of(a) for a in lin_const_avals]
  n_nlc, n_acc, n_nlx = len(nl_consts), len(acc0), len(nl_xs)
  avals = [get_aval(x) for x in nl_consts + acc0 + ct_carry] + [
      _element(a) for a in map_avals(nl_xs + ct_ys)]

  def body(*a):
    c, acc, ctc, x, cty = split(a, [n_nlc, n_acc, n, n_nlx])
    outs = call(t_j, *c, *x, *ctc, *cty)
    d_consts, d_carry, d_xs = split(outs, [n_acc, n])
    return [ad.add_tangents(p, q) for p, q in zip(acc, d_consts)] + d_carry + d_xs
  tj, hoisted = trace_hoisted(body, avals,
                              cache_on=(t_j, ("scan_transpose", n_nlc, n_acc, n, n_nlx)))
  outs = scan_p.bind(*hoisted, *nl_consts, *acc0, *ct_carry, *nl_xs, *ct_ys, jaxpr=tj,
                     num_consts=len(hoisted) + n_nlc, num_carry=n_acc + n, length=length,
                     reverse=not reverse, unroll=unroll)
  d_consts, d_carry, d_xs = split(outs, [n_acc, n])
  it_c, it_x = iter(d_consts), iter(d_xs)
  return ([next(it_c) if l else None for l in const_lin] + d_carry +
          [next(it_x) if l else None for l in xs_lin])


def map_avals(xs):
  return [get_aval(x) for x in xs]


def _scan_batch(axis, args, dims, *, jaxpr, num_consts, num_carry, length, reverse, unroll):
  nc, n = num_consts, num_carry
  size = axis.size
  consts, carry, xs = split(args, [nc, n])
  cd, cad, xd = split(dims, [nc, n])
  consts = [batching.moveaxis(x, d, 0) if d is not None else x for x, d in zip(consts, cd)]
  const_b = [d is not None for d in cd]
  xs_b = [d is not None for d in xd]
  n_ys = len(jaxpr.out_avals) - n
  carry_b = carry_fixpoint(
      lambda b: batching.batch_closed_jaxpr(jaxpr, axis, const_b + b + xs_b,
                                            instantiate=b + [False] * n_ys)[1],
      [d is not None for d in cad])
  bj, out_b = batching.batch_closed_jaxpr(jaxpr, axis, const_b + carry_b + xs_b,
                                          instantiate=carry_b + [False] * n_ys)
  carry = [batching.matchaxis(x, d, 0, size) if b else x
           for x, d, b in zip(carry, cad, carry_b)]
  # (the xs after the carry, as JAX orders these equations)
  xs = [batching.moveaxis(x, d, 1) if d is not None else x for x, d in zip(xs, xd)]
  hj, hoisted = hoist(bj)
  outs = scan_p.bind(*hoisted, *consts, *carry, *xs, jaxpr=hj, num_consts=len(hoisted) + nc,
                     num_carry=n, length=length, reverse=reverse, unroll=unroll)
  return outs, [0 if b else None for b in out_b[:n]] + [1 if b else None for b in out_b[n:]]


scan_p = Primitive("scan", multiple_results=True)
scan_p.vma_rule = varying.from_bodies
scan_p.abstract_eval = _scan_abstract_eval
scan_p.lowering = _scan_lowering
scan_p.effects = lambda jaxpr, **_: jaxpr.effects
scan_p.jvp = _scan_jvp
scan_p.partial_eval = _scan_partial_eval
scan_p.transpose = _scan_transpose
scan_p.batch = _scan_batch
