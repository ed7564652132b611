"""Running programs: eager primitives and compiled jaxprs, with their executable caches.

Eager evaluation of a primitive compiles a one-primitive program through the primitive's
lowering rule and caches it by (primitive, params, input avals, device).  Compiled jaxprs
(jit) are cached by the caller; this module turns values into buffers, picks the device
(computation follows committed data) and wraps results as Arrays.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from xjax._src import dtypes, errors
from xjax._src.array import Array
from xjax._src.config import config
from xjax._src.backend import lowering, runtime
from xjax._src.core.avals import ShapedArray
from xjax._src.core.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Var
from xjax._src.core.trace import Primitive
from xjax._src.core.values import get_aval


# ---------------------------------------------------------------------------------------
# Devices and buffers

def pick_device(args: Sequence[Any]):
  """(device, committed): the committed device of the inputs, else the default device."""
  device = None
  for x in args:
    if type(x) is Array and x._committed:
      d = x.device
      if device is None:
        device = d
      elif d != device:
        raise ValueError(
            "Received incompatible devices for jitted computation. Got argument committed "
            f"to {device} and argument committed to {d}. Move them to one device with "
            "xjax.device_put first.")
  if device is None:
    return runtime.default_device(), False
  return device, True


_SCALAR_BUFFERS: dict = {}


def to_buffer(x, aval: ShapedArray, device):
  """The device buffer for an input value (Arrays are used in place when possible)."""
  if type(x) is Array:
    x._check_alive()
    buf = x._buf
    if runtime.buf_device(buf) != device:
      buf = runtime.copy_to_device(buf, device)
    return buf
  if isinstance(x, (bool, int, float, complex)):
    key = (type(x), repr(x), aval.dtype, device)
    buf = _SCALAR_BUFFERS.get(key)
    if buf is None:
      if len(_SCALAR_BUFFERS) > 4096:
        _SCALAR_BUFFERS.clear()
      buf = _SCALAR_BUFFERS[key] = runtime.put(np.asarray(x, aval.dtype), device)
    return buf
  if isinstance(x, Array):  # subclasses
    return x._buf
  return runtime.put(np.asarray(x, dtype=aval.dtype), device)


# ---------------------------------------------------------------------------------------
# Eager primitives

_primitive_cache: dict = {}


# ---------------------------------------------------------------------------------------
# jax_debug_nans / jax_debug_infs: check every result on the host (slow; for debugging)

_debug = {"nans": config.read("jax_debug_nans"), "infs": config.read("jax_debug_infs")}
config.on_change("jax_debug_nans", lambda v: _debug.__setitem__("nans", bool(v)))
config.on_change("jax_debug_infs", lambda v: _debug.__setitem__("infs", bool(v)))


def check_special_values(name: str, outs) -> None:
  for out in outs:
    if not dtypes.is_inexact(out.dtype):
      continue
    value = np.asarray(out)
    if _debug["nans"] and np.isnan(value).any():
      raise FloatingPointError(f"invalid value (nan) encountered in {name}\n"
                               f"  at {errors.user_frame()}")
    if _debug["infs"] and np.isinf(value).any():
      raise FloatingPointError(f"divide by zero (inf) encountered in {name}\n"
                               f"  at {errors.user_frame()}")


def params_key(params: dict) -> tuple:
  if len(params) < 2:
    return tuple(params.items())
  return tuple(sorted(params.items(), key=lambda kv: kv[0]))


def apply_primitive(prim, *args, **params):
  """Evaluates one primitive now, through a cached one-primitive compiled program."""
  avals = tuple([x.aval if type(x) is Array else get_aval(x) for x in args])
  device, committed = pick_device(args)
  try:
    key = (prim, avals, params_key(params), device)
    entry = _primitive_cache.get(key)
  except TypeError:  # unhashable params: compile without caching
    key, entry = None, None
  if entry is None:
    entry = _compile_primitive(prim, avals, params, device)
    if key is not None:
      _primitive_cache[key] = entry
  exe, out_avals = entry
  if committed or device != runtime.default_device():
    bufs = [to_buffer(x, a, device) for x, a in zip(args, avals)]
  else:  # uncommitted arrays already live on the default device
    bufs = [x._buf if type(x) is Array else to_buffer(x, a, device)
            for x, a in zip(args, avals)]
  try:
    outs = exe.run(bufs)
  except Exception:
    for x in args:  # a deleted input gets the clearer error
      if type(x) is Array:
        x._check_alive()
    raise
  make = Array._from_buffer
  results = [make(b, a, committed) for b, a in zip(outs, out_avals)]
  if _debug["nans"] or _debug["infs"]:
    check_special_values(prim.name, results)
  return results if prim.multiple_results else results[0]


Primitive.impl = apply_primitive  # every primitive's default eager evaluation


def _compile_primitive(prim, avals, params, device):
  out = prim.abstract_eval(*avals, **params)
  out_avals = list(out) if prim.multiple_results else [out]
  invars = [Var(a) for a in avals]
  outvars = [Var(a) for a in out_avals]
  jaxpr = Jaxpr((), invars, outvars, [JaxprEqn(prim, invars, outvars, params)])
  callbacks: list = []
  text = lowering.lower_module(jaxpr, prim.name, callbacks)
  return runtime.compile(text, device, prim.name, out_avals, callbacks), out_avals


# ---------------------------------------------------------------------------------------
# Compiled jaxprs

class CompiledJaxpr:
  """A ClosedJaxpr compiled for one device; consts are passed as leading arguments."""
  __slots__ = ("executable", "out_avals", "const_bufs", "device", "text", "_on_default",
               "name")

  def __init__(self, closed: ClosedJaxpr, device, name: str) -> None:
    self.name = name
    callbacks: list = []
    self.text = lowering.lower_module(closed.jaxpr, name, callbacks)
    self.executable = runtime.compile(self.text, device, name, closed.out_avals, callbacks)
    self.out_avals = closed.out_avals
    self.device = device
    self._on_default = device == runtime.default_device()
    self.const_bufs = [to_buffer(c, v.aval, device)
                       for c, v in zip(closed.consts, closed.jaxpr.constvars)]

  def __call__(self, args: Sequence[Any], avals: Sequence[ShapedArray], committed: bool):
    device = self.device
    bufs = list(self.const_bufs)
    on_default = self._on_default
    for x, a in zip(args, avals):
      # Uncommitted arrays live on the default device: use their buffers as they are.
      if on_default and type(x) is Array and not x._committed:
        bufs.append(x._buf)
      else:
        bufs.append(to_buffer(x, a, device))
    try:
      outs = self.executable.run(bufs)
    except Exception:
      for x in args:  # a deleted (e.g. donated) input gets the clearer error
        if type(x) is Array:
          x._check_alive()
      raise
    make = Array._from_buffer
    results = [make(b, a, committed) for b, a in zip(outs, self.out_avals)]
    if _debug["nans"] or _debug["infs"]:
      check_special_values(self.name, results)
    return results


_jaxpr_cache: dict = {}


def call_primitive(name: str, jaxpr_param: str = "jaxpr") -> Primitive:
  """A primitive that calls the closed jaxpr in its ``jaxpr_param`` parameter on its
  operands: the shape rule, eager evaluation (compiled once per jaxpr) and lowering (a
  private function call) shared by jit, checkpoint and the custom-derivative calls."""
  prim = Primitive(name, multiple_results=True)
  prim.abstract_eval = lambda *avals, **params: params[jaxpr_param].out_avals
  prim.impl = lambda *args, **params: run_closed_jaxpr(
      params[jaxpr_param], args, params.get("name", name))
  prim.lowering = lambda ctx, *args, **params: ctx.call(
      params[jaxpr_param], params.get("name", name), list(args))
  prim.effects = lambda **params: params[jaxpr_param].effects
  return prim


def run_closed_jaxpr(closed: ClosedJaxpr, args: Sequence[Any], name: str = "jaxpr") -> list:
  """Compiles (once per jaxpr, device) and runs a closed jaxpr on concrete values."""
  avals = [get_aval(x) for x in args]
  device, committed = pick_device(args)
  key = (id(closed), device)
  entry = _jaxpr_cache.get(key)
  if entry is None or entry[0]() is not closed:
    import weakref
    entry = (weakref.ref(closed), CompiledJaxpr(closed, device, name))
    _jaxpr_cache[key] = entry
  return entry[1](args, avals, committed)
