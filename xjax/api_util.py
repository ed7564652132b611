"""``jax.api_util``: the helpers JAX-based libraries use to trace a function themselves
(numpyro's provenance tracking): flattening a wrapped function's arguments and results,
and the debug description of a traced function."""
from __future__ import annotations

import inspect
from typing import Any, Callable, Sequence

from xjax._src import tree_util
from xjax._src.core.values import get_aval
from xjax._src.interpreters.staging import DebugInfo, fun_name, fun_source
from xjax._src.jit import _arg_names
from xjax.extend.linear_util import WrappedFun

__all__ = ["debug_info", "flatten_fun", "flatten_fun_nokwargs", "shaped_abstractify"]


def debug_info(traced_for: str, fun: Callable, args: Sequence[Any], kwargs: dict[str, Any], *,
               static_argnums: Sequence[int] = (), static_argnames: Sequence[str] = (),
               result_paths_thunk=None, sourceinfo: str | None = None,
               signature: inspect.Signature | None = None) -> DebugInfo:
  """What `fun` is and the names of its flattened dynamic arguments (`traced_for` is the
  API tracing it; xjax's DebugInfo keeps the function's name and source)."""
  if signature is None:
    try:
      signature = inspect.signature(fun)
    except (TypeError, ValueError):
      signature = None
  dyn_args = [a for i, a in enumerate(args) if i not in set(static_argnums)]
  dyn_kwargs = {k: v for k, v in kwargs.items() if k not in set(static_argnames)}
  return DebugInfo(fun_name(fun), sourceinfo or fun_source(fun),
                   _arg_names(signature, dyn_args, dyn_kwargs))


class _Store:
  """The output tree structure a flattened function recorded when it last ran."""

  def __init__(self, what: str) -> None:
    self.what = what
    self.tree = None

  def __call__(self):
    if self.tree is None:
      raise ValueError(f"{self.what}: the output tree is known only after the flattened "
                       "function has been called (call_wrapped)")
    return self.tree


def _flattened(f: WrappedFun, in_tree, with_kwargs: bool):
  store = _Store("flatten_fun" if with_kwargs else "flatten_fun_nokwargs")

  def flat(*leaves):
    unflat = tree_util.tree_unflatten(in_tree, leaves)
    args, kwargs = unflat if with_kwargs else (unflat, {})
    out_leaves, store.tree = tree_util.tree_flatten(f.call_wrapped(*args, **kwargs))
    return out_leaves

  return WrappedFun(flat, (), f.debug_info), store


def flatten_fun(f: WrappedFun, in_tree) -> tuple[WrappedFun, Callable[[], Any]]:
  """`f` taking the leaves of `(args, kwargs)` (structure `in_tree`) and returning its
  output's leaves, and a thunk giving the output's structure once it has run."""
  return _flattened(f, in_tree, True)


def flatten_fun_nokwargs(f: WrappedFun, in_tree) -> tuple[WrappedFun, Callable[[], Any]]:
  """As `flatten_fun`, for `in_tree` the structure of the positional arguments alone."""
  return _flattened(f, in_tree, False)


def shaped_abstractify(x):
  """The abstract value (shape, dtype, weak type) of an array-like value."""
  return get_aval(x)
