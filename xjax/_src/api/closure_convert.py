"""`closure_convert`: make a function's closed-over differentiable values explicit arguments
(for `custom_vjp` functions that take a user function, such as `odeint`)."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.jaxpr import eval_jaxpr
from xjax._src.core.trace import Tracer
from xjax._src.api.make_jaxpr import make_jaxpr
from xjax._src.foundations.tree_util import tree_flatten, tree_unflatten


def _may_carry_tangent(c) -> bool:
  return isinstance(c, Tracer) and dtypes.issubdtype(c.aval.dtype, np.inexact)


def closure_convert(fun: Callable, *example_args) -> tuple[Callable, list[Any]]:
  """``(converted, consts)``: ``converted(*args, *consts)`` equals ``fun(*args)``, where
  ``consts`` are the traced floating-point values ``fun`` closes over (traced at the types
  of ``example_args``)."""
  closed, out_shape = make_jaxpr(fun, return_shape=True)(*example_args)
  _, out_tree = tree_flatten(out_shape)
  hoist = [_may_carry_tangent(c) for c in closed.consts]
  hoisted = [c for c, h in zip(closed.consts, hoist) if h]
  kept = [c for c, h in zip(closed.consts, hoist) if not h]
  n_args = len(example_args)

  def converted(*args_and_consts):
    args, consts = args_and_consts[:n_args], list(args_and_consts[n_args:])
    if len(consts) != len(hoisted):
      raise TypeError(f"closure-converted function expected {n_args} arguments followed by "
                      f"{len(hoisted)} hoisted constants, got {len(args_and_consts)} values")
    kept_it, hoisted_it = iter(kept), iter(consts)
    all_consts = [next(hoisted_it) if h else next(kept_it) for h in hoist]
    leaves, _ = tree_flatten(args)
    return tree_unflatten(out_tree, eval_jaxpr(closed.jaxpr, all_consts, *leaves))
  converted.__name__ = getattr(fun, "__name__", "converted")
  return converted, hoisted
