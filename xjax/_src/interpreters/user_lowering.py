"""Lowering rules written the JAX way (``jax.interpreters.mlir``), bridged into xjax's
StableHLO-text lowering.

A JAX lowering rule is ``rule(ctx, *operands, **params)`` returning one value per result;
``ctx`` carries ``avals_in`` / ``avals_out``.  Here operands and results are the SSA names
xjax's lowering emits, so rules built with ``lower_fun`` (trace a Python function and
inline it), and rules that compose other rules or ``ir_constant``, work as they do in JAX.
Rules that build operations with the MLIR Python bindings cannot: xjax never builds an
in-memory MLIR module; such a rule raises NotImplementedError naming ``lower_fun``.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Any, Callable, Sequence

import numpy as np

from xjax._src.backend import lowering as lo
from xjax._src.backend import runtime
from xjax._src.core.avals import ShapedArray, physical_aval
from xjax._src.core.trace import Primitive
from xjax._src.core.values import get_aval
from xjax._src.interpreters.staging import trace_to_jaxpr


class ModuleContext:
  """What JAX rules read off ``ctx.module_context``: the platforms lowered for."""

  def __init__(self, platforms: tuple[str, ...]) -> None:
    self.platforms = platforms

  @property
  def platform(self) -> str:
    return self.platforms[0]


class LoweringRuleContext:
  """The context a JAX-style lowering rule receives (JAX's ``mlir.LoweringRuleContext``)."""

  def __init__(self, ctx: lo.LoweringContext, primitive: Primitive | None,
               avals_in: Sequence[ShapedArray], avals_out: Sequence[ShapedArray]) -> None:
    self.ctx = ctx
    self.primitive = primitive
    self.avals_in = list(avals_in)
    self.avals_out = list(avals_out)
    self.module_context = ModuleContext((_platform(),))
    self.tokens_in = self.tokens_out = None
    self.axis_size_env = None
    self.dim_var_values: list = []
    self.jaxpr_eqn_ctx = None
    self.platforms = None

  def replace(self, **changes) -> "LoweringRuleContext":
    new = LoweringRuleContext(self.ctx, self.primitive, self.avals_in, self.avals_out)
    new.__dict__.update(changes)
    return new

  def set_tokens_out(self, tokens_out) -> None:
    self.tokens_out = tokens_out


def _platform() -> str:
  return runtime.backend().platform


_PLATFORM_NAMES = {"gpu": ("cuda", "rocm")}


def _matches(platform: str, current: str) -> bool:
  return platform == current or current in _PLATFORM_NAMES.get(platform, ())


class _Current(threading.local):
  def __init__(self) -> None:
    self.ctx: LoweringRuleContext | None = None


_current = _Current()


@contextmanager
def _lowering_with(ctx: LoweringRuleContext):
  prev, _current.ctx = _current.ctx, ctx
  try:
    yield
  finally:
    _current.ctx = prev


def current_context(what: str) -> LoweringRuleContext:
  ctx = _current.ctx
  if ctx is None:
    raise RuntimeError(f"mlir.{what} emits into the module being lowered; call it from a "
                       "lowering rule registered with mlir.register_lowering")
  return ctx


# ---------------------------------------------------------------------------------------
# Registering rules

def register_lowering(prim: Primitive, rule: Callable, platform: str | None = None) -> None:
  """Makes ``rule`` (JAX's signature) ``prim``'s lowering, for every platform or only for
  ``platform`` ('cpu', 'cuda', 'rocm', 'gpu', 'tpu')."""
  if not isinstance(prim, Primitive):
    raise TypeError(f"register_lowering expects a Primitive, got {prim!r}")
  rules = getattr(prim.lowering, "_platform_rules", None)
  if rules is None:
    rules = {}
    default = prim.lowering
    if default is not None:
      rules[None] = _adopted(default)
    prim.lowering = _dispatching_lowering(prim, rules)
    prim.lowering._platform_rules = rules
  rules[platform] = rule


def _adopted(xjax_rule: Callable) -> Callable:
  """xjax's own lowering rule in JAX's signature (a list of results)."""
  def rule(ctx, *operands, **params):
    out = xjax_rule(ctx.ctx, *operands, **params)
    return out if isinstance(out, list) else [out]
  return rule


def _dispatching_lowering(prim: Primitive, rules: dict) -> Callable:
  def lowering(ctx: lo.LoweringContext, *operands, **params):
    current = _platform()
    rule = next((r for p, r in rules.items() if p is not None and _matches(p, current)),
                rules.get(None))
    if rule is None:
      raise NotImplementedError(
          f"MLIR translation rule for primitive '{prim.name}' not found for platform "
          f"{current}")
    jctx = LoweringRuleContext(ctx, prim, ctx.avals_in, ctx.avals_out)
    with _lowering_with(jctx):
      try:
        out = rule(jctx, *operands, **params)
      except (TypeError, AttributeError) as e:
        if getattr(rule, "_xjax_lower_fun", False):
          raise
        raise _bindings_error(prim) from e
    outs = _results(prim, out, len(jctx.avals_out))
    return outs if prim.multiple_results else outs[0]
  return lowering


def _results(prim: Primitive, out, n: int) -> list[str]:
  if isinstance(out, str):
    out = [out]
  try:
    outs = list(out)
  except TypeError:
    raise _bindings_error(prim) from None
  outs = [o[0] if isinstance(o, (list, tuple)) and len(o) == 1 else o for o in outs]
  if not all(isinstance(o, str) for o in outs):
    raise _bindings_error(prim)
  if len(outs) != n:
    raise ValueError(f"The lowering rule of primitive '{prim.name}' returned {len(outs)} "
                     f"values; its abstract evaluation gives {n} results")
  return outs


def _bindings_error(prim: Primitive) -> NotImplementedError:
  return NotImplementedError(
      f"The lowering rule registered for primitive '{prim.name}' builds MLIR operations "
      "with the MLIR Python bindings (e.g. hlo.AddOp), which xjax does not support: xjax "
      "lowers to StableHLO text. Register mlir.lower_fun(impl, multiple_results=...) "
      "instead, with impl written with xjax.lax / xjax.numpy; see docs/differences.md.")


# ---------------------------------------------------------------------------------------
# Rules from Python functions

def lower_fun(fun: Callable, multiple_results: bool = True) -> Callable:
  """A lowering rule that traces ``fun(*operands, **params)`` at the operands' avals and
  inlines it; ``fun`` returns a sequence when ``multiple_results``."""
  def rule(ctx, *operands, **params):
    xctx = ctx.ctx if isinstance(ctx, LoweringRuleContext) else ctx
    one = (lambda *xs: [fun(*xs, **params)]) if not multiple_results else (
        lambda *xs: list(fun(*xs, **params)))
    return inline_traced(xctx, one, ctx.avals_in, operands)
  rule._xjax_lower_fun = True
  return rule


def inline_traced(ctx: lo.LoweringContext, fn: Callable, avals_in: Sequence[ShapedArray],
                  operands: Sequence[str]) -> list[str]:
  """Emits ``fn`` (returning a list) traced at ``avals_in`` inline; its results' names.
  Operands of extended dtype (PRNG keys) reach ``fn`` as the arrays that store them."""
  closed = trace_to_jaxpr(fn, [physical_aval(a) for a in avals_in])
  return ctx.lower_jaxpr(closed.jaxpr, closed.consts, list(operands))


# ---------------------------------------------------------------------------------------
# Types and constants

def aval_to_ir_type(aval: ShapedArray) -> str:
  """The StableHLO type of ``aval`` (xjax's types are text, e.g. ``tensor<3xf32>``)."""
  return lo.tensor_type(aval)


def aval_to_ir_types(aval: ShapedArray) -> tuple[str, ...]:
  return (aval_to_ir_type(aval),)


def ir_constant(val: Any) -> str:
  """A constant in the module being lowered (inside a lowering rule)."""
  ctx = current_context("ir_constant")
  value = np.asarray(val)
  return ctx.ctx.constant(value, get_aval(value))


def ir_constants(val: Any) -> list[str]:
  return [ir_constant(val)]
