"""``jit``: trace once per signature, compile with XLA, and dispatch fast.

A call flattens its arguments, computes a signature (tree structure, avals with weak types,
static values, tracing-relevant config) and looks it up.  At the top level a hit executes
the cached executable directly.  Under another transformation, jit binds the ``jit`` call
primitive (``jit_primitives.py``), whose rules (``higher_order.call_rules``) transform the
traced jaxpr, so jit composes with everything.  How a call's arguments are split and traced
is in ``call_tracing.py``, the fast path's key in ``fast_path.py``, the AOT stages in
``stages.py``.
"""
from __future__ import annotations

import functools
import types
import warnings
import weakref
from typing import Callable

from xjax._src.foundations import dtypes, retracing, tree_util
from xjax._src.foundations.config import config
from xjax._src.foundations.errors import api_boundary, remove_internal_frames
from xjax._src.foundations.sharding import (UNCONSTRAINED, Mesh, NamedSharding, PartitionSpec,
                                            Sharding, UnspecifiedValue, context_mesh,
                                            jit_context_mesh)
from xjax._src.foundations.wrapping import update_wrapper
from xjax._src.core import source_info
from xjax._src.core.jaxpr import ClosedJaxpr
from xjax._src.core.jaxpr_cache import bounded_put
from xjax._src.core.trace import Tracer, current_trace, escaped_tracer_error, eval_trace
from xjax._src.core.values import pytype_aval_mappings
from xjax._src.backend import clients, jaxlib_api
from xjax._src.execution import dispatch, host_eval, spmd
from xjax._src.execution.compiled_jaxprs import (CompiledJaxpr, UncommittedCall,
                                                 embedded_consts, lower_program,
                                                 used_arguments)
from xjax._src.execution.array import Array
from xjax._src.execution.host_eval import HostCall
from xjax._src.interpreters import batching
from xjax._src.interpreters.higher_order import hoist
from xjax._src.interpreters.staging import (DynamicJaxprTrace, fun_name, fun_source,
                                            make_debug_info)
from xjax._src.primitives.hijax import check_low
from xjax._src.primitives.state.discharge import StatefulCall, has_state
from xjax._src.api.call_tracing import (NonHashableStaticError, arg_names,
                                        check_statics_hashable, flatten_call, normalize_static,
                                        rebuild_call, split_args, static_key, trace_flat,
                                        valid_leaf_aval)
from xjax._src.api.fast_path import fast_walk, leaf_key, plain_dispatch
from xjax._src.api.jit_primitives import jit_p
from xjax._src.api.shape_dtype_struct import ShapeDtypeStruct
from xjax._src.api.stages import Lowered, Traced


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
  """``shardings`` (a pytree prefix of ``tree``: a Sharding, PartitionSpec or None covers
  the subtree at its place) as one entry per leaf of ``tree``."""
  is_spec = lambda s: s is None or isinstance(s, (Sharding, PartitionSpec))  # noqa: E731
  if is_spec(shardings):
    return [shardings] * len(tree_util.tree_leaves(tree))
  structure = tree_util.tree_structure(shardings, is_leaf=is_spec)
  try:
    subtrees = structure.flatten_up_to(tree)
  except (ValueError, TypeError):
    raise ValueError(f"jit {what} ({shardings!r}) is not a pytree prefix of the values it "
                     f"describes ({tree_util.tree_structure(tree)}).") from None
  return [s for s, sub in zip(tree_util.tree_leaves(shardings, is_leaf=is_spec), subtrees)
          for _ in tree_util.tree_leaves(sub)]


# ---------------------------------------------------------------------------------------
# The user-facing wrapper

class CacheEntry:
  __slots__ = ("closed", "call_jaxpr", "call_consts", "out_tree", "compiled", "in_avals",
               "donated", "in_tree", "state", "host", "lowered")

  def __init__(self, closed: ClosedJaxpr, out_tree, in_avals, in_tree=None) -> None:
    check_low(in_avals, "jit")
    self.state = None   # a StatefulCall when the function uses refs (then ``closed`` is its
    if has_state(closed):  # discharged jaxpr, taking and returning the refs' values)
      self.state = StatefulCall(closed)
      closed, in_avals = self.state.closed, self.state.in_avals
    self.in_tree = in_tree
    self.closed = closed
    # Staged into an enclosing trace, the call's body keeps the constants a module would
    # hold itself (as JAX's jit shows them: ``{ lambda c:f32[3]; a:f32[2,3]. ... }``);
    # others (tracers of the enclosing trace, big arrays, keys) are passed as operands.
    if len(embedded_consts(closed)) == len(closed.consts):
      self.call_jaxpr, self.call_consts = closed, ()
    else:
      self.call_jaxpr, self.call_consts = hoist(closed)
    self.out_tree = out_tree
    self.compiled: dict = {}
    self.in_avals = in_avals
    self.donated = None  # one flag per argument leaf when some are donated
    self.host = None  # its HostProgram once asked for (False: it has none)
    self.lowered: dict = {}  # (name, keep_unused) -> (module text, host callbacks), for AOT

  def lowered_program(self, name: str, keep_unused: bool) -> tuple:
    """``(module text, host callbacks)`` of this entry's one-device program, lowered on
    first use (``jit(f).lower`` on a new wrapper of a traced function reuses it, as JAX's)."""
    found = self.lowered.get((name, keep_unused))
    if found is None:
      program, donated, _ = used_arguments(self.closed, self.donated, keep_unused)
      found = self.lowered[name, keep_unused] = lower_program(program, name, donated)
    return found

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


clients.register_backend_cache(_clear_function_caches)


_FAST_ENTRIES = 64  # signatures per jitted function on the fast path
_TRACES_PER_FUNCTION = 1024  # the oldest trace goes first (its program with it)
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
      if tree is None:
        continue
      for s in tree_util.tree_leaves(tree, is_leaf=lambda s: isinstance(s, Sharding)):
        if isinstance(s, NamedSharding) and UNCONSTRAINED in s.spec:  # (a program's own)
          raise ValueError(f"Unconstrained dims are not allowed when passed to {what}: {s!r}")
    # A bare PartitionSpec needs a context mesh (jax.set_mesh) when called.
    self._bare_spec = next((name for name, tree in (("in_shardings", in_shardings),
                                                    ("out_shardings", out_shardings))
                            if tree is not None and any(
                                isinstance(s, PartitionSpec) for s in tree_util.tree_leaves(
                                    tree, is_leaf=lambda s: isinstance(s, (PartitionSpec,
                                                                           Sharding))))),
                           None)
    if self._bare_spec:  # resolved when called, over the context mesh
      self._options = (static_argnums, static_argnames, donate_argnums, donate_argnames,
                       keep_unused, inline)
      self._by_mesh: dict = {}
    self._static_argnums, self._static_argnames, self._sig = normalize_static(
        fun, static_argnums, static_argnames)
    # Static positions for the fast path (None: negative ones, which take the checked path).
    self._fast_static_pos = (frozenset(self._static_argnums)
                             if all(i >= 0 for i in self._static_argnums) else None)
    self.donate_argnums = donate_argnums
    self._donate_argnums, self._donate_argnames, _ = normalize_static(
        fun, donate_argnums, donate_argnames, "donate", self._sig)
    both = set(self._static_argnames) & set(self._donate_argnames)
    if both:
      raise ValueError("static_argnames and donate_argnames cannot intersect. Argument names "
                       f"{both} appear in both static_argnames and donate_argnames")
    both = set(self._static_argnums) & set(self._donate_argnums)
    if both:
      raise ValueError("static_argnums and donate_argnums cannot intersect. Argument "
                       f"positions {both} appear in both static_argnums and donate_argnums")
    # _fast: a call's key (see fast_walk) -> UncommittedCall or HostCall
    self._host_memo = (None, None, None, None)  # call_on_host's last (token, keys, hit)
    self._cache, self._fast = _shared_cache(fun, (
        self._static_argnums, self._static_argnames, _hashable(donate_argnums),
        _hashable(donate_argnames), id(self) if self._shardings else None, self._placement,
        self._compiler_options, self._keep_unused, host_eval))
    self._name = fun_name(fun) if name is None else name   # (jaxprs show it)
    update_wrapper(self, fun, updated=())
    # The function's own attributes show through, as functools.wraps gives JAX's wrapper
    # (dm-haiku finds a transformed function's original under jit so), but none of ours.
    for key, value in getattr(fun, "__dict__", {}).items():
      if key not in self.__dict__ and not hasattr(type(self), key):
        self.__dict__[key] = value
    if self._sig is not None:  # inspect would take the object for a builtin (it has __get__)
      self.__signature__ = self._sig

  def __get__(self, obj, objtype=None):
    """As a method: bound as a Python method (attributes such as ``lower`` stay the jitted
    function's, taking the instance explicitly, as JAX's)."""
    if obj is None:
      return self
    return types.MethodType(self, obj)

  def __repr__(self) -> str:
    return f"<PjitFunction of {self.fun!r}>"

  # -- signature and tracing ---------------------------------------------------------------
  def _entry(self, args, kwargs, abstract: bool = False):
    if kwargs or self._static_argnums:
      dyn_args, dyn_kwargs, statics, static_kw = split_args(
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
        dyn = split_args(args, kwargs, self._static_argnums, self._static_argnames)
        name = arg_names(self._sig, dyn[0], dyn[1], dyn[2])[len(avals)]
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
              names = arg_names(self._sig, dyn_args, dyn_kwargs, statics)
            avals[i] = valid_leaf_aval(leaf, self.fun, names[i] if i < len(names) else "?",
                                       abstract)
    avals = tuple(avals)
    axis_sizes = _axis_env.sizes   # named axes bound now (vmap, shard_map, axis_env)
    try:
      key = (in_tree, avals, static_key(statics) if statics else (),
             static_key(static_kw) if static_kw else (),
             (config._trace_key, tuple(axis_sizes)) if axis_sizes else config._trace_key)
      entry = self._cache.get(key)
    except TypeError:
      check_statics_hashable(statics, static_kw)
      raise
    if entry is None:
      if self._shardings is not None and self._shardings[0] is not None:
        if dyn_kwargs:
          raise ValueError("jit does not support keyword arguments when in_shardings is "
                           "specified; pass them positionally.")
        _per_arg(self._shardings[0], len(dyn_args))
      debug = make_debug_info(self.fun, arg_names(self._sig, dyn_args, dyn_kwargs, statics))
      retracing.explain(self._cache, key, self._name, fun_source(self.fun), debug.arg_names,
                        _retrace_warned)
      call = rebuild_call(self.fun, len(args), statics, static_kw)
      closed, out_tree = trace_flat(call, in_tree, avals, debug)
      entry = CacheEntry(closed, out_tree, avals, in_tree)
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
      if plain_dispatch[0] and current_trace() is eval_trace and not clients.several_devices:
        # The fast path: uncommitted Arrays and Python scalars on the only device, with a
        # signature seen before.
        key = [config._trace_token]
        leaves: list = []
        if (fast_walk(args, key, leaves) if not kwargs and not self._static_argnums
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
    except NonHashableStaticError as e:
      if self._host_eval:  # (a library function's: compiled_when_eager falls back)
        raise
      raise e.as_value_error() from None  # (a plain ValueError, as JAX's)
    except Exception as e:  # the user sees their frames, not ours (jax_traceback_filtering)
      remove_internal_frames(e)
      raise  # a bare raise does not add this frame back
    return self.fun(*args, **kwargs)

  def call_on_host(self, x, y):
    """``self(x, y)`` for two leaves (Arrays or Python scalars), computed on the host when
    the fast path holds a HostCall for their types and both are host values; else None.
    The Array operators' shortcut: their key is made without walking the arguments."""
    if current_trace() is not eval_trace or not plain_dispatch[0]:
      return None
    token = config._trace_token
    kx = x.aval if type(x) is Array and not x._committed else leaf_key(x)
    ky = y.aval if type(y) is Array and not y._committed else leaf_key(y)
    # The last hit first: results carry canonical avals, so a loop repeating an operation
    # matches it by identity, hashing nothing.
    memo = self._host_memo
    if memo[1] is kx and memo[2] is ky and memo[0] == token:
      hit = memo[3]
    else:
      try:
        hit = self._fast.get((token, kx, ky))
      except TypeError:
        return None
      if type(hit) is not HostCall:
        return None
      self._host_memo = (token, kx, ky, hit)
    return hit.binary(x, y)

  def _fast_call_walk(self, args, kwargs, key: list, leaves: list) -> bool:
    """``fast_walk`` of a call with static or keyword arguments: the key first holds the
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
    return fast_walk(dyn, key, leaves)

  def _call(self, args, kwargs, fast_key: tuple | None = None):
    """The checked path; a call with a ``fast_key`` (its ``fast_walk`` signature) that
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
    if current_trace() is eval_trace and clients.several_devices and not self._placement and (
        self._shardings or spmd.call_mesh(entry.closed, leaves)):
      outs = self._call_spread(entry, leaves, args)
    elif current_trace() is eval_trace:
      if self._placement:
        device, committed = self._target_device(), True
      else:
        def names():
          dyn = split_args(args, kwargs, self._static_argnums, self._static_argnames)
          return arg_names(self._sig, dyn[0], dyn[1], dyn[2])
        device, committed = dispatch.pick_device(leaves, self._name, names)
      named_outs = self._named_out_shardings(entry)
      if named_outs is not None:  # over one device: results report them, typed by them
        committed = [s if s is not None else committed for s in named_outs]
      if (fast_key is not None and not entry.donated and entry.state is None
          and named_outs is None
          and not clients.several_devices and plain_dispatch[0] and not self._placement
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
        dyn = split_args(args, kwargs, self._static_argnums, self._static_argnames)
        raise err.with_names(arg_names(self._sig, dyn[0], dyn[1], dyn[2])) from None
    else:
      params = self._bind_params()
      if entry.donated is not None:  # (per operand: the hoisted constants are not donated)
        params["donated_invars"] = (False,) * len(entry.call_consts) + entry.donated
      if self._keep_unused:
        params["keep_unused"] = True
      outs = jit_p.bind(*entry.call_consts, *leaves, jaxpr=entry.call_jaxpr,
                        name=self._name, **params)
    if entry.state is not None:
      outs = entry.state.write(refs, outs)
    return tree_util.tree_unflatten(entry.out_tree, outs)

  def _named_out_shardings(self, entry) -> list | None:
    """Per result, the NamedSharding of a mesh of one device that ``out_shardings`` gives
    it (a PartitionSpec over the context mesh), or None; None when it gives none."""
    outs = self._shardings[1] if self._shardings else None
    if outs is None or entry.n_ref_outs:
      return None
    mesh = context_mesh()
    flat = [NamedSharding(mesh, s) if isinstance(s, PartitionSpec) and mesh is not None
            else s for s in _broadcast_prefix(outs, tree_util.tree_unflatten(
                entry.out_tree, [0] * len(entry.closed.out_avals)), "out_shardings")]
    flat = [s if isinstance(s, NamedSharding) and isinstance(s.mesh, Mesh) else None
            for s in flat]
    return flat if any(s is not None for s in flat) else None

  def _fast_call(self, entry, leaves, avals, device):
    """What the fast path runs for calls like this one: a HostCall where the function
    can run on host values, else an UncommittedCall."""
    out_tree = None if entry.out_tree == _LEAF_TREE else entry.out_tree
    scalars = tuple((i, a) for i, (x, a) in enumerate(zip(leaves, avals))
                    if type(x) is not Array)
    compiled_call = lambda: UncommittedCall(self._compiled(entry, device), out_tree, scalars)
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
      keep_unused = self._keeps_unused(entry)
      compiled = entry.compiled[device] = CompiledJaxpr(
          entry.closed, device, self._name, entry.donated,
          lowered or entry.lowered.get((self._name, keep_unused)), self._compiler_options,
          keep_unused)
    return compiled

  def _keeps_unused(self, entry) -> bool:
    """Whether ``entry``'s program takes its unused arguments too: with ``keep_unused``,
    and for functions using refs (their arguments are the refs' values)."""
    return self._keep_unused or entry.state is not None

  def _target_device(self):
    """The device jit's ``device=`` or ``backend=`` names (the backend's first)."""
    device, backend = self._placement
    return device if device is not None else clients.backend(backend).local_devices()[0]

  def _bind_params(self) -> dict:
    """The ``jit`` primitive's parameters beyond the body and name: the device and XLA
    options jit was given (compiler options only where the call is not staged into an
    enclosing computation, as in JAX), and ``inline``, always present as in JAX (staged as
    its body's equations where neither placement nor shardings stop it)."""
    params = {}
    mesh = jit_context_mesh()
    if mesh is not None:
      params["ctx_mesh"] = mesh
    if self._placement:
      params["device"] = self._target_device()
    params["inline"] = (not self._placement and self._inline and self._shardings is None)
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
    args = split_args(args, {}, self._static_argnums, ())[0]
    in_flat = [s for a, s in zip(args, _per_arg(ins, len(args)))
               for s in _broadcast_prefix(s, a, "in_shardings")]
    in_flat += [None] * (len(leaves) - len(in_flat))
    for s, x, a in zip(in_flat, leaves, entry.in_avals):
      if s is not None and type(x) is Array and x._committed and not (
          s.is_equivalent_to(x.sharding, len(a.shape))
          or len(s.device_set) == len(x.sharding.device_set) == 1):
        raise ValueError(  # (a committed argument is not moved, but between two devices)
            f"Sharding passed to jit does not match the sharding on the respective arg. Got "
            f"jit sharding: {s},\narg sharding: {x.sharding} for arg type: {a.str_short()}")
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
                          self._compiler_options, entry.donated)

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
    entry, leaves, avals = self._entry(args, kwargs, abstract=True)
    return Traced(self, entry, leaves, args)

  def lower(self, *args, **kwargs) -> "Lowered":
    return self.trace(*args, **kwargs).lower()

  def eval_shape(self, *args, **kwargs):
    entry, _, _ = self._entry(args, kwargs, abstract=True)
    out_avals = entry.closed.out_avals   # (then the final values of refs it writes)
    return tree_util.tree_unflatten(
        entry.out_tree, [ShapeDtypeStruct.of_type(a)
                         for a in out_avals[:len(out_avals) - entry.n_ref_outs]])

  def clear_cache(self) -> None:
    self._cache.clear()
    self._fast.clear()

  def _cache_size(self) -> int:
    return len(self._cache)


@api_boundary
def jit(fun: Callable | None = None, *, static_argnums=None, static_argnames=None,
        donate_argnums=None, donate_argnames=None, keep_unused: bool = False, device=None,
        backend=None, inline: bool = False, in_shardings=None, out_shardings=None,
        compiler_options: dict | None = None):
  """Compiles ``fun`` with XLA; traced once per distinct argument signature.  ``device``
  or ``backend`` (deprecated in JAX) places every call there; ``compiler_options`` are
  XLA options by name (``{"xla_cpu_enable_fast_math": True}``); shardings given as JAX's
  ``UNSPECIFIED`` are left unspecified, as None."""
  in_shardings = None if isinstance(in_shardings, UnspecifiedValue) else in_shardings
  out_shardings = None if isinstance(out_shardings, UnspecifiedValue) else out_shardings
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
                stacklevel=5)   # (caller, api_boundary, jit, __init__)
  if device is not None and backend is not None:
    raise ValueError("can't specify both a device and a backend for jit, "
                     f"got device={device!r} and backend={backend!r}")
  for name, given in (("in_shardings", in_shardings), ("out_shardings", out_shardings)):
    if given is not None:
      raise ValueError("If backend or device is specified on jit, then "
                       f"{name} should not be specified.")
  if device is not None and not isinstance(device, jaxlib_api.Device):
    raise TypeError(f"jit's device must be a Device (such as jax.devices()[0]), got "
                    f"{device!r}; to choose a platform by name, pass backend=.")
  return device, backend
