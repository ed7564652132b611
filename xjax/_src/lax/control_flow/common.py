"""Helpers shared by the control-flow primitives: tracing bodies once, with consts hoisted."""
from __future__ import annotations

from typing import Any, Callable, Sequence

from xjax._src import tree_util
from xjax._src.config import config
from xjax._src.core.avals import ShapedArray
from xjax._src.core.jaxpr_cache import WeakLRU, frozen
from xjax._src.core.trace import Tracer
from xjax._src.core.jaxpr import ClosedJaxpr, closed_with_consts_as_args, eval_jaxpr
from xjax._src.core.values import get_aval
from xjax._src.interpreters.staging import make_debug_info, trace_to_jaxpr


def trace_hoisted(fun: Callable, avals: Sequence[ShapedArray], debug=None):
  """Traces ``fun`` once; returns (ClosedJaxpr taking consts first, with no consts; consts)."""
  closed = trace_to_jaxpr(fun, list(avals), debug)
  jaxpr, consts = closed_with_consts_as_args(closed)
  return ClosedJaxpr(jaxpr, ()), consts


# Traces reused while their owner lives: user functions (as JAX caches the bodies of
# control flow by function identity) and the jaxprs that transformation rules build from
# a primitive's jaxpr, so eager calls hit the executable caches.
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


def trace_hoisted_for(owner, key, fun: Callable, avals: Sequence[ShapedArray]):
  """``trace_hoisted(fun, avals)``, cached on ``owner`` and ``key`` (see ``cached_trace``)."""
  avals = tuple(avals)
  return cached_trace(owner, (key, avals), lambda: trace_hoisted(fun, avals))


def hoist(closed: ClosedJaxpr):
  """(``closed`` taking its consts first, its consts): the same jaxpr on every call."""
  def split():
    jaxpr, consts = closed_with_consts_as_args(closed)
    return ClosedJaxpr(jaxpr, ()), consts
  return cached_trace(closed, "hoist", split)


def call(closed: ClosedJaxpr, *args) -> list:
  return eval_jaxpr(closed.jaxpr, closed.consts, *args)


def trace_user_fun(fun: Callable, in_tree, avals: Sequence[ShapedArray]):
  """Traces a user function of pytrees; returns (jaxpr, consts, out_tree).  Traced once
  per (function, argument types), as JAX does."""
  avals = tuple(avals)
  return cached_trace(fun, (in_tree, avals), lambda: _trace_user_fun(fun, in_tree, avals))


def _trace_user_fun(fun: Callable, in_tree, avals: Sequence[ShapedArray]):
  out_tree = []

  def flat(*leaves):
    out = fun(*tree_util.tree_unflatten(in_tree, leaves))
    out_leaves, tree = tree_util.tree_flatten(out)
    out_tree.append(tree)
    return out_leaves

  jaxpr, consts = trace_hoisted(flat, avals, make_debug_info(fun, []))
  return jaxpr, consts, out_tree[0]


def avals_of(leaves) -> list[ShapedArray]:
  return [get_aval(x) for x in leaves]


def same_types(a: Sequence[ShapedArray], b: Sequence[ShapedArray]) -> bool:
  return len(a) == len(b) and all(x.shape == y.shape and x.dtype == y.dtype
                                  for x, y in zip(a, b))


def describe(tree, avals: Sequence[ShapedArray]) -> str:
  """A pytree of types, as ``tree_unflatten`` would show it: ``(f32[], f32[3])``."""
  return str(tree_util.tree_unflatten(tree, [_Type(a) for a in avals]))


class _Type:
  __slots__ = ("aval",)

  def __init__(self, aval) -> None:
    self.aval = aval

  def __repr__(self) -> str:
    return self.aval.str_short()


def split(xs: Sequence[Any], sizes: Sequence[int]) -> list[list]:
  out, i = [], 0
  for n in sizes:
    out.append(list(xs[i:i + n]))
    i += n
  out.append(list(xs[i:]))
  return out
