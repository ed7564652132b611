"""A call's arguments as jit, make_jaxpr and eval_shape take them: static ones split from
dynamic ones (and checked hashable), the dynamic ones flattened and given avals, and the call
traced to a closed jaxpr."""
from __future__ import annotations

import inspect

import numpy as np

from xjax._src.foundations import monitoring, tree_util
from xjax._src.foundations.config import config
from xjax._src.core.avals import ShapedArray
from xjax._src.core.trace import Tracer, current_trace, eval_trace
from xjax._src.core.values import get_aval, shaped_abstractify
from xjax._src.interpreters.staging import trace_to_jaxpr


_NO_SIGNATURE = object()


def normalize_static(fun, static_argnums, static_argnames, kind: str = "static",
                     sig=_NO_SIGNATURE):
  """(argnums, argnames, signature). As JAX's, when only one of the two is given the other
  is read off the signature (the positional-or-keyword parameters at those positions, or of
  those names); when both are given each is taken as it is. ``kind`` ("static" or "donate")
  names the options in errors; ``sig``, when given, is ``fun``'s signature as this function
  returned it before (None: it has none)."""
  nums_given, names_given = static_argnums is not None, static_argnames is not None
  if static_argnums is None:
    static_argnums = ()
  elif isinstance(static_argnums, (int, np.integer)):
    static_argnums = (static_argnums,)
  static_argnums = tuple(int(i) for i in static_argnums)
  if static_argnames is None:
    static_argnames = ()
  elif isinstance(static_argnames, str):
    static_argnames = (static_argnames,)
  static_argnames = tuple(static_argnames)
  if sig is _NO_SIGNATURE:
    try:
      sig = inspect.signature(fun)
    except (TypeError, ValueError):
      sig = None
  if sig is not None:
    params = list(sig.parameters.values())
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if not any(p.kind == p.VAR_POSITIONAL for p in params):
      for i in static_argnums:
        if not -len(positional) <= i < len(positional):
          raise ValueError(f"Jitted function has {kind}_argnums={static_argnums}, but only "
                           f"accepts {len(positional)} positional arguments.")
    if not any(p.kind == p.VAR_KEYWORD for p in params):
      known = {p.name for p in params if p.kind != p.POSITIONAL_ONLY}
      invalid = set(static_argnames) - known
      if invalid:
        raise ValueError(f"Jitted function has invalid argnames {invalid} in "
                         f"{kind}_argnames. Function does not take these args.")
    either = [(i, p.name) for i, p in enumerate(params) if p.kind == p.POSITIONAL_OR_KEYWORD]
    if nums_given and not names_given:
      static_argnames = tuple(name for i, name in either if i in static_argnums)
    elif names_given and not nums_given:
      static_argnums = tuple(i for i, name in either if name in static_argnames)
  return tuple(sorted(set(static_argnums))), tuple(sorted(set(static_argnames))), sig


def arg_names(sig, args, kwargs, statics=()) -> list[str]:
  """Human names for the flattened dynamic arguments ``args``/``kwargs`` of a call whose
  static positional arguments ``statics`` ((position, value) pairs, as ``split_args``
  gives them) were taken out: each is named by its position in the whole call."""
  names = []
  taken = {i for i, _ in statics}
  positions = [i for i in range(len(args) + len(taken)) if i not in taken]
  params = list(sig.parameters.values()) if sig is not None else []
  positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY,
                                                     p.POSITIONAL_OR_KEYWORD)]
  var_args = next((p.name for p in params if p.kind == p.VAR_POSITIONAL), "args")
  var_kw = next((p.name for p in params if p.kind == p.VAR_KEYWORD), None)
  named = {p.name for p in params if p.kind != p.VAR_KEYWORD}
  for i, a in zip(positions, args):  # extra positional ones are named as JAX's: args[0]...
    base = (positional[i] if i < len(positional)
            else f"{var_args}[{i - len(positional)}]")
    for path, _ in tree_util.tree_flatten_with_path(a)[0]:
      names.append(base + tree_util.keystr(path))
  for k in sorted(kwargs):
    base = k if var_kw is None or k in named else f"{var_kw}[{k!r}]"
    for path, _ in tree_util.tree_flatten_with_path(kwargs[k])[0]:
      names.append(base + tree_util.keystr(path))
  return names


class NonHashableStaticError(ValueError):
  """A static argument that cannot be hashed: caught inside xjax (a library function then
  runs op by op); what reaches the user is ``as_value_error``'s plain ValueError, as JAX's."""

  def as_value_error(self) -> ValueError:
    return ValueError(*self.args)


def check_hashable(value, where: str):
  try:
    hash(value)
  except TypeError as e:
    raise NonHashableStaticError(
        f"Non-hashable static arguments are not supported. An error occurred while trying "
        f"to hash an object of type {type(value)}, {value}. The error was:\n"
        f"{type(e).__name__}: {e}\n"
        f"(static argument {where}: mark only hashable values such as Python scalars, "
        "strings and tuples as static, or pass arrays as regular arguments.)") from None


def check_statics_hashable(statics, static_kw) -> None:
  for i, v in statics:
    check_hashable(v, f"at position {i}")
  for k, v in static_kw:
    check_hashable(v, f"'{k}'")


def valid_leaf_aval(leaf, fun, name: str, abstract: bool = False) -> ShapedArray:
  """The abstract value of an argument leaf; ``abstract`` (make_jaxpr, AOT tracing and
  lowering) also takes abstract values and objects with a dtype, as JAX's
  ``shaped_abstractify`` does."""
  try:
    return shaped_abstractify(leaf) if abstract else get_aval(leaf)
  except TypeError:
    raise TypeError(
        f"Error interpreting argument to {fun!r} as an abstract array. The problematic "
        f"value is of type {type(leaf)} and was passed to the function at path {name}.\n"
        f"This typically means that a jit-wrapped function was called with a non-array "
        f"argument, and this argument was not marked as static using the static_argnums or "
        f"static_argnames parameters of jax.jit.") from None


class _Static:
  """A static argument as a cache key: equal only to a value of the same type, so ``2``,
  ``2.0`` and ``True`` (equal in Python) trace separately, as in JAX."""
  __slots__ = ("value",)

  def __init__(self, value) -> None:
    self.value = value

  def __eq__(self, other) -> bool:
    return type(other) is _Static and type(self.value) is type(other.value) and (
        self.value == other.value)

  def __hash__(self) -> int:
    return hash(self.value)

  def __repr__(self) -> str:
    return repr(self.value)


def static_key(statics) -> tuple:
  return tuple((where, _Static(v)) for where, v in statics)


def split_args(args, kwargs, static_argnums, static_argnames):
  n = len(args)
  static_pos = {i % n for i in static_argnums if -n <= i < n} if static_argnums else ()
  if static_pos:
    dyn_args = tuple(a for i, a in enumerate(args) if i not in static_pos)
    statics = tuple((i, args[i]) for i in sorted(static_pos))
  else:
    dyn_args, statics = args, ()
  if static_argnames and kwargs:
    dyn_kwargs = {k: v for k, v in kwargs.items() if k not in static_argnames}
    static_kw = tuple(sorted((k, v) for k, v in kwargs.items() if k in static_argnames))
  else:
    dyn_kwargs, static_kw = kwargs, ()
  return dyn_args, dyn_kwargs, statics, static_kw


def rebuild_call(fun, n_args, statics, static_kw):
  """fun taking (dyn_args, dyn_kwargs) and re-inserting the static values."""
  def call(dyn_args, dyn_kwargs):
    args = list(dyn_args)
    for i, v in statics:
      args.insert(i, v)
    kwargs = dict(dyn_kwargs)
    kwargs.update(static_kw)
    return fun(*args, **kwargs)
  return call


def flatten_call(args: tuple, kwargs: dict):
  """(leaves, in_tree) of a call's dynamic arguments; kwargs-free calls skip the dict."""
  if kwargs:
    leaves, tree = tree_util.tree_flatten((args, kwargs))
    return leaves, (True, tree)
  leaves, tree = tree_util.tree_flatten(args)
  return leaves, (False, tree)


def unflatten_call(in_tree, leaves) -> tuple[tuple, dict]:
  has_kwargs, tree = in_tree
  if has_kwargs:
    return tree_util.tree_unflatten(tree, leaves)
  return tree_util.tree_unflatten(tree, leaves), {}


def trace_flat(call, in_tree, in_avals, debug):
  """Traces call(*unflattened) to a ClosedJaxpr and the output tree."""
  out_tree_box, paths_box = [], []

  def flat_fun(*leaves):
    dyn_args, dyn_kwargs = unflatten_call(in_tree, leaves)
    out = call(dyn_args, dyn_kwargs)
    pairs, out_tree = tree_util.tree_flatten_with_path(out)
    out_leaves = [leaf for _, leaf in pairs]
    out_tree_box.append(out_tree)
    paths_box.append(tuple(f"result{tree_util.keystr(path)}" for path, _ in pairs))
    for leaf in out_leaves:
      if not isinstance(leaf, Tracer):
        try:
          get_aval(leaf)
        except TypeError:
          raise TypeError(f"{debug.func_name} returned a value of type {type(leaf)}, which "
                          "is not a valid JAX type; return arrays, scalars or pytrees of "
                          "them.") from None
    return out_leaves

  if config._values["jax_no_tracing"]:
    raise RuntimeError(f"re-tracing function {debug.func_src_info} for "
                       "`jit`, but 'no_tracing' is set")
  debug = debug._replace(result_paths=lambda: paths_box[0])
  if current_trace() is eval_trace:  # a top-level trace, timed as JAX does
    with monitoring.timed(monitoring.JAXPR_TRACE_EVENT, debug.func_name):
      closed = trace_to_jaxpr(flat_fun, in_avals, debug)
  else:
    closed = trace_to_jaxpr(flat_fun, in_avals, debug)
  return closed, out_tree_box[0]

