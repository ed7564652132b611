"""The types of the ahead-of-time stages (``jax.stages``): what ``jit`` returns, and the
description of one argument of a lowered or compiled computation, and the stages of a jitted
function (``Traced``, ``Lowered``, ``Compiled``)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Union, runtime_checkable

from xjax._src.core.avals import ShapedArray
from xjax._src.core.values import get_aval
from xjax._src.foundations import tree_util
from xjax._src.foundations.layout import Format, Layout
from xjax._src.foundations.sharding import SingleDeviceSharding
from xjax._src.backend import clients, mlir_modules
from xjax._src.execution import compiled_jaxprs, dispatch, spmd
from xjax._src.api.call_tracing import flatten_call, unflatten_call
from xjax._src.api.shape_dtype_struct import ShapeDtypeStruct

# Options passed to the compiler by name.
CompilerOptions = dict[str, Union[str, bool]]


@runtime_checkable
class Wrapped(Protocol):
  """A function that can be called, traced and lowered, such as the result of ``jit``."""

  def __call__(self, *args, **kwargs):
    """Runs the function, tracing and compiling it as needed."""

  def trace(self, *args, **kwargs):
    """The function traced for these arguments (a ``Traced``)."""

  def lower(self, *args, **kwargs):
    """The function lowered for these arguments (a ``Lowered``)."""


@dataclass(frozen=True, slots=True)
class ArgInfo:
  """One argument of a lowered computation: its abstract value and whether it is donated."""
  _aval: ShapedArray
  donated: bool

  @property
  def shape(self):
    return self._aval.shape

  @property
  def dtype(self):
    return self._aval.dtype


class _Signature:
  """What each stage (Traced, Lowered, Compiled) tells of its call signature: the dynamic
  arguments as ``(args, kwargs)`` and the outputs, as trees (JAX's stage attributes)."""
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

  def __init__(self, jitted, entry, leaves=(), args=()) -> None:
    self._jitted = jitted
    self._entry = entry
    self._leaves, self._args = leaves, args

  @property
  def jaxpr(self):
    """The traced ClosedJaxpr (a function using refs: its jaxpr on the refs, as traced; it
    runs discharged)."""
    entry = self._entry
    return entry.closed if entry.state is None else entry.state.traced

  @property
  def fun_name(self) -> str:
    return self._jitted._name

  @property
  def out_avals(self):
    return self._out(list(self._out_avals))

  def lower(self) -> "Lowered":
    return Lowered(self._jitted, self._entry, self._leaves, self._args)


class Lowered(_Signature):
  """The StableHLO of a jitted function for given argument types."""

  def __init__(self, jitted, entry, leaves=(), args=()) -> None:
    self._jitted = jitted
    self._entry = entry
    closed = entry.closed
    spread = (clients.several_devices and not jitted._placement
              and jitted._spread_layouts(entry, leaves, args))
    self._lowered = None  # (text, host callbacks) of a one-device module, which compile reuses
    self._spread = None   # (leaves, mesh, in shardings, out shardings) of an SPMD program
    if spread and spread[0] is not None:
      self._text = spmd.lower(closed, *spread, jitted._name)
      self._spread = (leaves, *spread)
    else:
      self._lowered = entry.lowered_program(jitted._name, jitted._keeps_unused(entry))
      self._text = self._lowered[0]

  def as_text(self, dialect: str | None = None, debug_info: bool = False) -> str:
    return self._text

  def cost_analysis(self) -> dict:
    """XLA's cost estimates of the module before optimization (``Compiled.cost_analysis``
    has them after)."""
    return mlir_modules.hlo_cost_analysis(self._text, clients.default_device())

  def compiler_ir(self, dialect: str | None = None):
    """The module as jaxlib's MLIR ``ir.Module`` (``dialect='stablehlo'``, the default) or
    as XLA's HLO computation (``dialect='hlo'``, printed by ``as_hlo_text()``)."""
    from xjax._src.backend import mlir_modules
    if dialect in (None, "stablehlo"):
      return mlir_modules.mlir_module(self._text)
    if dialect == "hlo":
      return mlir_modules.hlo_computation(self._text)
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
          entry.closed, leaves, mesh, jitted._name, ins, outs, options, entry.donated)))
    device = (jitted._target_device() if jitted._placement
              else jitted._sharded_device() or clients.default_device())
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
    return Compiled(jitted, entry, compiled_jaxprs.CompiledJaxpr(
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
