"""``print_saved_residuals``: the values reverse mode keeps from a function's forward pass
(what ``checkpoint`` and its policies change), each with where it comes from."""
from __future__ import annotations

from typing import Callable

from xjax._src.foundations import tree_util
from xjax._src.api.transformations import vjp
from xjax._src.primitives.checkpoint import leaf_names, name_p
from xjax._src.core import source_info
from xjax._src.core.jaxpr import Literal
from xjax._src.core.values import get_aval
from xjax._src.interpreters.staging import trace_to_jaxpr
from xjax._src.api.jit_primitives import jit_p
from xjax._src.primitives.lax.bit_conversions import reduce_precision_p


def saved_residuals(f: Callable, *args, **kwargs) -> list[tuple]:
  """(aval, description) of each value ``vjp(f, *args, **kwargs)`` saves."""
  leaves, in_tree = tree_util.tree_flatten((args, kwargs))

  def call(*xs):
    a, kw = tree_util.tree_unflatten(in_tree, xs)
    return f(*a, **kw)

  def residuals(*xs):
    return tree_util.tree_leaves(vjp(call, *xs)[1])

  with source_info.recording():
    jaxpr = trace_to_jaxpr(residuals, [get_aval(x) for x in leaves]).jaxpr
  names = leaf_names(f, args, kwargs)
  # a value rounded for saving (reduce_precision) is described by what produced it
  rounded = {e.outvars[0]: e.invars[0] for e in jaxpr.eqns if e.primitive is reduce_precision_p}
  res = {rounded.get(v, v) for v in jaxpr.outvars if type(v) is not Literal}
  out = [(v.aval, "from a literal") for v in jaxpr.outvars if type(v) is Literal]
  out += [(v.aval, "from a constant") for v in jaxpr.constvars if v in res]
  out += [(v.aval, f"from the argument {name}") for v, name in zip(jaxpr.invars, names)
          if v in res]
  for eqn in jaxpr.eqns:
    src = eqn.source_info or "unknown"
    for v in eqn.outvars:
      if v not in res:
        continue
      if eqn.primitive is name_p:
        out.append((v.aval, f"named '{eqn.params['name']}' from {src}"))
      elif eqn.primitive is jit_p:
        out.append((v.aval, f"output of jitted function '{eqn.params['name']}' from {src}"))
      else:
        out.append((v.aval, f"output of {eqn.primitive.name} from {src}"))
  return out


def print_saved_residuals(f: Callable, *args, **kwargs) -> None:
  """Prints each value reverse mode saves from ``f``'s forward pass, one per line:
  ``f32[3] output of sin from file.py:4:6 (f)``."""
  for aval, where in saved_residuals(f, *args, **kwargs):
    print(f"{aval.str_short(short_dtypes=True)} {where}")
