"""``eval_shape``: the types of a function's results, traced at its arguments' types
(a jitted function's own static arguments kept)."""
from __future__ import annotations

from typing import Callable

from xjax._src.foundations import tree_util
from xjax._src.foundations.dtypes import canonicalize_dtype
from xjax._src.foundations.errors import api_boundary
from xjax._src.core.avals import ShapedArray
from xjax._src.core.trace import Tracer
from xjax._src.core.values import get_aval
from xjax._src.interpreters import ad
from xjax._src.interpreters.staging import make_debug_info
from xjax._src.api.call_tracing import flatten_call, trace_flat, valid_leaf_aval
from xjax._src.api.jit import PjitFunction
from xjax._src.api.shape_dtype_struct import ShapeDtypeStruct


def _shaped_leaf_aval(leaf, fun) -> ShapedArray:
  """The type eval_shape gives an argument: an array's, a ShapedArray itself, or that of
  any object with ``shape`` and ``dtype`` (and maybe ``weak_type``), as in JAX."""
  if isinstance(leaf, Tracer):
    return leaf.aval
  if isinstance(leaf, ShapedArray):
    return leaf
  if hasattr(leaf, "shape") and hasattr(leaf, "dtype"):
    try:
      return get_aval(leaf)
    except TypeError:
      return ShapedArray(tuple(leaf.shape), canonicalize_dtype(leaf.dtype),
                         weak_type=bool(getattr(leaf, "weak_type", False)))
  return valid_leaf_aval(leaf, fun, "?")


@api_boundary
def eval_shape(fun: Callable, *args, **kwargs):
  """Output shapes/dtypes of ``fun(*args)`` without running it (no FLOPs)."""
  if type(fun) is PjitFunction:  # its own static arguments stay static, as in JAX
    return fun.eval_shape(*args, **kwargs)
  leaves, in_tree = flatten_call(args, kwargs)
  avals = [_shaped_leaf_aval(x, fun) for x in leaves]
  debug = make_debug_info(fun, None)
  # A ShapeDtypeStruct in the output has no value: it stands for itself (as in JAX).
  shaped = lambda x: ad.zeros_of(get_aval(x)) if isinstance(x, ShapeDtypeStruct) else x
  closed, out_tree = trace_flat(lambda a, k: tree_util.tree_map(shaped, fun(*a, **k)),
                                 in_tree, avals, debug)
  return tree_util.tree_unflatten(out_tree, [ShapeDtypeStruct.of_type(a)
                                             for a in closed.out_avals])
