"""The implementation of ``jax.api_util`` (``xjax/api_util.py`` re-exports it): flattening a
wrapped function's arguments and results, and the debug description of a traced function."""
from __future__ import annotations

import inspect
from typing import Any, Callable, Sequence

from xjax._src.foundations import tree_util
from xjax._src.core.values import get_aval, shaped_abstractify  # noqa: F401
from xjax._src.interpreters.staging import DebugInfo, fun_source_info
from xjax._src.api.call_tracing import arg_names as _arg_names
from xjax._src.interpreters.linear_util import WrappedFun, transformation2, transformation_with_aux2


def debug_info(traced_for: str, fun: Callable, args: Sequence[Any], kwargs: dict[str, Any], *,
               static_argnums: Sequence[int] = (), static_argnames: Sequence[str] = (),
               result_paths_thunk=None, sourceinfo: str | None = None,
               signature: inspect.Signature | None = None) -> DebugInfo:
  """What `fun` is and the names of its flattened dynamic arguments, for the API
  `traced_for`; `result_paths_thunk` gives the names of its results once known."""
  if signature is None:
    try:
      signature = inspect.signature(fun)
    except (TypeError, ValueError):
      signature = None
  dyn_args = [a for i, a in enumerate(args) if i not in set(static_argnums)]
  dyn_kwargs = {k: v for k, v in kwargs.items() if k not in set(static_argnames)}
  return DebugInfo(traced_for, sourceinfo or fun_source_info(fun),
                   tuple(_arg_names(signature, dyn_args, dyn_kwargs)), result_paths_thunk)


@transformation_with_aux2
def _flattened(f, store, in_tree, with_kwargs: bool, *leaves):
  unflat = tree_util.tree_unflatten(in_tree, leaves)
  args, kwargs = unflat if with_kwargs else (unflat, {})
  out_leaves, out_tree = tree_util.tree_flatten(f(*args, **kwargs))
  store.store(out_tree)
  return out_leaves


def flatten_fun(f: WrappedFun, in_tree) -> tuple[WrappedFun, Callable[[], Any]]:
  """`f` taking the leaves of `(args, kwargs)` (structure `in_tree`) and returning its
  output's leaves, and a thunk giving the output's structure once it has run."""
  return _flattened(f, in_tree, True)


def flatten_fun_nokwargs(f: WrappedFun, in_tree) -> tuple[WrappedFun, Callable[[], Any]]:
  """As `flatten_fun`, for `in_tree` the structure of the positional arguments alone."""
  return _flattened(f, in_tree, False)


# ---------------------------------------------------------------------------------------
# Static and donated arguments, and axis specifications

def _argnums_in_bounds(argnums, n: int) -> tuple[int, ...]:
  argnums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
  for i in argnums:
    if not -n <= i < n:
      raise ValueError("Positional argument indices, e.g. for `static_argnums`, must have "
                       "value greater than or equal to -len(args) and less than len(args), "
                       f"but got value {i} for len(args) == {n}.")
  return tuple(i % n for i in argnums)


class _Static:
  """A fixed argument in a WrappedFun's parameters: equal when of the same type and equal
  (so 1, 1.0 and True differ), or, for unhashable ones, when the same object."""
  __slots__ = ("value", "hashable")

  def __init__(self, value, hashable: bool) -> None:
    self.value, self.hashable = value, hashable

  def __eq__(self, other) -> bool:
    if not isinstance(other, _Static):
      return False
    if not self.hashable:
      return self.value is other.value
    return type(self.value) is type(other.value) and bool(self.value == other.value)

  def __hash__(self) -> int:
    return hash(self.value) if self.hashable else id(self.value)


@transformation2
def _with_statics(f, dyn_argnums, statics, *dyn_args):
  args, dyn, fixed = [], iter(dyn_args), iter(statics)
  for i in range(len(dyn_argnums) + len(statics)):
    args.append(next(dyn) if i in dyn_argnums else next(fixed).value)
  return f(*args)


def argnums_partial(f: WrappedFun, dyn_argnums, args: Sequence,
                    require_static_args_hashable: bool = True) -> tuple[WrappedFun, tuple]:
  """``f`` taking only the arguments at ``dyn_argnums`` (the others fixed to their values
  in ``args``), and those arguments.  Fixed arguments must be hashable unless
  ``require_static_args_hashable`` is False; equal fixed arguments give equal functions."""
  dyn_argnums = _argnums_in_bounds(dyn_argnums, len(args))
  statics = []
  for i, arg in enumerate(args):
    if i in dyn_argnums:
      continue
    if require_static_args_hashable:
      try:
        hash(arg)
      except TypeError:
        raise ValueError(
            "Non-hashable static arguments are not supported, as this can lead to "
            f"unexpected cache-misses. Static argument (index {i}) of type {type(arg)} for "
            f"function {f.__name__} is non-hashable.") from None
    statics.append(_Static(arg, require_static_args_hashable))
  return (_with_statics(f, frozenset(dyn_argnums), tuple(statics)),
          tuple(args[i] for i in dyn_argnums))


def donation_vector(donate_argnums, donate_argnames, in_tree, kws: bool = True
                    ) -> tuple[bool, ...]:
  """One flag per leaf of the arguments (``in_tree``: the structure of ``(args, kwargs)``,
  or of ``args`` alone with ``kws=False``): is it donated?"""
  args_tree, kwargs_tree = tree_util.treedef_children(in_tree) if kws else (in_tree, None)
  flags: list[bool] = []
  for i, arg in enumerate(args_tree.children()):
    flags += [i in donate_argnums] * arg.num_leaves
  if kwargs_tree is not None:
    for key, value in zip(kwargs_tree.node_data()[1], kwargs_tree.children()):
      flags += [key in donate_argnames] * value.num_leaves
  return tuple(flags)


def rebase_donate_argnums(donate_argnums, static_argnums) -> tuple[int, ...]:
  """``donate_argnums`` renumbered for the argument list without ``static_argnums``
  (sorted, unique); ValueError if the two intersect."""
  static, donate = sorted(set(static_argnums)), sorted(set(donate_argnums))
  both = set(static) & set(donate)
  if both:
    raise ValueError(f"`static_argnums` {static} and `donate_argnums` {donate} cannot "
                     "intersect.")
  return tuple(d - sum(s < d for s in static) for d in donate)


class _Leaf:
  def __repr__(self) -> str:
    return "pytree leaf"


def _is_prefix(treedef, axis_tree) -> bool:
  try:
    flatten_axes("", treedef, axis_tree)
  except ValueError:
    return False
  return True


def flatten_axes(name: str, treedef, axis_tree, *, kws: bool = False,
                 tupled_args: bool = False) -> list:
  """The axis spec (an int or None) of every leaf of ``treedef``, from ``axis_tree``: a
  pytree prefix of it whose leaves are ints and Nones (``vmap``'s ``in_axes``)."""
  is_none = lambda x: x is None
  spec = tree_util.tree_structure(axis_tree, is_leaf=is_none)
  try:
    subtrees = spec.flatten_up_to(treedef.unflatten([_Leaf()] * treedef.num_leaves))
  except ValueError as e:
    hint = ""
    if tupled_args:
      hint = (f" Note that {name} that are non-trivial pytrees should always be wrapped in a "
              "tuple representing the argument list.")
      if len(treedef.children()) == 1 and _is_prefix(treedef, (axis_tree,)):
        hint += (f" In particular, you're passing in a single argument which means that "
                 f"{name} might need to be wrapped in a singleton tuple.")
    raise ValueError(f"{name} specification must be a tree prefix of the corresponding "
                     f"value;{hint}\n  {e}") from None
  axes = tree_util.tree_leaves(axis_tree, is_leaf=is_none)
  return [a for a, sub in zip(axes, subtrees) for _ in tree_util.tree_leaves(sub)]
