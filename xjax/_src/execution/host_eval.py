"""Host evaluation: small eager computations run with NumPy, bit for bit as XLA:CPU runs them.

A PJRT executable call costs microseconds before any arithmetic, so on small arrays an eager
operation is mostly dispatch. Where the only device is a CPU, a small uncommitted Array can
hold its value on the host (``Array._host``, see ``array.py``), and the primitives whose
results NumPy computes exactly as XLA:CPU does have a host rule: ``prim.host_kernel(avals,
out_avals, **params)`` returns a function of NumPy arrays for those types, or None where
NumPy would differ (a transcendental function, a reduction whose order XLA chooses, a cast
that saturates in XLA). A primitive applied to host values, or a jitted function of host
values whose every equation has a kernel, then runs here; anything else runs compiled as
before, the host values put on the device first.

What XLA:CPU does that NumPy does not, found by testing (``tests/execution/
test_host_eval.py`` sweeps every kernel against the compiled primitive):
- it flushes subnormal floats to zero, in the inputs of arithmetic and in its results: host
  values hold no subnormals (``usable`` refuses them), and kernels whose results can be
  subnormal pass them through ``flush_subnormals``;
- it raises no floating-point warnings: kernels that can meet overflow, division by zero or
  invalid operations run under ``quiet``.
"""
from __future__ import annotations

import numpy as np

from xjax._src.backend import runtime
from xjax._src.foundations import tree_util
from xjax._src.foundations.config import config
from xjax._src.core.avals import ShapedArray
from xjax._src.core.jaxpr import Literal
from xjax._src.execution.array import Array, from_host

# Arrays of at most this many elements are kept on the host; larger ones go to the device,
# where XLA's threads and fusion pay for the dispatch.
HOST_MAX_SIZE = 4096
# Equations in a jitted function that still runs op by op on the host: beyond, one compiled
# call costs less than an interpreted loop.
HOST_MAX_EQNS = 8

# Host values are floats of these dtypes, integers and booleans. (Half-precision floats and
# complex numbers round or flush differently; they stay on the device.)
_TINY = {np.dtype(np.float32): float(np.finfo(np.float32).tiny),
         np.dtype(np.float64): float(np.finfo(np.float64).tiny)}
HOST_DTYPES = frozenset([*_TINY, *map(np.dtype, (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
    np.uint64))])

_state: dict = {}  # "on": whether the default device is the process's only one, a CPU
runtime.register_backend_cache(_state)
config.on_change("jax_default_device", lambda _: _state.clear())


def enabled() -> bool:
  """Whether values may live on the host: the only device is a CPU."""
  if runtime.several_devices:
    return False
  on = _state.get("on")
  if on is None:
    on = _state["on"] = runtime.default_device().platform == "cpu"
  return on


def has_subnormals(value: np.ndarray) -> bool:
  """Whether a float array holds a nonzero value smaller in magnitude than its dtype's
  smallest normal number."""
  tiny = _TINY[value.dtype]
  if value.size <= 24:  # a Python loop is quicker than NumPy's reductions on a few values
    for v in value.ravel().tolist():
      if -tiny < v < tiny and v:
        return True
    return False
  magnitude = np.abs(value)
  return bool(((magnitude < tiny) & (magnitude > 0)).any())


def flush_subnormals(value: np.ndarray) -> np.ndarray:
  """``value`` with its subnormal floats replaced by zeros of their sign, as XLA:CPU's
  arithmetic leaves them."""
  if not has_subnormals(value):
    return value
  magnitude = np.abs(value)
  return np.where((magnitude < _TINY[value.dtype]) & (magnitude > 0),
                  np.copysign(np.zeros((), value.dtype), value), value)


try:  # NumPy 2's floating-point error state, set without np.errstate's Python overhead
  from numpy._core._ufunc_config import _extobj_contextvar as _errstate
  with np.errstate(all="ignore"):
    _IGNORE = _errstate.get()
except ImportError:  # pragma: no cover - other NumPy layouts
  _errstate = None


def quiet(fun):
  """``fun`` run without NumPy's floating-point warnings (XLA raises none)."""
  def run(*args):
    if _errstate is None:
      with np.errstate(all="ignore"):
        return fun(*args)
    token = _errstate.set(_IGNORE)
    try:
      return fun(*args)
    finally:
      _errstate.reset(token)
  return run


def ufunc_kernel(ufunc, kinds: str, flush: bool = False):
  """A host rule computing a NumPy ufunc on operands whose dtype kinds (NumPy's: "f", "i",
  "u", "b") are in ``kinds``: on floats without warnings, and with ``flush`` (the results
  of IEEE arithmetic, which can be subnormal) through ``flush_subnormals``. Primitives with
  parameters set (an ``accuracy``) are left to XLA."""
  def rule(avals, out_avals, **params):
    if any(a.dtype.kind not in kinds for a in avals) or any(
        v is not None for v in params.values()):
      return None
    if not any(a.dtype.kind == "f" for a in avals):
      return ufunc
    if flush and out_avals[0].dtype.kind == "f":
      return quiet(lambda *xs: flush_subnormals(ufunc(*xs)))
    return quiet(ufunc)
  return rule


def usable(value: np.ndarray) -> bool:
  """Whether a host array can be a host value: small, of a host dtype, and without the
  subnormal floats XLA:CPU would read as zeros."""
  return (value.dtype in HOST_DTYPES and value.size <= HOST_MAX_SIZE
          and (value.dtype not in _TINY or not has_subnormals(value)))


def make(value: np.ndarray, aval: ShapedArray) -> Array:
  """A host Array of a kernel's result ``value`` (made contiguous and read-only here)."""
  if type(value) is not np.ndarray:  # NumPy gives scalars for 0-d results
    value = np.asarray(value)
  elif not value.flags.c_contiguous:  # a view (a transpose, a broadcast)
    value = np.ascontiguousarray(value)
  value.flags.writeable = False
  return from_host(value, aval)


_SCALARS = (bool, int, float)


def host_value(x, aval: ShapedArray):
  """The host value of an operand -- a host Array's value, or a Python scalar as an array
  of its ``aval`` -- or None where it has none (a device Array, a subnormal scalar)."""
  if type(x) is Array:
    return x._host
  if type(x) in _SCALARS:
    if aval.dtype not in HOST_DTYPES:
      return None
    value = np.asarray(x, aval.dtype)
    tiny = _TINY.get(aval.dtype)
    if tiny is not None and -tiny < x < tiny and x:
      return None
    return value
  return None


def types_fit(avals) -> bool:
  """Whether values of ``avals`` can be host values (dtype and size)."""
  return all(a.dtype in HOST_DTYPES and a.size <= HOST_MAX_SIZE and a._sharding is None
             for a in avals)


def kernel_for(prim, avals, out_avals, params):
  """``prim``'s host kernel for these types, or None."""
  rule = prim.host_kernel
  if rule is None or not types_fit(avals) or not types_fit(out_avals):
    return None
  return rule(avals, out_avals, **params)


class HostProgram:
  """A closed jaxpr run equation by equation with its primitives' host kernels:
  ``run(values)`` gives the list of its results."""
  __slots__ = ("_steps", "_known", "_in", "_out", "out_avals", "run")

  def __init__(self, steps, known: dict, invars, outvars, out_avals) -> None:
    self._steps, self._known = steps, known
    self._in, self._out, self.out_avals = invars, outvars, out_avals
    self.run = self._interpret
    if len(steps) == 1 and not known:  # one equation taking the inputs in order
      kernel, ins, outs, multiple = steps[0]
      if ins == invars and outs == outvars:
        self.run = ((lambda values: kernel(*values)) if multiple
                    else (lambda values: [kernel(*values)]))

  @staticmethod
  def build(closed) -> "HostProgram | None":
    """The host program of ``closed``, or None when an equation has no kernel, a value
    does not fit on the host, or it has more than HOST_MAX_EQNS equations."""
    jaxpr = closed.jaxpr
    if len(jaxpr.eqns) > HOST_MAX_EQNS or jaxpr.effects or not types_fit(
        [v.aval for v in jaxpr.invars]):
      return None
    known: dict = {}  # constants' and literals' values
    for c, v in zip(closed.consts, jaxpr.constvars):
      value = _constant(c, v.aval)
      if value is None:
        return None
      known[v] = value
    steps = []
    for eqn in jaxpr.eqns:
      for v in eqn.invars:
        if type(v) is Literal and _constant(v.val, v.aval) is None:
          return None
      kernel = kernel_for(eqn.primitive, [v.aval for v in eqn.invars],
                          [v.aval for v in eqn.outvars], eqn.params)
      if kernel is None:
        return None
      steps.append((kernel, [_key(v, known) for v in eqn.invars], eqn.outvars,
                    eqn.primitive.multiple_results))
    outs = [_key(v, known) for v in jaxpr.outvars]
    if any(type(v) is Literal and _constant(v.val, v.aval) is None for v in jaxpr.outvars):
      return None
    return HostProgram(steps, known, jaxpr.invars, outs, closed.out_avals)

  def _interpret(self, values: list) -> list:
    env = dict(self._known)
    env.update(zip(self._in, values))
    for kernel, ins, outs, multiple in self._steps:
      result = kernel(*[env[v] for v in ins])
      if multiple:
        env.update(zip(outs, result))
      else:
        env[outs[0]] = result
    return [env[v] for v in self._out]


def _constant(c, aval: ShapedArray):
  """The host value of a constant or literal, or None where it cannot be one."""
  if type(c) is Array:
    return c._host
  if isinstance(c, (np.ndarray, np.generic, *_SCALARS)):
    value = np.asarray(c, aval.dtype)
    if usable(value):
      value.flags.writeable = False
      return value
  return None


def _key(v, known: dict):
  """The environment key of an operand: a variable itself; a literal, a fresh key under
  which ``known`` holds its value."""
  if type(v) is not Literal:
    return v
  key = object()
  known[key] = _constant(v.val, v.aval)
  return key


class HostCall:
  """jit's fast path for a function whose equations all have host kernels (a HostProgram):
  run on the host when every argument is a host value, else by the compiled call that
  ``compiled_call()`` makes (once, when first needed). Called as ``UncommittedCall`` is:
  with the argument leaves (read when a call fails) and the call's arguments; the results
  come unflattened with ``out_tree`` (None: the single result itself)."""
  __slots__ = ("_run", "_out_avals", "_avals", "_compiled_call", "_compiled", "_unflatten")

  def __init__(self, program: HostProgram, avals, compiled_call, out_tree) -> None:
    self._run, self._out_avals, self._avals = program.run, program.out_avals, avals
    self._compiled_call, self._compiled = compiled_call, None
    self._unflatten = None if out_tree is None else tree_util.unflattener(out_tree)

  def __call__(self, leaves: list, *arguments):
    values = []
    for x, aval in zip(leaves, self._avals):
      value = x._host if type(x) is Array else host_value(x, aval)
      if value is None:
        return self._on_device(leaves, arguments)
      values.append(value)
    if not enabled():
      return self._on_device(leaves, arguments)
    outs = self._run(values)
    if self._unflatten is None:
      return make(outs[0], self._out_avals[0])
    return self._unflatten([make(v, a) for v, a in zip(outs, self._out_avals)])

  def _on_device(self, leaves, arguments):
    if self._compiled is None:
      self._compiled = self._compiled_call()
    return self._compiled(leaves, *arguments)
