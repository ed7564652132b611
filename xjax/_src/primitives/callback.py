"""Host callbacks: Python code run from compiled (or transformed) programs.

Three primitives, each with its five rules:

- ``pure_callback``: a side-effect-free function of its inputs; XLA may drop or duplicate it.
- ``io_callback``: effectful (never dropped); ``ordered=True`` runs in program order.
- ``debug_callback``: effectful, no outputs (``xjax.debug.callback`` / ``print``); it
  survives differentiation (the primal values reach the callback) and vmap (one call per
  batch element).

Under jit a callback lowers to a custom call to the runtime's host-callback target whose
``backend_config`` indexes the module's list of Python callables (``Module.add_host_callback``);
effectful ones take and return the region's token so they keep program order.  Eagerly,
the callable runs at once.  Callables receive xjax Arrays, as JAX's do.
"""
from __future__ import annotations

import logging
import traceback
from typing import Any, Callable, Sequence

import numpy as np

from xjax._src.foundations import dtypes, tree_util
from xjax._src.foundations.sharding import SingleDeviceSharding
from xjax._src.execution.array import Array, make_array
from xjax._src.backend import buffers, clients, executables, jaxlib_api
from xjax._src.backend.lowering import TOKEN, tensor_type
from xjax._src.core.avals import ShapedArray
from xjax._src.core import effects as fx
from xjax._src.core.trace import Primitive
from xjax._src.interpreters import batching
from xjax._src.primitives.lax.control_flow.loops import scan
from xjax._src.primitives.lax.shapes import broadcast, index_in_dim

logger = logging.getLogger(__name__)

_VMAP_METHODS = ("sequential", "sequential_unrolled", "expand_dims", "broadcast_all",
                 "legacy_vectorized", None)


class FlatCallback:
  """The user's function behind flat array arguments: rebuilds the argument tree, and
  flattens what it returns."""
  __slots__ = ("fn", "in_tree", "__weakref__")

  def __init__(self, fn: Callable, in_tree) -> None:
    self.fn = fn
    self.in_tree = in_tree

  def __call__(self, *dynamic):
    args, kwargs = tree_util.tree_unflatten(self.in_tree, dynamic)
    return self.fn(*args, **kwargs)

  def __repr__(self) -> str:  # (as JAX's jaxprs show a callback)
    return f"_FlatCallback(callback_func={self.fn!r}, in_tree={self.in_tree})"


def flatten_arguments(fn: Callable, args: tuple, kwargs: dict):
  """(FlatCallback, the argument leaves)."""
  leaves, in_tree = tree_util.tree_flatten((args, kwargs))
  return FlatCallback(fn, in_tree), leaves


def _is_array_like(x) -> bool:
  from xjax._src.core.values import is_valid_value
  return is_valid_value(x)


# ---------------------------------------------------------------------------------------
# Calling the user's function on host values

def _to_arrays(values: Sequence[np.ndarray]) -> list:
  device = clients.default_device()
  return [Array._from_buffer(buffers.put(v, device), ShapedArray(v.shape, v.dtype))
          for v in values]


def _check_results(out, result_avals: Sequence[ShapedArray]) -> tuple:
  """The callback's results as host arrays of the declared shapes and dtypes."""
  leaves = tree_util.tree_leaves(out)
  if len(leaves) != len(result_avals):
    raise RuntimeError("Mismatched number of outputs from callback. "
                       f"Expected: {len(result_avals)}, Actual: {len(leaves)}")
  values = []
  for i, (x, aval) in enumerate(zip(leaves, result_avals)):
    v = np.asarray(x)
    v = v.astype(dtypes.canonicalize_dtype(v.dtype), copy=False)
    if v.shape != aval.shape:
      raise RuntimeError(f"Incorrect output shape for return value #{i}: "
                         f"Expected: {aval.shape}, Actual: {v.shape}")
    if v.dtype != aval.dtype:
      raise RuntimeError(f"Incorrect output dtype for return value #{i}: "
                         f"Expected: {aval.dtype}, Actual: {v.dtype}")
    values.append(v if v.flags.c_contiguous else v.copy())
  return tuple(values)


def _host_function(callback: Callable, result_avals, takes_token: bool) -> Callable:
  """What the runtime calls: NumPy arrays in, a tuple of NumPy arrays out."""
  def host(*values):
    out = _check_results(callback(*_to_arrays(values)), result_avals)
    return out
  if not takes_token:
    return host
  return lambda token, *values: (token, *host(*values))


def _run_eagerly(callback: Callable, args: Sequence[Any], result_avals) -> list:
  """The ``impl`` of every callback primitive: call now; failures surface as JAX's
  JaxRuntimeError with the callback's exception as the cause."""
  values = [np.asarray(x) for x in args]
  try:
    out = _check_results(callback(*_to_arrays(values)), result_avals)
  except Exception as e:
    raise jaxlib_api.XlaRuntimeError(
        "INTERNAL: CpuCallback error calling callback: "
        + "".join(traceback.format_exception(e))) from e
  return _to_arrays(out)


# ---------------------------------------------------------------------------------------
# Lowering

def _op_sharding(module, sharding) -> str | None:
  """Where a callback runs in a program over several devices, as JAX places it: on every
  device inside a fully manual (shard_map) region, else once, on the device ``sharding``
  names (a SingleDeviceSharding) or the first of the program's devices."""
  if sharding is not None and not isinstance(sharding, SingleDeviceSharding):
    raise NotImplementedError(
        f"pure_callback only supports SingleDeviceSharding, but got {type(sharding)}")
  if not module.logical:
    return None
  if module.manual:
    if set(module.manual_axes[-1]) != set(module.manual[-1].axis_names):
      raise NotImplementedError(
          "callbacks are only supported in spmd computations when all mesh axes are "
          "partitioned manually (no partial automatic sharding).")
    if sharding is not None:
      raise NotImplementedError(
          "callbacks do not support specifying sharding inside spmd computations")
    return "{manual}"
  index = 0
  if sharding is not None:
    device = next(iter(sharding.device_set))
    if device not in module.logical:
      raise ValueError(f"Couldn't find the device {device} of the callback's sharding in "
                       f"the devices the computation runs on: {list(module.logical)}")
    index = module.logical[device]
  return f"{{maximal device={index}}}"


def emit_callback(ctx, callback: Callable, operands: Sequence[str], result_avals,
                  effectful: bool, sharding=None) -> list[str]:
  """A custom call running ``callback`` on the host; effectful ones are ordered by the
  region's token and marked side-effecting so XLA keeps them.  In a program over several
  devices it runs where ``_op_sharding`` says."""
  host = _host_function(callback, result_avals, takes_token=effectful)
  index = ctx.module.add_host_callback(host)
  in_types = [tensor_type(a) for a in ctx.avals_in]
  out_types = [tensor_type(a) for a in result_avals]
  operands = list(operands)
  if effectful:
    operands.insert(0, ctx.effect_token())
    in_types.insert(0, "!stablehlo.token")
    out_types.insert(0, "!stablehlo.token")
  n = len(out_types)
  res = ctx.fresh() if n else None
  lhs = f"{res}:{n} = " if n > 1 else (f"{res} = " if n else "")
  side = "true" if effectful else "false"
  placed = _op_sharding(ctx.module, sharding)
  placed = "" if placed is None else f', mhlo.sharding = "{placed}"'
  ctx.lines.append(
      f'{ctx.indent}{lhs}"stablehlo.custom_call"({", ".join(operands)}) '
      f'{{call_target_name = "{executables.HOST_CALLBACK_TARGET}", api_version = 4 : i32, '
      f'has_side_effect = {side}, backend_config = {{index = {index} : ui64}}{placed}}} : '
      f'({", ".join(in_types)}) -> ({", ".join(out_types)})')
  names = [f"{res}#{i}" for i in range(n)] if n > 1 else ([res] if n else [])
  if effectful:
    ctx.token, names = names[0], names[1:]
    ctx.declare(ctx.token, TOKEN)
  for name, aval in zip(names, result_avals):
    ctx.declare(name, aval)
  return names


# ---------------------------------------------------------------------------------------
# pure_callback

def _pure_abstract_eval(*avals, callback, result_avals, sharding, vmap_method):
  return list(result_avals)


def _pure_lowering(ctx, *args, callback, result_avals, sharding, vmap_method):
  return emit_callback(ctx, callback, args, result_avals, effectful=False, sharding=sharding)


def _pure_jvp(primals, tangents, **params):
  raise ValueError("Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use "
                   "callbacks while taking gradients.")


def _pure_transpose(cts, *args, **params):
  raise ValueError("Pure callbacks do not support transpose. Please use `jax.custom_vjp` "
                   "to use callbacks while taking gradients.")


def _pure_batch(axis, args, dims, *, callback, result_avals, sharding, vmap_method):
  size = axis.size
  args = [x if d is None else batching.moveaxis(x, d, 0) for x, d in zip(args, dims)]
  batched_avals = tuple(ShapedArray((size, *a.shape), a.dtype) for a in result_avals)
  params = dict(callback=callback, sharding=sharding, vmap_method=vmap_method)
  if vmap_method == "legacy_vectorized":
    outs = pure_callback_p.bind(*args, result_avals=batched_avals, **params)
  elif vmap_method in ("expand_dims", "broadcast_all"):
    n = size if vmap_method == "broadcast_all" else 1
    args = [broadcast(x, (n,)) if d is None else x for x, d in zip(args, dims)]
    outs = pure_callback_p.bind(*args, result_avals=batched_avals, **params)
  elif vmap_method in ("sequential", "sequential_unrolled"):
    outs = _sequential(lambda *xs: pure_callback_p.bind(*xs, result_avals=result_avals,
                                                        **params), args, dims,
                       unroll=vmap_method == "sequential_unrolled")
  else:
    raise NotImplementedError(
        "vmap is only supported for the pure_callback primitive when vmap_method is one of "
        "'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', or "
        f"'legacy_vectorized'. Got vmap_method={vmap_method!r}. Pass vmap_method= to "
        "xjax.pure_callback to say how the callback handles a batch dimension.")
  return list(outs), [0] * len(outs)


def _sequential(bind: Callable, args, dims, unroll: bool = False):
  """One call per batch element, in a loop (``lax.scan`` over the batched arguments)."""
  batched = [x for x, d in zip(args, dims) if d is not None]

  def body(carry, xs):
    it = iter(xs)
    return carry, list(bind(*[next(it) if d is not None else x
                              for x, d in zip(args, dims)]))
  _, outs = scan(body, (), batched, unroll=bool(unroll))
  return outs


pure_callback_p = Primitive("pure_callback", multiple_results=True)
pure_callback_p.abstract_eval = _pure_abstract_eval
pure_callback_p.lowering = _pure_lowering
pure_callback_p.impl = lambda *args, callback, result_avals, sharding, vmap_method: (
    _run_eagerly(callback, args, result_avals) if result_avals else [])  # (dead: not called)
pure_callback_p.jvp = _pure_jvp
pure_callback_p.transpose = _pure_transpose
pure_callback_p.batch = _pure_batch


def _result_avals(result_shape_dtypes):
  def aval(x):
    if not hasattr(x, "shape") or not hasattr(x, "dtype"):
      raise ValueError("result_shape_dtypes must be a pytree of objects with shape and "
                       f"dtype attributes (e.g. xjax.ShapeDtypeStruct); got {x!r}")
    dt = np.dtype(x.dtype)
    if dtypes.canonicalize_dtype(dt) != dt:
      raise ValueError("result_shape_dtypes cannot specify 64-bit types when "
                       "`jax_enable_x64` is disabled")
    return ShapedArray(tuple(x.shape), dt)
  leaves, tree = tree_util.tree_flatten(result_shape_dtypes)
  return tuple(aval(x) for x in leaves), tree


def pure_callback(callback: Callable, result_shape_dtypes: Any, *args: Any,
                  sharding=None, vmap_method: str | None = None, **kwargs: Any):
  """Calls the pure Python function ``callback`` on the host from transformed code.

  ``result_shape_dtypes`` (a pytree of ``ShapeDtypeStruct``) declares what it returns;
  ``sharding`` (a SingleDeviceSharding) names the device it runs from in a program over
  several devices (the first by default). Under vmap, ``vmap_method`` says how: ``"sequential"`` (a loop), ``"expand_dims"``
  (unbatched inputs get a size-1 axis), ``"broadcast_all"`` (all inputs get the batch
  axis) or ``"legacy_vectorized"`` (the callback handles a leading batch axis).
  """
  if vmap_method not in _VMAP_METHODS:
    raise ValueError(f"vmap_method must be on of the allowed methods {list(_VMAP_METHODS)}, "
                     f"but got: {vmap_method}")
  flat, dynamic = flatten_arguments(callback, args, kwargs)
  result_avals, out_tree = _result_avals(result_shape_dtypes)
  outs = pure_callback_p.bind(*dynamic, callback=flat, result_avals=result_avals,
                              sharding=sharding, vmap_method=vmap_method)
  return tree_util.tree_unflatten(out_tree, outs)


# ---------------------------------------------------------------------------------------
# io_callback

def _io_lowering(ctx, *args, callback, result_avals, sharding, ordered):
  return emit_callback(ctx, callback, args, result_avals, effectful=True, sharding=sharding)


def _io_jvp(primals, tangents, **params):
  raise ValueError("IO callbacks do not support JVP.")


def _io_transpose(cts, *args, **params):
  raise ValueError("IO callbacks do not support transpose.")


def _io_batch(axis, args, dims, *, callback, result_avals, sharding, ordered):
  if ordered:
    raise ValueError("Cannot `vmap` ordered IO callback.")
  args = [x if d is None else batching.moveaxis(x, d, 0) for x, d in zip(args, dims)]
  outs = _sequential(lambda *xs: io_callback_p.bind(
      *xs, callback=callback, result_avals=result_avals, sharding=sharding, ordered=False),
      args, [None if d is None else 0 for d in dims])
  return list(outs), [0] * len(outs)


io_callback_p = Primitive("io_callback", multiple_results=True)
io_callback_p.abstract_eval = lambda *avals, result_avals, **_: list(result_avals)
io_callback_p.lowering = _io_lowering
io_callback_p.impl = lambda *args, callback, result_avals, sharding, ordered: _run_eagerly(
    callback, args, result_avals)
io_callback_p.effects = lambda ordered, **_: (fx.ordered_io_effect,) if ordered else (
    fx.io_effect,)
io_callback_p.jvp = _io_jvp
io_callback_p.transpose = _io_transpose
io_callback_p.batch = _io_batch


def io_callback(callback: Callable, result_shape_dtypes: Any, *args: Any, sharding=None,
                ordered: bool = False, **kwargs: Any):
  """Calls the (possibly impure) Python function ``callback`` on the host.  It is never
  removed as dead code; with ``ordered=True`` calls run in program order (and cannot be
  vmapped); ``sharding`` is as for ``pure_callback``."""
  flat, dynamic = flatten_arguments(callback, args, kwargs)
  result_avals, out_tree = _result_avals(result_shape_dtypes)
  outs = io_callback_p.bind(*dynamic, callback=flat, result_avals=result_avals,
                            sharding=sharding, ordered=bool(ordered))
  return tree_util.tree_unflatten(out_tree, outs)


# ---------------------------------------------------------------------------------------
# debug_callback (and debugging.py's debug_print): host calls made for their side effect

def _debug_impl(callback, args):
  """Eagerly the callback gets Arrays as they are (typed keys too) and other values as
  Arrays (Python scalars weakly typed), as in JAX; its own exception propagates (logged
  first)."""
  try:
    callback(*[x if isinstance(x, Array) else make_array(x) for x in args])
  except BaseException:
    logger.exception("jax.debug.callback failed")
    raise
  return []


def debug_primitive(name: str, host_callback: Callable, effect: Callable) -> Primitive:
  """A primitive that calls the host for a side effect and returns nothing:
  ``host_callback(params)`` is the function it calls on the operands' values,
  ``effect(params)`` its effect.  Derivatives pass through it (it sees the primal values);
  ``vmap`` calls it once per batch element, in order, as JAX's unrolled rule."""
  prim = Primitive(name, multiple_results=True)
  prim.abstract_eval = lambda *avals, **params: []
  prim.effects = lambda **params: (effect(params),)
  prim.impl = lambda *args, **params: _debug_impl(host_callback(params), args)
  prim.lowering = lambda ctx, *args, **params: emit_callback(
      ctx, host_callback(params), args, (), effectful=True)
  prim.jvp = lambda primals, tangents, **params: (prim.bind(*primals, **params), [])
  prim.transpose = lambda cts, *args, **params: [None] * len(args)

  def batch(axis, args, dims, **params):
    for i in range(axis.size):
      prim.bind(*[x if d is None else index_in_dim(x, i, d, keepdims=False)
                  for x, d in zip(args, dims)], **params)
    return [], []
  prim.batch = batch
  return prim


debug_callback_p = debug_primitive("debug_callback", lambda params: params["callback"],
                                   lambda params: params["effect"])
# (the callback shown as the function it is, ``<function ... at 0xXXXXXXXXXXXX>``, as JAX)
debug_callback_p.pp_params = lambda params: sorted(
    (k, str(v) if k == "callback" else v) for k, v in params.items())


def split_callback_args(args: tuple, kwargs: dict):
  """(tree of ``(args, kwargs)``, array leaves, {position: other leaf}): the leaves that
  are no arrays (strings, None, objects) stay Python values, given back as they are."""
  leaves, in_tree = tree_util.tree_flatten((args, kwargs))
  static, dynamic = {}, []
  for i, leaf in enumerate(leaves):
    if _is_array_like(leaf):
      dynamic.append(leaf)
    else:
      static[i] = leaf
  return in_tree, dynamic, static


def merge_callback_args(in_tree, dynamic: Sequence, static: dict):
  """``(args, kwargs)`` again from ``split_callback_args``' pieces."""
  values = iter(dynamic)
  leaves = [static[i] if i in static else next(values)
            for i in range(len(static) + len(dynamic))]
  return tree_util.tree_unflatten(in_tree, leaves)


def debug_callback(callback: Callable | None = None, *args: Any, ordered: bool = False,
                   partitioned: bool = False, **kwargs: Any):
  """Calls ``callback(*args, **kwargs)`` on the host for its side effect (``jax.debug.callback``).
  Array arguments arrive as Arrays with the runtime values; other leaves as they are.
  Without ``callback`` it returns the function taking the callback and its arguments, so
  options come first: ``debug.callback(ordered=True)(fn, x)``."""
  def _debug_callback(callback: Callable, *c_args: Any, **c_kwargs: Any) -> None:
    if not callable(callback):
      raise TypeError("first argument to jax.debug.callback must be callable, but got an "
                      f"object of type {type(callback)}")
    in_tree, dynamic, static = split_callback_args(c_args, c_kwargs)

    def _flat_callback(*values):
      call_args, call_kwargs = merge_callback_args(in_tree, values, static)
      callback(*call_args, **call_kwargs)
      return ()
    debug_callback_p.bind(*dynamic, callback=_flat_callback,
                          effect=fx.ordered_debug_effect if ordered else fx.debug_effect,
                          partitioned=bool(partitioned))

  if callback is not None:
    return _debug_callback(callback, *args, **kwargs)
  if args or kwargs:
    raise TypeError("debug_callback received unexpected arguments in the two-call form: "
                    f"args={args} kwargs={kwargs}")
  return _debug_callback
