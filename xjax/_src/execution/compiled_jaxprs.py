"""Compiled jaxprs: a closed jaxpr lowered (its small constants embedded, unused arguments
left out, donated buffers aliased to outputs), compiled and run, with the executable cache
of jaxprs run eagerly (``run_closed_jaxpr``) and the call primitives built on it; and
``UncommittedCall``, jit's fast-path call of a compiled jaxpr."""
from __future__ import annotations

import weakref
from typing import Any, Sequence

import numpy as np

from xjax._src.core import varying
from xjax._src.foundations import dtypes, tree_util
from xjax._src.core.avals import ShapedArray, canonical
from xjax._src.core.dce import dce_jaxpr
from xjax._src.core.jaxpr import ClosedJaxpr, Jaxpr
from xjax._src.core.jaxpr_cache import WeakLRU
from xjax._src.core.trace import Primitive
from xjax._src.core.values import get_aval
from xjax._src.backend import clients, executables, lowering
from xjax._src.backend.executable_budget import budget
from xjax._src.execution import spmd
from xjax._src.execution.array import Array, from_buffer
from xjax._src.execution.dispatch import (DonatedBufferError, donation_aliases, input_buffers,
                                          pick_device, raise_if_deleted, run_program,
                                          to_buffer)


def _fresh_if_donated(args, avals, donated, positions) -> list:
  """Host values in donated positions get private buffers: the cached buffers of Python
  scalars must outlive the call.  An Array donated and passed again in one call is an error
  naming both ``positions`` (the flattened arguments' indices)."""
  seen = {id(x._buf): i for i, (x, d) in reversed(list(enumerate(zip(args, donated))))
          if d and isinstance(x, Array)}
  for i, (x, d) in enumerate(zip(args, donated)):
    if isinstance(x, Array) and seen.get(id(x._buf), i) != i:
      raise DonatedBufferError(positions[seen[id(x._buf)]], positions[i], d)
    if d and isinstance(x, Array):
      x._keep_only_buffer()
  return [np.asarray(x, a.dtype) if d and not isinstance(x, Array) else x
          for x, a, d in zip(args, avals, donated)]


# Closed-over constants are written into the module, as JAX writes its constants: XLA then
# optimizes with their values known (an all-true mask folds away, a constant's transpose is
# precomputed), and results agree with JAX's to the last bit.  Ones over 1 MiB are passed
# as arguments, so that big arrays are not written out as text and compiled in.
EMBEDDED_CONST_MAX_BYTES = 1 << 20


def embedded_consts(closed: ClosedJaxpr) -> dict:
  """``{constvar index: value}`` of the consts a module holds as constants: NumPy values
  and arrays (not PRNG keys) of at most EMBEDDED_CONST_MAX_BYTES, and values of the types
  libraries register constant handlers for (``mlir.register_constant_handler``)."""
  return {i: c for i, (c, v) in enumerate(zip(closed.consts, closed.jaxpr.constvars))
          if isinstance(c, (np.ndarray, np.generic, Array))
          and not dtypes.is_extended(v.aval.dtype)
          and v.aval.size * np.dtype(v.aval.dtype).itemsize <= EMBEDDED_CONST_MAX_BYTES
          or lowering.user_constant_lowering(c) is not None}


def used_arguments(closed: ClosedJaxpr, donated, keep_unused: bool):
  """``(closed, donated, kept)``: the program of ``closed`` taking only the arguments it
  uses (JAX's ``keep_unused=False``: dead equations dropped first), its donation flags, and
  the positions of the arguments kept (None: all, as with ``keep_unused``)."""
  if keep_unused or not closed.jaxpr.invars:
    return closed, donated, None
  live, used = dce_jaxpr(closed, [True] * len(closed.out_avals))
  if all(used):
    return closed, donated, None
  jaxpr = live.jaxpr
  jaxpr = Jaxpr(jaxpr.constvars, [v for v, u in zip(jaxpr.invars, used) if u], jaxpr.outvars,
                jaxpr.eqns, jaxpr.effects, jaxpr.debug_info)
  kept = tuple(i for i, u in enumerate(used) if u)
  return (ClosedJaxpr(jaxpr, live.consts), donated and tuple(donated[i] for i in kept), kept)


def lower_program(closed: ClosedJaxpr, name: str, donated=None) -> tuple[str, list]:
  """``(module text, host callbacks)`` of ``closed`` as a program of its own: donated
  arguments aliased to outputs, small host constants embedded."""
  callbacks: list = []
  aliases = donated and donation_aliases(closed.in_avals, donated, closed.out_avals)
  text = lowering.lower_module(closed.jaxpr, name, callbacks, aliases,
                               embedded=embedded_consts(closed))
  return text, callbacks


class CompiledJaxpr:
  """A ClosedJaxpr compiled for one device; consts are passed as leading arguments, but
  for small host constants, which the module holds (``embedded_consts``).
  ``donated`` (one flag per argument, or None) marks arguments whose buffers the
  executable may reuse for outputs; the runtime then deletes them.  ``lowered`` (module
  text, host callbacks) is ``closed`` already lowered (by ``Lowered``), compiled as it is.
  ``compiler_options``: (name, value) pairs of XLA options (jit's ``compiler_options``).
  Without ``keep_unused`` the program takes only the arguments it uses (``kept``, their
  positions; calls still pass them all).
  The executable budget may unload it (``unload``); it is then lowered and compiled again
  when next called."""
  __slots__ = ("closed", "executable", "out_avals", "const_bufs", "device", "text", "name",
               "donated", "kept", "compiler_options", "nbytes", "used", "_views",
               "__weakref__")

  def __init__(self, closed: ClosedJaxpr, device, name: str, donated=None,
               lowered: tuple | None = None, compiler_options: tuple = (),
               keep_unused: bool = True) -> None:
    closed, self.donated, self.kept = used_arguments(closed, donated, keep_unused)
    # a copy of the wrapper: ``closed`` keys this program in the caches, which it must not
    # keep alive
    self.closed = ClosedJaxpr(closed.jaxpr, closed.consts)
    self.name = name
    self.compiler_options = compiler_options
    self.out_avals = [canonical(a) for a in closed.out_avals]
    self.device = device
    self._views: list = []  # weak references to the UncommittedCalls running it
    self._load(lowered)

  def _load(self, lowered: tuple | None = None) -> None:
    closed, device = self.closed, self.device
    embedded = embedded_consts(closed)
    self.text, callbacks = lowered or lower_program(closed, self.name, self.donated)
    self.executable = executables.compile(self.text, device, self.name, closed.out_avals,
                                      callbacks, self.compiler_options)
    self.const_bufs = [to_buffer(c, v.aval, device) for i, (c, v) in
                       enumerate(zip(closed.consts, closed.jaxpr.constvars))
                       if i not in embedded]
    self.nbytes = sum(v.aval.size * v.aval.dtype.itemsize for i, v in
                      enumerate(closed.jaxpr.constvars) if i not in embedded)
    self.used = True
    budget.admit(self)

  def loaded(self) -> "CompiledJaxpr":
    """This program, compiled again first if the budget unloaded it."""
    if self.executable is None:
      self._load()
    return self

  def take_used(self) -> bool:
    """Whether it ran since the budget last asked."""
    used = self.used or any(v is not None and v.used for v in (r() for r in self._views))
    self.used = False
    for view in (r() for r in self._views):
      if view is not None:
        view.used = False
    return used

  def unload(self) -> None:
    """Drops the executable and constant buffers (the budget's eviction)."""
    self.executable = self.const_bufs = self.text = None
    for view in (r() for r in self._views):
      if view is not None:
        view.unbind()
    self._views = []

  def attach(self, view) -> None:
    self._views = [r for r in self._views if r() is not None] + [weakref.ref(view)]

  def __call__(self, args: Sequence[Any], avals: Sequence[ShapedArray], committed: bool):
    if self.executable is None:
      self._load()
    self.used = True
    positions = range(len(args)) if self.kept is None else self.kept
    if self.kept is not None:
      args, avals = [args[i] for i in self.kept], [avals[i] for i in self.kept]
    if self.donated:
      args = _fresh_if_donated(args, avals, self.donated, positions)
    bufs = input_buffers(args, avals, self.device, self.const_bufs)
    return run_program(self.executable, bufs, args, self.out_avals, committed, self.name)


class UncommittedCall:
  """jit's cached fast path: ``compiled`` run on uncommitted Arrays and Python scalars on
  the only device, with no donation and no NaN/Inf checking (the caller makes sure of all
  three), every lookup done once.  It is called with the argument leaves, the Python
  scalars in ``scalars``' positions ``(index, aval)``; the results come unflattened with
  ``out_tree`` (None: the single result itself)."""
  __slots__ = ("_compiled", "_execute", "_handlers", "_out_avals", "_const_bufs", "_device",
               "_unflatten", "_scalars", "_plain", "used", "__weakref__")

  def __init__(self, compiled: CompiledJaxpr, out_tree, scalars: tuple = ()) -> None:
    self._compiled = compiled
    self._out_avals = compiled.out_avals
    self._device = compiled.device
    self._unflatten = None if out_tree is None else tree_util.unflattener(out_tree)
    self._scalars = scalars
    self.used = True
    self._bind()

  def _bind(self) -> None:
    compiled = self._compiled.loaded()
    self._const_bufs = compiled.const_bufs
    executable = compiled.executable
    parts = executable.run_parts()
    self._execute, self._handlers = parts or (executable.run, None)
    # The common case, run inline: C++ result handlers, and nothing to put on the device
    # or to pass before the arguments.
    self._plain = (parts is not None and not self._scalars and not self._const_bufs
                   and compiled.kept is None)
    compiled.attach(self)

  def unbind(self) -> None:
    """Forgets the executable the budget unloaded (the next call loads it again)."""
    self._plain = False
    self._execute = self._const_bufs = None

  def __call__(self, leaves: list, *arguments):
    """Runs on the argument leaves (Arrays and Python scalars); ``arguments`` (the call's
    arguments, pytrees) are only read when it fails."""
    self.used = True
    try:
      if self._plain:  # Executable.run, inlined: this is the hot path
        bufs = [b if (b := x._b) is not None else x._buf for x in leaves]  # (no property)
        outs = self._execute(bufs).consume_with_handlers(self._handlers)
      else:
        outs = self._run([x._buf if type(x) is Array else x for x in leaves])
    except Exception:
      raise_if_deleted(tree_util.tree_leaves(arguments))
      raise
    if self._unflatten is None:
      return from_buffer(outs[0], self._out_avals[0])
    return self._unflatten(list(map(from_buffer, outs, self._out_avals)))

  def _run(self, bufs: list) -> list:
    """The result buffers of a call that is not plain: loading the executable again,
    putting Python scalars on the device, leaving out unused arguments, passing the
    constants first."""
    if self._const_bufs is None:  # unloaded by the budget
      self._bind()
    for i, aval in self._scalars:
      bufs[i] = to_buffer(bufs[i], aval, self._device)
    if self._compiled.kept is not None:
      bufs = [bufs[i] for i in self._compiled.kept]
    if self._const_bufs:
      bufs = [*self._const_bufs, *bufs]
    if self._handlers is None:
      return self._execute(bufs)
    return self._execute(bufs).consume_with_handlers(self._handlers)


_compiled_jaxprs = WeakLRU(per_owner=8)  # closed jaxpr -> {device: CompiledJaxpr}
clients.register_backend_cache(_compiled_jaxprs)


def call_primitive(name: str, jaxpr_param: str = "jaxpr", *, impl=None,
                   lowering=None, primitive_class: type = Primitive) -> Primitive:
  """A primitive that calls the closed jaxpr in its ``jaxpr_param`` parameter on its
  operands: the shape rule, eager evaluation (compiled once per jaxpr) and lowering (a
  private function call) shared by jit, checkpoint and the custom-derivative calls;
  ``impl`` and ``lowering``, when given, replace the last two."""
  prim = primitive_class(name, multiple_results=True)
  prim.abstract_eval = lambda *avals, **params: params[jaxpr_param].out_avals
  prim.impl = impl or (lambda *args, **params: run_closed_jaxpr(
      params[jaxpr_param], args, params.get("name", name)))
  prim.lowering = lowering or (lambda ctx, *args, **params: ctx.call(
      params[jaxpr_param], params.get("name", name), list(args)))
  prim.effects = lambda **params: params[jaxpr_param].effects
  prim.vma_rule = varying.from_bodies
  return prim


def run_closed_jaxpr(closed: ClosedJaxpr, args: Sequence[Any], name: str = "jaxpr",
                     device=None, compiler_options: tuple = ()) -> list:
  """Compiles (once per jaxpr, device and XLA options) and runs a closed jaxpr on concrete
  values: on ``device`` when given (its results committed there), else where the inputs
  are (``pick_device``)."""
  if clients.several_devices and device is None:
    mesh = spmd.call_mesh(closed, args)
    if mesh is not None:
      return spmd.run_jaxpr(closed, args, mesh, name, compiler_options=compiler_options)
  avals = [get_aval(x) for x in args]
  if device is None:
    device, committed = pick_device(args)
  else:
    committed = True
  key = (device, compiler_options) if compiler_options else device
  compiled = _compiled_jaxprs.get(closed, key)
  if compiled is None:
    compiled = CompiledJaxpr(closed, device, name, compiler_options=compiler_options)
    _compiled_jaxprs.put(closed, key, compiled)
  return compiled(args, avals, committed)
