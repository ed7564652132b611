"""``jit``: trace once per signature, compile with XLA, and dispatch fast.

A call flattens its arguments, computes a signature (tree structure, avals with weak types,
static values, tracing-relevant config) and looks it up.  At the top level a hit executes
the cached executable directly.  Under another transformation, jit binds the ``jit`` call
primitive, whose rules (``higher_order.call_rules``) transform the traced jaxpr, so jit
composes with everything.
"""
from __future__ import annotations

import contextlib
import functools
import inspect
import warnings
import weakref
from typing import Callable

from xjax._src.foundations import tree_util
from xjax._src.foundations.config import config
from xjax._src.core.avals import ShapedArray
from xjax._src.core.jaxpr import ClosedJaxpr, eval_jaxpr
from xjax._src.backend import runtime
from xjax._src.core.jaxpr_cache import bounded_put
from xjax._src.core.trace import (Primitive, Tracer, current_trace, escaped_tracer_error,
                                  eval_trace, set_current_trace)
from xjax._src.core.values import get_aval, pytype_aval_mappings
from xjax._src.execution import dispatch, host_eval, spmd
from xjax._src.execution.host_eval import HostCall
from xjax._src.foundations import dtypes, monitoring, retracing
from xjax._src.foundations.dtypes import canonicalize_dtype
from xjax._src.foundations.layout import Format, Layout
from xjax._src.foundations.sharding import (UNCONSTRAINED, NamedSharding, PartitionSpec,
                                            Sharding, SingleDeviceSharding, context_mesh)
from xjax._src.api.stages import ArgInfo
from xjax._src.foundations.errors import api_boundary, remove_internal_frames
from xjax._src.interpreters import ad, batching
from xjax._src.interpreters.higher_order import as_closed, call_rules, hoist
from xjax._src.core import source_info
from xjax._src.interpreters.staging import (DynamicJaxprTrace, fun_name, fun_source,
                                            make_debug_info, trace_to_jaxpr)
from xjax._src.primitives.hijax import check_low
from xjax._src.primitives.state.discharge import StatefulCall, has_state
from xjax._src.execution.array import Array
from xjax._src.foundations.wrapping import update_wrapper, wraps


# ---------------------------------------------------------------------------------------
# Argument handling shared by jit, make_jaxpr and eval_shape

def _normalize_static(fun, static_argnums, static_argnames, kind: str = "static"):
  """(argnums, argnames, signature) with each completed from the other through the
  signature; ``kind`` ("static" or "donate") names the options in errors."""
  if static_argnums is None:
    static_argnums = ()
  elif isinstance(static_argnums, int):
    static_argnums = (static_argnums,)
  static_argnums = tuple(int(i) for i in static_argnums)
  if static_argnames is None:
    static_argnames = ()
  elif isinstance(static_argnames, str):
    static_argnames = (static_argnames,)
  static_argnames = tuple(static_argnames)
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
    names = set(static_argnames)
    for i in static_argnums:
      if -len(positional) <= i < len(positional):
        p = positional[i]
        if p.kind == p.POSITIONAL_OR_KEYWORD:
          names.add(p.name)
    nums = set(static_argnums)
    for name in static_argnames:
      for idx, p in enumerate(positional):
        if p.name == name:
          nums.add(idx)
    static_argnames = tuple(sorted(names))
    static_argnums = tuple(sorted(nums))
  return static_argnums, static_argnames, sig


def _arg_names(sig, args, kwargs) -> list[str]:
  """Human names for the flattened dynamic arguments (used in error messages)."""
  names = []
  params = list(sig.parameters.values()) if sig is not None else []
  positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY,
                                                     p.POSITIONAL_OR_KEYWORD)]
  var_args = next((p.name for p in params if p.kind == p.VAR_POSITIONAL), "args")
  var_kw = next((p.name for p in params if p.kind == p.VAR_KEYWORD), None)
  named = {p.name for p in params if p.kind != p.VAR_KEYWORD}
  for i, a in enumerate(args):   # extra positional ones are named as JAX does: args[0]...
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
  """A static argument that cannot be hashed (JAX raises a ValueError)."""


def check_hashable(value, where: str):
  try:
    hash(value)
  except TypeError as e:
    raise NonHashableStaticError(
        f"Non-hashable static arguments are not supported. An error occurred while trying "
        f"to hash an object of type {type(value)}, {value!r}. The error was:\n{e}\n"
        f"(static argument {where}: mark only hashable values such as Python scalars, "
        "strings and tuples as static, or pass arrays as regular arguments.)") from None


def _check_statics_hashable(statics, static_kw) -> None:
  for i, v in statics:
    check_hashable(v, f"at position {i}")
  for k, v in static_kw:
    check_hashable(v, f"'{k}'")


def _valid_leaf_aval(leaf, fun, name: str) -> ShapedArray:
  try:
    return get_aval(leaf)
  except TypeError:
    raise TypeError(
        f"Error interpreting argument to {fun_name(fun)} as an abstract array. The "
        f"problematic value is of type {type(leaf)} and was passed to the function at path "
        f"{name}.\nThis typically means that a jit-wrapped function was called with a "
        f"non-array argument, and this argument was not marked as static using the "
        f"static_argnums or static_argnames parameters of jax.jit.\n"
        f"Argument '{leaf}' of type {type(leaf)} is not a valid JAX type.") from None


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


def _static_key(statics) -> tuple:
  return tuple((where, _Static(v)) for where, v in statics)


def _split_args(args, kwargs, static_argnums, static_argnames):
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


def _rebuild_call(fun, n_args, statics, static_kw):
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


def _trace_flat(call, in_tree, in_avals, debug):
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


# ---------------------------------------------------------------------------------------
# The jit call primitive

def _jit_impl(*args, jaxpr, name, device=None, compiler_options=(), inline=False):
  """A jit call run now (under a transformation that evaluates, such as vmap at the top
  level): on ``device`` when jit was given one (``device=``/``backend=``), compiled with
  its ``compiler_options``."""
  return dispatch.run_closed_jaxpr(jaxpr, args, name, device, compiler_options)


def _jit_lowering(ctx, *args, jaxpr, name, device=None, compiler_options=(), inline=False):
  if device is not None:
    raise NotImplementedError(
        f"jit of {name} with device={device!r} (or backend=) inside another compiled "
        "computation (jit, a loop or branch body, ...) is not supported by xjax: the "
        "placement applies only where the call runs on its own. Put the inputs on the device "
        "with jax.device_put instead (JAX deprecates jit's device and backend arguments).")
  return ctx.call(jaxpr, name, list(args))


def _jit_staging(trace, args, params) -> list:
  """A jit made with ``inline=True`` is staged as its body's equations (as JAX does)."""
  if not params.get("inline"):
    return trace.record(jit_p, args, params)
  closed = params["jaxpr"]
  with set_current_trace(trace):
    outs = eval_jaxpr(closed.jaxpr, closed.consts, *args)
  return [trace.to_tracer(x) for x in outs]


jit_p = dispatch.call_primitive("jit", impl=_jit_impl, lowering=_jit_lowering)
jit_p.staging = _jit_staging
jit_p.pp_params = lambda p: sorted(((k, v) for k, v in p.items() if k != "inline"),
                                   key=lambda kv: kv[0] != "name")
jit_p.pp_alias_jaxpr = "jaxpr"
call_rules(jit_p, keep_consts=("jvp",), forward_inputs=True)   # (as JAX prints them)


def _jax_call_primitive(name: str, closed_of: Callable) -> Primitive:
  """JAX's plain call primitives (`closed_call_p`: a ClosedJaxpr in `call_jaxpr`; `call_p`:
  a Jaxpr without constants there): they run the jaxpr, and a transformation of one gives a
  `jit` call of the transformed jaxpr (xjax itself stages neither)."""
  prim = Primitive(name, multiple_results=True)
  jit_params = lambda p: dict(jaxpr=closed_of(p["call_jaxpr"]), name=name)
  prim.abstract_eval = lambda *avals, **p: jit_p.abstract_eval(*avals, **jit_params(p))
  prim.impl = lambda *args, **p: jit_p.impl(*args, **jit_params(p))
  prim.lowering = lambda ctx, *args, **p: jit_p.lowering(ctx, *args, **jit_params(p))
  prim.effects = lambda **p: jit_p.effects(**jit_params(p))
  prim.jvp = lambda primals, tangents, **p: jit_p.jvp(primals, tangents, **jit_params(p))
  prim.partial_eval = lambda trace, args, p: jit_p.partial_eval(trace, args, jit_params(p))
  prim.transpose = lambda cts, *args, **p: jit_p.transpose(cts, *args, **jit_params(p))
  prim.batch = lambda axis, args, dims, **p: jit_p.batch(axis, args, dims, **jit_params(p))
  return prim


closed_call_p = _jax_call_primitive("closed_call", lambda closed: closed)
call_p = _jax_call_primitive("call", as_closed)


# ---------------------------------------------------------------------------------------
# Shardings given to jit: a sharding (or None) for every leaf below it

def _per_arg(shardings, n: int) -> list:
  """One entry of ``in_shardings`` per dynamic positional argument."""
  if shardings is None or isinstance(shardings, (Sharding, PartitionSpec)):
    return [shardings] * n
  shardings = list(shardings)
  if len(shardings) != n:
    raise ValueError("jit in_shardings specification must be a tree prefix of the positional "
                     f"arguments tuple: got a tuple or list of length {len(shardings)} for an "
                     f"args tuple of length {n} (the non-static positional arguments); give "
                     "one sharding (or None) per argument, or a single sharding for all.")
  return shardings


def _broadcast_prefix(shardings, tree, what: str) -> list:
  """``shardings`` (a pytree prefix of ``tree``) as one entry per leaf of ``tree``."""
  n = len(tree_util.tree_leaves(tree))
  if shardings is None or isinstance(shardings, Sharding):
    return [shardings] * n
  flat = tree_util.tree_leaves(shardings, is_leaf=lambda s: s is None)
  if len(flat) == n:
    return flat
  if isinstance(tree, (tuple, list)) and len(shardings) == len(tree):
    return [s for sub, t in zip(shardings, tree) for s in _broadcast_prefix(sub, t, what)]
  raise ValueError(f"jit {what} ({shardings!r}) is not a pytree prefix of the values it "
                   f"describes ({n} leaves).")


# ---------------------------------------------------------------------------------------
# The user-facing wrapper

class _CacheEntry:
  __slots__ = ("closed", "call_jaxpr", "out_tree", "compiled", "in_avals", "donated", "in_tree",
               "state", "host")

  def __init__(self, closed: ClosedJaxpr, out_tree, in_avals, in_tree=None) -> None:
    check_low(in_avals, "jit")
    self.state = None   # a StatefulCall when the function uses refs (then ``closed`` is its
    if has_state(closed):  # discharged jaxpr, taking and returning the refs' values)
      self.state = StatefulCall(closed)
      closed, in_avals = self.state.closed, self.state.in_avals
    self.in_tree = in_tree
    self.closed = closed
    self.call_jaxpr = hoist(closed)[0]
    self.out_tree = out_tree
    self.compiled: dict = {}
    self.in_avals = in_avals
    self.donated = None  # one flag per argument leaf when some are donated
    self.host = None  # its HostProgram once asked for (False: it has none)

  @property
  def n_ref_outs(self) -> int:
    """How many trailing outputs of ``closed`` are refs' final values (not the function's)."""
    return 0 if self.state is None else len(self.closed.out_avals) - self.state.n_out


# Traces and executables are shared by every jit of the same function with the same
# options (as in JAX), so re-wrapping a function with jit inside a loop does not retrace.
_function_caches: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_retrace_warned: set = set()  # caches already warned about retracing (ids)


def _clear_function_caches() -> None:
  for per_function in list(_function_caches.values()):
    for traces, fast_path in per_function.values():
      traces.clear()
      fast_path.clear()


runtime.register_backend_cache(_clear_function_caches)


# jit's fast path is off while jit is disabled, results are checked for NaN/Inf or
# execution is forbidden.
_FAST_FLAGS = ("jax_disable_jit", "jax_debug_nans", "jax_debug_infs", "jax_no_execution")
_FAST_ENTRIES = 64  # signatures per jitted function on the fast path
_TRACES_PER_FUNCTION = 1024  # the oldest trace goes first (its program with it)


def _plain_dispatch_now() -> bool:
  return not any(config.read(name) for name in _FAST_FLAGS)


_plain_dispatch = [_plain_dispatch_now()]
for _flag in _FAST_FLAGS:
  config.on_change(_flag, lambda _: _plain_dispatch.__setitem__(0, _plain_dispatch_now()))


_END = object()  # closes a node's children in a fast-path key


class _UnhashableAux:
  """A node's unhashable aux data in a fast-path key: hashed by its type, compared by value
  (as a PyTreeDef holding it compares)."""
  __slots__ = ("value",)

  def __init__(self, value) -> None:
    self.value = value

  def __hash__(self) -> int:
    return hash(type(self.value))

  def __eq__(self, other) -> bool:
    if type(other) is not _UnhashableAux or type(other.value) is not type(self.value):
      return False
    try:
      return bool(self.value == other.value)
    except Exception:  # e.g. arrays, whose comparison has no single truth value
      return False


def _leaf_key(x):
  """A leaf's entry in a fast-path key (see ``_fast_walk``), or None for other leaves."""
  kind = type(x)
  if kind is Array:
    return None if x._committed else x.aval
  if kind in _SCALAR_TYPES and (kind is not int or _INT32_MIN <= x <= _INT32_MAX):
    return kind
  return None


def _fast_walk(xs, key: list, leaves: list) -> bool:
  """Appends the signature of the arguments ``xs`` on jit's fast path to ``key`` and their
  leaves to ``leaves``; False when a leaf is not an uncommitted Array or a Python scalar.
  The key (after the trace token) lists the arguments' structure in prefix order: each
  leaf's aval (a Python scalar's type, from which its aval follows), each node's type and
  aux data, then its children and ``_END``."""
  for x in xs:
    kind = type(x)
    if kind is Array or kind in _SCALAR_TYPES:
      leaf = _leaf_key(x)
      if leaf is None:
        return False
      key.append(leaf)
      leaves.append(x)
    elif kind is dict:   # the common containers, as their nodes flatten them
      try:
        names = sorted(x)
      except TypeError:  # the checked path explains
        return False
      key.append(dict)
      key.append(tuple(names))
      if not _fast_walk([x[k] for k in names], key, leaves):
        return False
      key.append(_END)
    elif kind is tuple or kind is list:
      key.append(kind)
      key.append(None)
      if not _fast_walk(x, key, leaves):
        return False
      key.append(_END)
    else:
      node = tree_util.default_registry.flatten_one_level(x)
      if node is None:  # another kind of leaf: the checked path takes it
        return False
      children, aux = node
      try:
        hash(aux)
      except TypeError:
        aux = _UnhashableAux(aux)
      key.append(kind)
      key.append(aux)
      if not _fast_walk(children, key, leaves):
        return False
      key.append(_END)
  return True


_SCALAR_TYPES = (bool, int, float, complex)
_INT32_MIN, _INT32_MAX = -2 ** 31, 2 ** 31 - 1  # larger ints take the checked path


_LEAF_TREE = tree_util.tree_structure(0)
_axis_env = batching._axis_env


def _shared_cache(fun, options: tuple) -> tuple[dict, dict]:
  """(traces, fast-path table) of ``fun`` jitted with ``options``."""
  try:
    per_fun = _function_caches.get(fun)
    if per_fun is None:
      per_fun = _function_caches[fun] = {}
  except TypeError:  # not weak-referenceable (or unhashable): a private cache
    return {}, {}
  caches = per_fun.get(options)
  if caches is None:
    caches = per_fun[options] = ({}, {})
  return caches


def _hashable(x):
  return tuple(x) if isinstance(x, list) else x


class PjitFunction:
  """The callable ``jit(fun)`` returns (named as JAX names its type: libraries test for it)."""

  def __init__(self, fun: Callable, static_argnums, static_argnames, donate_argnums,
               donate_argnames, keep_unused, inline, in_shardings=None,
               out_shardings=None, device=None, backend=None,
               compiler_options=None, name: str | None = None,
               host_eval: bool = False) -> None:
    if not callable(fun):
      raise TypeError(f"Expected a callable value, got {fun!r}")
    self.fun = fun
    # Whether calls on host values may run on the host (``compiled_when_eager``'s library
    # functions; a user's jit always compiles, as JAX's does).
    self._host_eval = host_eval
    # (device, backend) when jit was given either: the calls run there.
    self._placement = _placement(device, backend, in_shardings, out_shardings)
    self._compiler_options = tuple(compiler_options.items()) if compiler_options else ()
    self._inline = bool(inline)
    self._keep_unused = bool(keep_unused)
    self._shardings = (in_shardings, out_shardings) if (
        in_shardings is not None or out_shardings is not None) else None
    for what, tree in (("in_shardings", in_shardings), ("out_shardings", out_shardings)):
      for s in tree_util.tree_leaves(tree, is_leaf=lambda s: isinstance(s, Sharding)):
        if isinstance(s, NamedSharding) and UNCONSTRAINED in s.spec:  # (a program's own)
          raise ValueError(f"Unconstrained dims are not allowed when passed to {what}: {s!r}")
    # A bare PartitionSpec needs a context mesh (jax.set_mesh) when called.
    self._bare_spec = next((name for name, tree in (("in_shardings", in_shardings),
                                                    ("out_shardings", out_shardings))
                            if any(isinstance(s, PartitionSpec) for s in tree_util.tree_leaves(
                                tree, is_leaf=lambda s: isinstance(s, (PartitionSpec, Sharding))))),
                           None)
    if self._bare_spec:  # resolved when called, over the context mesh
      self._options = (static_argnums, static_argnames, donate_argnums, donate_argnames,
                       keep_unused, inline)
      self._by_mesh: dict = {}
    self._static_argnums, self._static_argnames, self._sig = _normalize_static(
        fun, static_argnums, static_argnames)
    # Static positions for the fast path (None: negative ones, which take the checked path).
    self._fast_static_pos = (frozenset(self._static_argnums)
                             if all(i >= 0 for i in self._static_argnums) else None)
    self.donate_argnums = donate_argnums
    self._donate_argnums, self._donate_argnames, _ = _normalize_static(
        fun, donate_argnums, donate_argnames, "donate")
    both = set(self._static_argnames) & set(self._donate_argnames)
    if both:
      raise ValueError("static_argnames and donate_argnames cannot intersect. Argument names "
                       f"{both} appear in both static_argnames and donate_argnames")
    both = set(self._static_argnums) & set(self._donate_argnums)
    if both:
      raise ValueError("static_argnums and donate_argnums cannot intersect. Argument "
                       f"positions {both} appear in both static_argnums and donate_argnums")
    # _fast: a call's key (see _fast_walk) -> dispatch.UncommittedCall or HostCall
    self._cache, self._fast = _shared_cache(fun, (
        self._static_argnums, self._static_argnames, _hashable(donate_argnums),
        _hashable(donate_argnames), id(self) if self._shardings else None, self._placement,
        self._compiler_options, self._keep_unused, host_eval))
    self._name = fun_name(fun) if name is None else name   # (jaxprs show it)
    update_wrapper(self, fun, updated=())
    if self._sig is not None:  # inspect would take the object for a builtin (it has __get__)
      self.__signature__ = self._sig

  def __get__(self, obj, objtype=None):
    if obj is None:
      return self
    return functools.partial(self, obj)

  def __repr__(self) -> str:
    return f"<PjitFunction of {self.fun!r}>"

  # -- signature and tracing ---------------------------------------------------------------
  def _entry(self, args, kwargs):
    if kwargs or self._static_argnums:
      dyn_args, dyn_kwargs, statics, static_kw = _split_args(
          args, kwargs, self._static_argnums, self._static_argnames)
      leaves, in_tree = flatten_call(dyn_args, dyn_kwargs)
    else:  # the common case: positional, dynamic arguments only
      dyn_args, dyn_kwargs, statics, static_kw = args, {}, (), ()
      leaves, tree = tree_util.tree_flatten(args)
      in_tree = (False, tree)
    avals = []
    for leaf in leaves:
      if type(leaf) is Array:
        avals.append(leaf.aval)
        continue
      handler = None if isinstance(leaf, Tracer) else pytype_aval_mappings.get(type(leaf))
      try:
        avals.append(handler(leaf) if handler is not None else None)
      except OverflowError:
        dyn = _split_args(args, kwargs, self._static_argnums, self._static_argnames)
        name = _arg_names(self._sig, dyn[0], dyn[1])[len(avals)]
        raise OverflowError(
            "An overflow was encountered while parsing an argument to a jitted computation, "
            f"whose argument path is {name}. Got {type(leaf)} with value {leaf}") from None
    if None in avals:
      names = None
      for i, leaf in enumerate(leaves):
        if avals[i] is None:
          if isinstance(leaf, Tracer):
            avals[i] = leaf.aval
          else:
            if names is None:
              names = _arg_names(self._sig, dyn_args, dyn_kwargs)
            avals[i] = _valid_leaf_aval(leaf, self.fun, names[i] if i < len(names) else "?")
    avals = tuple(avals)
    axis_sizes = _axis_env.sizes   # named axes bound now (vmap, shard_map, axis_env)
    try:
      key = (in_tree, avals, _static_key(statics) if statics else (),
             _static_key(static_kw) if static_kw else (),
             (config._trace_key, tuple(axis_sizes)) if axis_sizes else config._trace_key)
      entry = self._cache.get(key)
    except TypeError:
      _check_statics_hashable(statics, static_kw)
      raise
    if entry is None:
      if self._shardings is not None and self._shardings[0] is not None:
        if dyn_kwargs:
          raise ValueError("jit does not support keyword arguments when in_shardings is "
                           "specified; pass them positionally.")
        _per_arg(self._shardings[0], len(dyn_args))
      debug = make_debug_info(self.fun, _arg_names(self._sig, dyn_args, dyn_kwargs))
      retracing.explain(self._cache, key, self._name, fun_source(self.fun), debug.arg_names,
                        _retrace_warned)
      call = _rebuild_call(self.fun, len(args), statics, static_kw)
      closed, out_tree = _trace_flat(call, in_tree, avals, debug)
      entry = _CacheEntry(closed, out_tree, avals, in_tree)
      if self._donate_argnums or self._donate_argnames:
        entry.donated = self._donated_leaves(args, kwargs)
      bounded_put(self._cache, key, entry, _TRACES_PER_FUNCTION)
    return entry, leaves, avals

  def _donated_leaves(self, args, kwargs) -> tuple | None:
    """One flag per dynamic argument leaf (in flattening order): is it donated?"""
    n = len(args)
    static = {i % n for i in self._static_argnums if -n <= i < n}
    donate = {i % n for i in self._donate_argnums if -n <= i < n}
    flags: list = []
    for i, a in enumerate(args):
      if i not in static:
        flags += [i in donate] * len(tree_util.tree_leaves(a))
    for k in sorted(kwargs):
      if k not in self._static_argnames:
        flags += [k in self._donate_argnames] * len(tree_util.tree_leaves(kwargs[k]))
    return tuple(flags) if any(flags) else None

  def __call__(self, *args, **kwargs):
    try:
      fast_key = None
      if _plain_dispatch[0] and current_trace() is eval_trace and not runtime.several_devices:
        # The fast path: uncommitted Arrays and Python scalars on the only device, with a
        # signature seen before.
        key = [config._trace_token]
        leaves: list = []
        if (_fast_walk(args, key, leaves) if not kwargs and not self._static_argnums
            else self._fast_call_walk(args, kwargs, key, leaves)):
          fast_key = tuple(key)
          try:
            hit = self._fast.get(fast_key)
          except TypeError:  # an unhashable static value: the checked path explains
            hit = fast_key = None
          if hit is not None:
            return hit(leaves, args, kwargs)
      if not config._values["jax_disable_jit"]:
        return self._call(args, kwargs, fast_key)
    except Exception as e:  # the user sees their frames, not ours (jax_traceback_filtering)
      remove_internal_frames(e)
      raise  # a bare raise does not add this frame back
    return self.fun(*args, **kwargs)

  def call_on_host(self, x, y):
    """``self(x, y)`` for two leaves (Arrays or Python scalars), computed on the host when
    the fast path holds a HostCall for their types and both are host values; else None.
    The Array operators' shortcut: their key is made without walking the arguments."""
    if current_trace() is not eval_trace or not _plain_dispatch[0]:
      return None
    try:
      hit = self._fast.get((config._trace_token, _leaf_key(x), _leaf_key(y)))
    except TypeError:
      return None
    return hit.on_host([x, y]) if type(hit) is HostCall else None

  def _fast_call_walk(self, args, kwargs, key: list, leaves: list) -> bool:
    """``_fast_walk`` of a call with static or keyword arguments: the key first holds the
    static values (with their types: ``2`` and ``2.0`` differ) and the keyword names; the
    dynamic arguments are walked in the order ``_entry`` flattens them."""
    static_pos = self._fast_static_pos
    if static_pos is None:  # negative static positions: the checked path
      return False
    head = [len(args)]
    dyn = []
    for i, x in enumerate(args):
      if i in static_pos:
        head.append((type(x), x))
      else:
        dyn.append(x)
    for name in sorted(kwargs):
      value = kwargs[name]
      if name in self._static_argnames:
        head.append((name, type(value), value))
      else:
        head.append(name)
        dyn.append(value)
    key.append(tuple(head))
    return _fast_walk(dyn, key, leaves)

  def _call(self, args, kwargs, fast_key: tuple | None = None):
    """The checked path; a call with a ``fast_key`` (its ``_fast_walk`` signature) that
    can run on the fast path is entered in the fast-path table."""
    if self._bare_spec:
      return self._over_context_mesh()._call(args, kwargs)
    entry, leaves, avals = self._entry(args, kwargs)
    if current_trace() is eval_trace:
      for x in leaves:
        if isinstance(x, Tracer):  # leaked from a transformation that has ended
          raise escaped_tracer_error(x)
    if entry.state is not None:   # the refs' values in, their final values out
      leaves, refs = entry.state.read(leaves)
      avals = entry.in_avals
    if current_trace() is eval_trace and runtime.several_devices and not self._placement and (
        self._shardings or spmd.call_mesh(entry.closed, leaves)):
      outs = self._call_spread(entry, leaves, args)
    elif current_trace() is eval_trace:
      if self._placement:
        device, committed = self._target_device(), True
      else:
        try:
          device, committed = dispatch.pick_device(leaves, self._name)
        except dispatch.IncompatibleDevicesError as err:
          dyn = _split_args(args, kwargs, self._static_argnums, self._static_argnames)
          raise err.with_names(_arg_names(self._sig, dyn[0], dyn[1])) from None
      if (fast_key is not None and not entry.donated and entry.state is None
          and not runtime.several_devices and _plain_dispatch[0] and not self._placement
          and not any(a.dtype == dtypes.float0 for a in (*avals, *entry.closed.out_avals))):
        call = self._fast_call(entry, leaves, avals, device)
        bounded_put(self._fast, fast_key, call, _FAST_ENTRIES)
        if type(call) is HostCall:
          return call(leaves, args, kwargs)
      compiled = self._compiled(entry, device)
      try:
        outs = compiled(leaves, avals, committed)
      except FloatingPointError as err:
        self._rerun_deoptimized(err, args, kwargs)
      except dispatch.DonatedBufferError as err:
        dyn = _split_args(args, kwargs, self._static_argnums, self._static_argnames)
        raise err.with_names(_arg_names(self._sig, dyn[0], dyn[1])) from None
    else:
      outs = jit_p.bind(*entry.closed.consts, *leaves, jaxpr=entry.call_jaxpr,
                        name=self._name, **self._bind_params())
    if entry.state is not None:
      outs = entry.state.write(refs, outs)
    return tree_util.tree_unflatten(entry.out_tree, outs)

  def _fast_call(self, entry, leaves, avals, device):
    """What the fast path runs for calls like this one: a HostCall where the function
    can run on host values, else an UncommittedCall."""
    out_tree = None if entry.out_tree == _LEAF_TREE else entry.out_tree
    scalars = tuple((i, a) for i, (x, a) in enumerate(zip(leaves, avals))
                    if type(x) is not Array)
    compiled_call = lambda: dispatch.UncommittedCall(self._compiled(entry, device), out_tree,
                                                     scalars)
    if not self._host_eval:
      return compiled_call()
    if entry.host is None:
      entry.host = host_eval.HostProgram.build(entry.closed) or False
    if entry.host and host_eval.enabled():
      return HostCall(entry.host, avals, compiled_call, out_tree)
    return compiled_call()

  def _compiled(self, entry, device, lowered: tuple | None = None):
    """The executable of ``entry`` on ``device`` (compiled on first use)."""
    compiled = entry.compiled.get(device)
    if compiled is None:
      compiled = entry.compiled[device] = dispatch.CompiledJaxpr(
          entry.closed, device, self._name, entry.donated, lowered, self._compiler_options,
          self._keeps_unused(entry))
    return compiled

  def _keeps_unused(self, entry) -> bool:
    """Whether ``entry``'s program takes its unused arguments too: with ``keep_unused``,
    and for functions using refs (their arguments are the refs' values)."""
    return self._keep_unused or entry.state is not None

  def _target_device(self):
    """The device jit's ``device=`` or ``backend=`` names (the backend's first)."""
    device, backend = self._placement
    return device if device is not None else runtime.backend(backend).local_devices()[0]

  def _bind_params(self) -> dict:
    """The ``jit`` primitive's parameters beyond the body and name: the device and XLA
    options jit was given (compiler options only where the call is not staged into an
    enclosing computation, as in JAX), and ``inline`` (staged as its body's equations)
    where neither placement nor shardings stop it, as JAX."""
    params = {}
    if self._placement:
      params["device"] = self._target_device()
    elif self._inline and self._shardings is None:
      params["inline"] = True
    if self._compiler_options:
      trace = current_trace()
      while trace is not None and not isinstance(trace, DynamicJaxprTrace):
        trace = trace.parent
      if trace is not None:
        raise ValueError(
            "`compiler_options` can only be passed to top-level `jax.jit`. Got "
            f"compiler_options={dict(self._compiler_options)} specified on a nested jit "
            f"with name: {self._name} and source info: {source_info.current()}")
      params["compiler_options"] = self._compiler_options
    return params

  def _over_context_mesh(self) -> "PjitFunction":
    """This jit with its bare PartitionSpecs taken over the context mesh (jax.set_mesh)."""
    mesh = context_mesh()
    if mesh is None or mesh.empty:
      raise RuntimeError(
          f"jit requires a non-empty mesh in context if you are passing `PartitionSpec`s to "
          f"{self._bare_spec}. You can define a context mesh via `jax.set_mesh(mesh)`. "
          f"Alternatively, provide `Sharding`s to {self._bare_spec} and then the mesh context "
          "manager is not required.")
    jitted = self._by_mesh.get(mesh)
    if jitted is None:
      named = lambda tree: tree_util.tree_map(
          lambda s: NamedSharding(mesh, s) if isinstance(s, PartitionSpec) else s, tree,
          is_leaf=lambda s: isinstance(s, (PartitionSpec, Sharding)))
      jitted = self._by_mesh[mesh] = PjitFunction(
          self.fun, *self._options, *map(named, self._shardings),
          compiler_options=dict(self._compiler_options))
    return jitted

  def _spread_layouts(self, entry, leaves, args):
    """(mesh, input shardings, output shardings) of a call over several devices; the
    mesh is None when everything is on one device."""
    ins, outs = self._shardings or (None, None)
    args = _split_args(args, {}, self._static_argnums, ())[0]
    in_flat = [s for a, s in zip(args, _per_arg(ins, len(args)))
               for s in _broadcast_prefix(s, a, "in_shardings")]
    in_flat += [None] * (len(leaves) - len(in_flat))
    in_flat = [s if s is not None else spmd.in_layout(x) for s, x in zip(in_flat, leaves)]
    out_flat = _broadcast_prefix(outs, tree_util.tree_unflatten(
        entry.out_tree, [0] * (len(entry.closed.out_avals) - entry.n_ref_outs)),
        "out_shardings")
    named = [s.mesh if isinstance(s, NamedSharding) else spmd.mesh_of(s)
             for s in in_flat + out_flat
             if isinstance(s, NamedSharding) or (s is not None and len(s.device_set) > 1)]
    mesh = spmd.common_mesh([*named, spmd.call_mesh(entry.closed, leaves)], "jit")
    for s, a in zip(in_flat, entry.in_avals):
      if isinstance(s, NamedSharding):
        s.check_shape(a.shape, "value")
    for s, a in zip(out_flat, entry.closed.out_avals):
      if isinstance(s, NamedSharding):
        s.check_shape(a.shape, "output")
    return mesh, in_flat, out_flat

  def _sharded_device(self):
    """The one device that the jit's ``in_shardings``/``out_shardings`` name, or None when
    they name none (JAX refuses shardings naming different devices)."""
    given = tree_util.tree_leaves(self._shardings or (),
                                  is_leaf=lambda s: isinstance(s, Sharding))
    devices = {d for s in given if isinstance(s, Sharding) for d in s.device_set}
    if len(devices) > 1:
      raise ValueError(f"Received incompatible devices for jitted computation. Got "
                       f"in_shardings/out_shardings of {self._name} on devices "
                       f"{sorted(d.id for d in devices)}; give them all one device, or a "
                       f"sharding over a mesh of those devices.")
    return next(iter(devices), None)

  def _call_spread(self, entry, leaves, args):
    """A call whose inputs, shardings or equations span several devices."""
    mesh, ins, outs = self._spread_layouts(entry, leaves, args)
    if mesh is None:  # shardings of one device
      device = self._sharded_device()
      if device is None:
        device, committed = dispatch.pick_device(leaves, self._name)
      else:  # the jit's own shardings name it: inputs go there, results stay committed
        committed = True
      return self._compiled(entry, device)(leaves, entry.in_avals, committed)
    return spmd.run_jaxpr(entry.closed, leaves, mesh, self._name, ins, outs,
                          self._compiler_options)

  def _rerun_deoptimized(self, err: FloatingPointError, args, kwargs):
    """jax_debug_nans/infs: a jitted result held a NaN/Inf; run the function op by op so
    the error names the primitive that produced it and the user's line (as JAX does)."""
    with config._override("jax_disable_jit", True):
      self.fun(*args, **kwargs)  # raises FloatingPointError at the offending operation
    kind = "nan" if "nan" in str(err) else "inf"
    raise FloatingPointError(
        f"invalid value ({kind}) encountered in jit({self._name}). Because jax_debug_nans "
        "and/or jax_debug_infs is set, the de-optimized function (the function as if the "
        "`jit` decorator were removed) was called to find the operation that produced it, "
        "but it did not produce invalid values. This can come from `jit` optimizations, "
        "or from nan/inf literals as inputs or outputs.") from err

  # -- AOT ---------------------------------------------------------------------------------
  def trace(self, *args, **kwargs) -> "Traced":
    if self._placement:
      self._target_device()  # an unknown backend raises now, as in JAX
    entry, leaves, avals = self._entry(args, kwargs)
    return Traced(self, entry, leaves, args)

  def lower(self, *args, **kwargs) -> "Lowered":
    return self.trace(*args, **kwargs).lower()

  def eval_shape(self, *args, **kwargs):
    entry, _, _ = self._entry(args, kwargs)
    out_avals = entry.closed.out_avals   # (then the final values of refs it writes)
    return tree_util.tree_unflatten(
        entry.out_tree, [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)
                         for a in out_avals[:len(out_avals) - entry.n_ref_outs]])

  def clear_cache(self) -> None:
    self._cache.clear()
    self._fast.clear()

  def _cache_size(self) -> int:
    return len(self._cache)


class _Signature:
  """What each stage (Traced, Lowered, Compiled) tells of its call signature: the dynamic
  arguments as ``(args, kwargs)`` and the outputs, as trees (JAX's stage attributes)."""
  _jitted: PjitFunction
  _entry: _CacheEntry
  _weak_out_info = False   # out_info with weak types (the traced stage's, as JAX's)

  def _in(self, leaves: list):
    """``leaves`` (one per dynamic argument leaf) in the ``(args, kwargs)`` structure."""
    return unflatten_call(self._entry.in_tree, leaves)

  def _out(self, leaves: list):
    return tree_util.tree_unflatten(self._entry.out_tree, leaves)

  @property
  def _out_avals(self) -> list:
    out_avals = self._entry.closed.out_avals   # (then the final values of refs it writes)
    return out_avals[:len(out_avals) - self._entry.n_ref_outs]

  @property
  def in_tree(self):
    return tree_util.tree_structure(self._in([object()] * len(self._entry.in_avals)))

  @property
  def in_avals(self):
    return self._in(list(self._entry.in_avals))

  @property
  def out_tree(self):
    return self._entry.out_tree

  @property
  def out_info(self):
    return self._out([ShapeDtypeStruct(a.shape, a.dtype,
                                       weak_type=self._weak_out_info and a.weak_type)
                      for a in self._out_avals])

  @property
  def args_info(self):
    donated = self._entry.donated or [False] * len(self._entry.in_avals)
    return self._in([ArgInfo(a, bool(d)) for a, d in zip(self._entry.in_avals, donated)])

  @property
  def donate_argnums(self) -> tuple:
    """The donated dynamic argument leaves, by position."""
    return tuple(i for i, d in enumerate(self._entry.donated or ()) if d)


class Traced(_Signature):
  _weak_out_info = True

  def __init__(self, jitted: PjitFunction, entry: _CacheEntry, leaves=(), args=()) -> None:
    self._jitted = jitted
    self._entry = entry
    self._leaves, self._args = leaves, args
    # (a function using refs: its jaxpr on the refs, as traced; it runs discharged)
    self.jaxpr = entry.closed if entry.state is None else entry.state.traced
    self.fun_name = jitted._name

  @property
  def out_avals(self):
    return self._out(list(self._out_avals))

  def lower(self) -> "Lowered":
    return Lowered(self._jitted, self._entry, self._leaves, self._args)


class Lowered(_Signature):
  """The StableHLO of a jitted function for given argument types."""

  def __init__(self, jitted: PjitFunction, entry: _CacheEntry, leaves=(), args=()) -> None:
    self._jitted = jitted
    self._entry = entry
    closed = entry.closed
    spread = (runtime.several_devices and not jitted._placement
              and jitted._spread_layouts(entry, leaves, args))
    self._lowered = None  # (text, host callbacks) of a one-device module, which compile reuses
    self._spread = None   # (leaves, mesh, in shardings, out shardings) of an SPMD program
    if spread and spread[0] is not None:
      self._text = spmd.lower(closed, *spread, jitted._name)
      self._spread = (leaves, *spread)
    else:
      program, donated, _ = dispatch.used_arguments(closed, entry.donated,
                                                    jitted._keeps_unused(entry))
      self._lowered = dispatch.lower_program(program, jitted._name, donated)
      self._text = self._lowered[0]

  def as_text(self, dialect: str | None = None, debug_info: bool = False) -> str:
    return self._text

  def cost_analysis(self) -> dict:
    """XLA's cost estimates of the module before optimization (``Compiled.cost_analysis``
    has them after)."""
    return runtime.hlo_cost_analysis(self._text, runtime.default_device())

  def compiler_ir(self, dialect: str | None = None):
    """The module as jaxlib's MLIR ``ir.Module`` (``dialect='stablehlo'``, the default) or
    as XLA's HLO computation (``dialect='hlo'``, printed by ``as_hlo_text()``)."""
    from xjax._src.backend import runtime
    if dialect in (None, "stablehlo"):
      return runtime.mlir_module(self._text)
    if dialect == "hlo":
      return runtime.hlo_computation(self._text)
    raise ValueError(f"compiler_ir: unknown dialect {dialect!r}; expected 'stablehlo' or 'hlo'")

  def compile(self, compiler_options: dict | None = None, *,
              device_assignment=None) -> "Compiled":
    """The compiled program; ``compiler_options`` (XLA options by name) add to and
    override jit's.  ``device_assignment``, when given, must be the program's device."""
    jitted, entry = self._jitted, self._entry
    if self._spread is not None:
      leaves, mesh, ins, outs = self._spread
      options = tuple({**dict(jitted._compiler_options), **(compiler_options or {})}.items())
      return Compiled(jitted, entry, _SpmdCompiled(spmd.program_for(
          entry.closed, leaves, mesh, jitted._name, ins, outs, options)))
    device = (jitted._target_device() if jitted._placement
              else jitted._sharded_device() or runtime.default_device())
    if device_assignment is not None:
      given = [d.id for d in device_assignment]
      if given != [device.id]:
        raise ValueError(
            "device_assignment passed to `.compile` must match the device_assignment "
            "calculated from array shardings and out_shardings. Got device ids passed to "
            f"compile {given} on platform {device.platform.upper()} and devices ids "
            f"calculated from array shardings and out_shardings [{device.id}] on platform "
            f"{device.platform.upper()}")
    if not compiler_options:
      return Compiled(jitted, entry, jitted._compiled(entry, device, self._lowered))
    options = tuple({**dict(jitted._compiler_options), **compiler_options}.items())
    return Compiled(jitted, entry, dispatch.CompiledJaxpr(
        entry.closed, device, jitted._name, entry.donated, self._lowered, options,
        jitted._keeps_unused(entry)))


class _SpmdCompiled:
  """A jit's program compiled over a mesh's devices, as ``Compiled`` uses it."""
  __slots__ = ("program",)
  kept = None  # it takes every argument

  def __init__(self, program) -> None:
    self.program = program

  def loaded(self):
    return self.program

  def __call__(self, leaves, avals, committed) -> list:
    return self.program(leaves)


class Compiled(_Signature):
  def __init__(self, jitted, entry, compiled) -> None:
    self._jitted = jitted
    self._entry = entry
    self._compiled = compiled

  def as_text(self) -> str:
    return self._compiled.loaded().executable.hlo_text()

  def cost_analysis(self):
    return self._compiled.loaded().executable.cost_analysis()

  def memory_analysis(self):
    return self._compiled.loaded().executable.memory_analysis()

  def runtime_executable(self):
    return self._compiled.loaded().executable.runtime_executable()

  @property
  def _sharding(self) -> SingleDeviceSharding:
    return SingleDeviceSharding(self._compiled.device)

  @property
  def input_shardings(self):
    """A sharding per argument leaf; None for those the program does not take."""
    if type(self._compiled) is _SpmdCompiled:
      return self._in(list(self._compiled.program.in_shardings))
    kept = self._compiled.kept
    return self._in([self._sharding if kept is None or i in kept else None
                     for i in range(len(self._entry.in_avals))])

  @property
  def output_shardings(self):
    if type(self._compiled) is _SpmdCompiled:
      return self._out(list(self._compiled.program.out_shardings))
    return self._out([self._sharding] * len(self._out_avals))

  @property
  def input_formats(self):
    return self._in([self._format(a) for a in self._entry.in_avals])

  @property
  def output_formats(self):
    return self._out([self._format(a) for a in self._out_avals])

  def _format(self, aval) -> Format:
    """XLA's default (row-major) layout of ``aval`` on the program's device."""
    return Format(Layout(tuple(range(aval.ndim)), ()), self._sharding)

  def __call__(self, *args, **kwargs):
    """Runs on the dynamic arguments only: the static ones were fixed when lowering."""
    entry = self._entry
    leaves, in_tree = flatten_call(args, kwargs)
    if in_tree != entry.in_tree:
      raise TypeError("Function compiled with input pytree does not match the input pytree "
                      f"it was called with: compiled for {entry.in_tree[1]}, called with "
                      f"{in_tree[1]}. Pass only the non-static arguments.")
    if entry.state is not None:   # the refs' values in, their final values out
      leaves, refs = entry.state.read(leaves)
    avals = tuple(get_aval(x) for x in leaves)
    if [(a.shape, a.dtype) for a in avals] != [(a.shape, a.dtype) for a in entry.in_avals]:
      raise TypeError(
          "Argument types differ from the types for which this computation was compiled: "
          f"called with {', '.join(map(str, avals))}; compiled for "
          f"{', '.join(map(str, entry.in_avals))}. Call .lower(...) again for the new types.")
    if type(self._compiled) is _SpmdCompiled:  # over a mesh: results placed as compiled
      outs = self._compiled(leaves, entry.in_avals, True)
    else:
      committed = True if self._jitted._placement else dispatch.pick_device(leaves)[1]
      outs = self._compiled(leaves, entry.in_avals, committed)
    if entry.state is not None:
      outs = entry.state.write(refs, outs)
    return tree_util.tree_unflatten(entry.out_tree, outs)


def jit(fun: Callable | None = None, *, static_argnums=None, static_argnames=None,
        donate_argnums=None, donate_argnames=None, keep_unused: bool = False, device=None,
        backend=None, inline: bool = False, in_shardings=None, out_shardings=None,
        compiler_options: dict | None = None):
  """Compiles ``fun`` with XLA; traced once per distinct argument signature.  ``device``
  or ``backend`` (deprecated in JAX) places every call there; ``compiler_options`` are
  XLA options by name (``{"xla_cpu_enable_fast_math": True}``)."""
  if fun is None:
    return functools.partial(
        jit, static_argnums=static_argnums, static_argnames=static_argnames,
        donate_argnums=donate_argnums, donate_argnames=donate_argnames,
        keep_unused=keep_unused, device=device, backend=backend, inline=inline,
        in_shardings=in_shardings, out_shardings=out_shardings,
        compiler_options=compiler_options)
  return PjitFunction(fun, static_argnums, static_argnames, donate_argnums, donate_argnames,
                      keep_unused, inline, in_shardings, out_shardings, device, backend,
                      compiler_options)


def _placement(device, backend, in_shardings, out_shardings) -> tuple | None:
  """(device, backend) of a jit given either (checked as JAX checks them), else None."""
  if device is None and backend is None:
    return None
  warnings.warn("backend and device argument on jit is deprecated. You can use "
                '`jax.device_put(..., jax.local_devices(backend="cpu")[0])` on the inputs to '
                "the jitted function to get the same behavior.", DeprecationWarning,
                stacklevel=4)
  if device is not None and backend is not None:
    raise ValueError("can't specify both a device and a backend for jit, "
                     f"got device={device!r} and backend={backend!r}")
  for name, given in (("in_shardings", in_shardings), ("out_shardings", out_shardings)):
    if given is not None:
      raise ValueError("If backend or device is specified on jit, then "
                       f"{name} should not be specified.")
  if device is not None and not isinstance(device, runtime.Device):
    raise TypeError(f"jit's device must be a Device (such as jax.devices()[0]), got "
                    f"{device!r}; to choose a platform by name, pass backend=.")
  return device, backend


def compiled_when_eager(fun: Callable | None = None, *, static_argnames=(),
                        hashable_statics: bool = False, staged: str | None = None):
  """``fun``, a library function built from primitives, run as one compiled program per
  argument signature when called on concrete values (as JAX jits its ``jax.numpy``).
  Traced, it runs inline, so jaxprs show its primitives, but for the functions JAX jits
  (``staged``: the name JAX's jaxprs give the call): under any transformation (make_jaxpr,
  jit, a loop body, eager grad or vmap) these are a nested ``jit`` call of that name, as in
  JAX, so weak types follow a call's rules (its transpose sums cotangents inside the call).
  A non-hashable value for a static parameter runs it op by op instead, or, with
  ``hashable_statics`` (functions JAX jits with those parameters as they are given), raises
  JAX's ValueError."""
  if fun is None:
    return functools.partial(compiled_when_eager, static_argnames=static_argnames,
                             hashable_statics=hashable_statics, staged=staged)
  jitted = PjitFunction(fun, None, static_argnames, None, None, False, False, name=staged,
                        host_eval=True)

  @wraps(fun)
  def call(*args, **kwargs):  # (with ``call.on_host``, ``jitted.call_on_host``, below)
    trace = current_trace()
    if trace is eval_trace or staged is not None:
      try:
        return jitted(*args, **kwargs)
      except NonHashableStaticError:
        if hashable_statics:
          raise
    elif hashable_statics:  # traced: JAX's jit still hashes them (a traced axis fails)
      _check_statics_hashable(*_split_args(args, kwargs, jitted._static_argnums,
                                           jitted._static_argnames)[2:])
    return fun(*args, **kwargs)
  call.on_host = jitted.call_on_host
  return call


# ---------------------------------------------------------------------------------------
# make_jaxpr and eval_shape

class ShapeDtypeStruct:
  """A shape and dtype standing in for an array (eval_shape, AOT lowering)."""
  __slots__ = ("shape", "dtype", "weak_type", "sharding")

  def __init__(self, shape, dtype, *, weak_type: bool = False, sharding=None) -> None:
    self.shape = tuple(shape)
    self.dtype = dtypes.dtype(dtype)  # as given: 64-bit types canonicalize in the aval
    self.weak_type = weak_type
    self.sharding = sharding

  @classmethod
  def like(cls, x) -> "ShapeDtypeStruct":
    """The shape, dtype and weak type of ``x`` (an array, scalar or ShapeDtypeStruct),
    with its sharding when it is committed to one."""
    aval = get_aval(x)
    sharding = getattr(x, "sharding", None) if getattr(x, "_committed", True) else None
    return cls(aval.shape, aval.dtype, weak_type=aval.weak_type, sharding=sharding)

  @property
  def ndim(self) -> int:
    return len(self.shape)

  @property
  def size(self) -> int:
    import math
    return math.prod(self.shape)

  def __repr__(self) -> str:
    sharding = "" if self.sharding is None else f", sharding={self.sharding}"
    weak = ", weak_type=True" if self.weak_type else ""
    return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{sharding}{weak})"

  def _key(self) -> tuple:
    return self.shape, self.dtype, self.sharding, self.weak_type

  def __eq__(self, other) -> bool:
    return isinstance(other, ShapeDtypeStruct) and self._key() == other._key()

  def __hash__(self) -> int:
    return hash(self._key())


def _shape_dtype_struct_aval(s: ShapeDtypeStruct) -> ShapedArray:
  return ShapedArray(s.shape, dtypes.canonicalize_dtype(s.dtype, allow_extended_dtype=True),
                     s.weak_type)


pytype_aval_mappings[ShapeDtypeStruct] = _shape_dtype_struct_aval


def make_jaxpr(fun: Callable, static_argnums=(), axis_env=None, return_shape: bool = False):
  """``make_jaxpr(f)(*args)`` returns the ClosedJaxpr of ``f`` traced at ``args``' types;
  ``axis_env``, (name, size) pairs, binds axis names for the collectives ``f`` uses."""
  if not callable(fun):
    raise TypeError("the first argument must be callable")
  static_argnums_n, static_argnames, sig = _normalize_static(fun, static_argnums, None)
  axes = [batching.AxisData(int(size), name) for name, size in axis_env or ()]

  @api_boundary
  @wraps(fun)
  def make(*args, **kwargs):
    dyn_args, dyn_kwargs, statics, static_kw = _split_args(args, kwargs, static_argnums_n, ())
    leaves, in_tree = flatten_call(dyn_args, dyn_kwargs)
    names = _arg_names(sig, dyn_args, dyn_kwargs)
    avals = [leaf.aval if isinstance(leaf, Tracer) else _valid_leaf_aval(leaf, fun, n)
             for leaf, n in zip(leaves, names + ["?"] * len(leaves))]
    debug = make_debug_info(fun, names)
    call = _rebuild_call(fun, len(args), statics, static_kw)
    with contextlib.ExitStack() as bound:
      for axis in axes:
        bound.enter_context(batching._bound_axis(axis))
      closed, out_tree = _trace_flat(call, in_tree, avals, debug)
    if return_shape:
      shapes = tree_util.tree_unflatten(out_tree, [ShapeDtypeStruct(
          a.shape, a.dtype, weak_type=a.weak_type) for a in closed.out_avals])
      return closed, shapes
    return closed
  return make


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
  return _valid_leaf_aval(leaf, fun, "?")


@api_boundary
def eval_shape(fun: Callable, *args, **kwargs):
  """Output shapes/dtypes of ``fun(*args)`` without running it (no FLOPs)."""
  leaves, in_tree = flatten_call(args, kwargs)
  avals = [_shaped_leaf_aval(x, fun) for x in leaves]
  debug = make_debug_info(fun, None)
  # A ShapeDtypeStruct in the output has no value: it stands for itself (as in JAX).
  shaped = lambda x: ad.zeros_of(get_aval(x)) if isinstance(x, ShapeDtypeStruct) else x
  closed, out_tree = _trace_flat(lambda a, k: tree_util.tree_map(shaped, fun(*a, **k)),
                                 in_tree, avals, debug)
  return tree_util.tree_unflatten(out_tree, [ShapeDtypeStruct(
      a.shape, a.dtype, weak_type=a.weak_type) for a in closed.out_avals])
