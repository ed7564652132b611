"""Tracing the user functions of control flow: functions of pytrees traced once (their consts
hoisted, with the kit in ``interpreters/higher_order.py``), and describing their types."""
from __future__ import annotations

from typing import Any, Callable, Sequence

from xjax._src.foundations import tree_util
from xjax._src.foundations.config import config
from xjax._src.core.concrete import is_concrete
from xjax._src.core import varying
from xjax._src.core.avals import ShapedArray, ordered_axes, spec_of, vma_of
from xjax._src.core.jaxpr import ClosedJaxpr, eval_jaxpr
from xjax._src.core.values import get_aval
from xjax._src.interpreters.higher_order import cached_trace, trace_hoisted
from xjax._src.interpreters.staging import make_debug_info


def in_python(*values) -> bool:
  """Whether control flow runs as Python code, as JAX's does under ``disable_jit``: the flag
  is on and ``values`` (a predicate, a branch index) are concrete."""
  return config._values["jax_disable_jit"] and all(map(is_concrete, values))


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
  """Whether the types are the same, weak types aside: shapes, dtypes and the splits over
  Explicit mesh axes; the manual axes values vary over count in a shard_map body that
  checks them (not when lowering retraces a loop)."""
  check_vma = varying.regions[0] > 0
  return len(a) == len(b) and all(x.shape == y.shape and x.dtype == y.dtype and
                                  spec_of(x) == spec_of(y) and
                                  (not check_vma or vma_of(x) == vma_of(y))
                                  for x, y in zip(a, b))


def listed(items, spaced: bool) -> str:
  """One sentence, or a bulleted list of clauses, as JAX writes these errors (``spaced``:
  as its loops do, a blank line between all but the last two)."""
  if len(items) == 1:
    return items[0][:1].upper() + items[0][1:] + ".\n"
  return ("\n".join(f"  * {d};{chr(10) if spaced else ''}" for d in items[:-1])
          + ("" if spaced else "\n") + f"  * {items[-1]}.\n")


def pcast_hint(fixes, spaced: bool) -> str:
  """JAX's advice where types differ in the manual axes they vary over: each
  ``(axes, what)`` is a ``pcast`` to apply to ``what``."""
  fixes = [f"applying `jax.lax.pcast(..., {axes}, to='varying')`{what}" for axes, what in fixes]
  if not fixes:
    return ""
  text = (f"This might be fixed by {fixes[0]}.\n" if len(fixes) == 1 else
          "This might be fixed by:\n" + listed(fixes, spaced))
  return text + ("See https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma for "
                 "more information.\n\n")


def newly_varying(a: ShapedArray, b: ShapedArray) -> tuple:
  """The axes ``b`` varies over and ``a`` does not, in mesh order."""
  return ordered_axes(vma_of(b) - vma_of(a))


def split(xs: Sequence[Any], sizes: Sequence[int]) -> list[list]:
  out, i = [], 0
  for n in sizes:
    out.append(list(xs[i:i + n]))
    i += n
  out.append(list(xs[i:]))
  return out
