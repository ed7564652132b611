"""``make_jaxpr``: a function traced at its arguments' types."""
from __future__ import annotations

import contextlib
from typing import Callable

from xjax._src.foundations import tree_util
from xjax._src.foundations.errors import api_boundary
from xjax._src.foundations.wrapping import wraps
from xjax._src.core.trace import Tracer
from xjax._src.interpreters import batching
from xjax._src.interpreters.staging import make_debug_info
from xjax._src.api.call_tracing import (arg_names, flatten_call, normalize_static,
                                        rebuild_call, split_args, trace_flat, valid_leaf_aval)
from xjax._src.api.shape_dtype_struct import ShapeDtypeStruct


def make_jaxpr(fun: Callable, static_argnums=(), axis_env=None, return_shape: bool = False):
  """``make_jaxpr(f)(*args)`` returns the ClosedJaxpr of ``f`` traced at ``args``' types;
  ``axis_env``, (name, size) pairs, binds axis names for the collectives ``f`` uses."""
  if not callable(fun):
    raise TypeError("the first argument must be callable")
  static_argnums_n, static_argnames, sig = normalize_static(fun, static_argnums, None)
  axes = [batching.AxisData(int(size), name) for name, size in axis_env or ()]

  @api_boundary
  @wraps(fun)
  def make(*args, **kwargs):
    dyn_args, dyn_kwargs, statics, static_kw = split_args(args, kwargs, static_argnums_n, ())
    leaves, in_tree = flatten_call(dyn_args, dyn_kwargs)
    names = arg_names(sig, dyn_args, dyn_kwargs, statics)
    avals = [leaf.aval if isinstance(leaf, Tracer) else valid_leaf_aval(leaf, fun, n, True)
             for leaf, n in zip(leaves, names + ["?"] * len(leaves))]
    debug = make_debug_info(fun, names)
    call = rebuild_call(fun, len(args), statics, static_kw)
    with contextlib.ExitStack() as bound:
      for axis in axes:
        bound.enter_context(batching._bound_axis(axis))
      closed, out_tree = trace_flat(call, in_tree, avals, debug)
    if return_shape:
      shapes = tree_util.tree_unflatten(out_tree, [ShapeDtypeStruct(
          a.shape, a.dtype, weak_type=a.weak_type) for a in closed.out_avals])
      return closed, shapes
    return closed
  return make
