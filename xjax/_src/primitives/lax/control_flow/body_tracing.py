"""Tracing the user functions of control flow: functions of pytrees traced once (their consts
hoisted, with the kit in ``interpreters/higher_order.py``), and describing their types."""
from __future__ import annotations

from typing import Any, Callable, Sequence

from xjax._src.foundations import tree_util
from xjax._src.core.avals import ShapedArray
from xjax._src.core.jaxpr import ClosedJaxpr, eval_jaxpr
from xjax._src.core.values import get_aval
from xjax._src.interpreters.higher_order import cached_trace, trace_hoisted
from xjax._src.interpreters.staging import make_debug_info


def call(closed: ClosedJaxpr, *args) -> list:
  return eval_jaxpr(closed.jaxpr, closed.consts, *args)


def trace_user_fun(fun: Callable, in_tree, avals: Sequence[ShapedArray], traced_for: str):
  """Traces a user function of pytrees for the API ``traced_for``; returns (jaxpr, consts,
  out_tree).  Traced once per (function, argument types), as JAX does."""
  avals = tuple(avals)
  return cached_trace(fun, (in_tree, avals),
                      lambda: _trace_user_fun(fun, in_tree, avals, traced_for))


def _trace_user_fun(fun: Callable, in_tree, avals: Sequence[ShapedArray], traced_for: str):
  out_tree = []

  def flat(*leaves):
    out = fun(*tree_util.tree_unflatten(in_tree, leaves))
    out_leaves, tree = tree_util.tree_flatten(out)
    out_tree.append(tree)
    return out_leaves

  jaxpr, consts = trace_hoisted(flat, avals, make_debug_info(fun, None, traced_for=traced_for))
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
    return self.aval.str_short(short_dtypes=True)


def split(xs: Sequence[Any], sizes: Sequence[int]) -> list[list]:
  out, i = [], 0
  for n in sizes:
    out.append(list(xs[i:i + n]))
    i += n
  out.append(list(xs[i:]))
  return out
