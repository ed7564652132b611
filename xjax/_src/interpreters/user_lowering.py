"""Lowering rules written the JAX way (``jax.interpreters.mlir``), bridged into xjax's
StableHLO-text lowering.

A JAX lowering rule is ``rule(ctx, *operands, **params)`` returning one value per result;
``ctx`` carries ``avals_in`` / ``avals_out``.  A rule is first run on the SSA names xjax's
lowering emits, so rules built with ``lower_fun`` (trace a Python function and inline it)
and rules composing other rules or ``ir_constant`` emit text directly.  A rule that builds
operations with the MLIR Python bindings (``hlo.AddOp(x, y)``) fails on names; it is then
run on the arguments of a scratch function built with jaxlib's bindings, and the printed
operations are spliced into the text with their values renamed.
"""
from __future__ import annotations

import re
import threading
from contextlib import contextmanager
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from xjax._src.backend import lowering as lo
from xjax._src.backend import runtime
from xjax._src.config import config
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

  def add_keepalive(self, keepalive) -> None:
    """Objects JAX keeps alive with the compiled module (xjax's host callbacks are kept by
    the module itself)."""


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
    self.bindings = False   # the rule runs on MLIR binding values, not SSA names


_current = _Current()


@contextmanager
def _lowering_with(ctx: LoweringRuleContext, bindings: bool = False):
  prev = _current.ctx, _current.bindings
  _current.ctx, _current.bindings = ctx, bindings
  try:
    yield
  finally:
    _current.ctx, _current.bindings = prev


def in_bindings_rule() -> bool:
  """Whether the running lowering rule works on MLIR binding values."""
  return _current.bindings


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
  rule._on_text = True
  return rule


def _dispatching_lowering(prim: Primitive, rules: dict) -> Callable:
  bindings_rules: set = set()   # rules known to build with the MLIR bindings
  built: dict = {}              # what they built, by rule, operand types and params

  def lowering(ctx: lo.LoweringContext, *operands, **params):
    current = _platform()
    rule = next((r for p, r in rules.items() if p is not None and _matches(p, current)),
                rules.get(None))
    if rule is None:
      raise NotImplementedError(
          f"MLIR translation rule for primitive '{prim.name}' not found for platform "
          f"{current}")
    jctx = LoweringRuleContext(ctx, prim, ctx.avals_in, ctx.avals_out)
    if rule in bindings_rules:
      outs = _lower_with_bindings(prim, rule, jctx, operands, params, built)
    elif getattr(rule, "_on_text", False):
      with _lowering_with(jctx):
        outs = _results(prim, rule(jctx, *operands, **params), len(jctx.avals_out))
    else:
      saved = len(ctx.lines), dict(ctx.memo), ctx.token
      try:
        with _lowering_with(jctx):
          out = rule(jctx, *operands, **params)
      except Exception:  # not a rule on SSA names: run it with the bindings
        del ctx.lines[saved[0]:]
        ctx.memo, ctx.token = saved[1], saved[2]
        outs = _lower_with_bindings(prim, rule, jctx, operands, params, built)
        bindings_rules.add(rule)
      else:
        outs = _results(prim, out, len(jctx.avals_out))
    return outs if prim.multiple_results else outs[0]
  return lowering


def _results(prim: Primitive, out, n: int) -> list[str]:
  if isinstance(out, str):
    out = [out]
  outs = [o[0] if isinstance(o, (list, tuple)) and len(o) == 1 else o for o in out]
  if not all(isinstance(o, str) for o in outs):
    raise TypeError(f"the lowering rule of '{prim.name}' returned values that are not "
                    "xjax SSA names")
  _check_count(prim, len(outs), n)
  return outs


def _check_count(prim: Primitive, got: int, n: int) -> None:
  if got != n:
    raise ValueError(f"The lowering rule of primitive '{prim.name}' returned {got} "
                     f"values; its abstract evaluation gives {n} results")


_SSA = re.compile(r"%[A-Za-z0-9_$.\-]+")


class _Body(NamedTuple):
  """Operations emitted once, to splice with their values renamed: their lines, the names
  standing for the operands, and the names of the results."""
  lines: list
  args: list
  returned: list


def _splice(ctx: lo.LoweringContext, body: _Body, operands: Sequence[str],
            avals_out: Sequence[ShapedArray]) -> list[str]:
  prefix = ctx.fresh().replace("%", "%b")
  names = dict(zip(body.args, operands))

  def rename(m):
    name = m.group(0)
    if name not in names:
      names[name] = f"{prefix}_{len(names)}"
    return names[name]

  for line in body.lines:
    ctx.lines.append(ctx.indent + _SSA.sub(rename, line))
  outs = [_SSA.sub(rename, r) for r in body.returned]
  for o, aval in zip(outs, avals_out):
    ctx.declare(o, aval)
  return outs


def _lower_with_bindings(prim: Primitive, rule: Callable, jctx: LoweringRuleContext,
                         operands: Sequence[str], params: dict, built: dict) -> list[str]:
  """Runs ``rule`` with jaxlib's MLIR bindings and splices the operations it built (once
  per rule, operand types and params)."""
  ctx = jctx.ctx
  arg_types = tuple(lo.tensor_type(ctx.aval_of(o)) for o in operands)

  def build():
    def run(args):
      with _lowering_with(jctx, bindings=True):
        return rule(jctx, *args, **params)
    lines, returned = _function_body(runtime.build_with_bindings(arg_types, run))
    return _Body(lines, [f"%arg{i}" for i in range(len(operands))], returned)

  body = cached(built, (rule, arg_types, tuple(jctx.avals_out), _params_key(params)), build)
  _check_count(prim, len(body.returned), len(jctx.avals_out))
  return _splice(ctx, body, operands, jctx.avals_out)


def _function_body(text: str) -> tuple[list[str], list[str]]:
  """The operation lines of a one-block function printed in generic form (indented from
  its block) and the values it returns."""
  lines = text.split("\n")
  entry = next(i for i, l in enumerate(lines) if l.lstrip().startswith("^bb0"))
  ret = max(i for i, l in enumerate(lines) if l.lstrip().startswith('"func.return"'))
  returned = lines[ret][lines[ret].index("(") + 1:lines[ret].index(")")]
  return ([l[2:] for l in lines[entry + 1:ret]],
          [r.strip() for r in returned.split(",") if r.strip()])


_CACHE_SIZE = 256


def cached(cache: dict, key, make: Callable):
  """``cache[key]``, made by ``make()`` when missing; ``make()`` itself when the key is
  unhashable (params holding arrays).  The cache is emptied when full."""
  try:
    hit = cache.get(key)
  except TypeError:
    return make()
  if hit is None:
    if len(cache) >= _CACHE_SIZE:
      cache.clear()
    hit = cache[key] = make()
  return hit


def _params_key(params: dict) -> tuple:
  return tuple(sorted(params.items())), config.trace_state_key()


# ---------------------------------------------------------------------------------------
# Rules from Python functions

def lower_fun(fun: Callable, multiple_results: bool = True) -> Callable:
  """A lowering rule that traces ``fun(*operands, **params)`` at the operands' avals and
  inlines it; ``fun`` returns a sequence when ``multiple_results``.  What it emits is kept
  per avals and params, and spliced with its values renamed."""
  emitted: dict = {}

  def rule(ctx, *operands, **params):
    xctx = ctx.ctx if isinstance(ctx, LoweringRuleContext) else ctx
    avals, avals_out = tuple(ctx.avals_in), list(ctx.avals_out)
    key = (avals, _params_key(params))
    try:
      body = emitted.get(key)
    except TypeError:  # unhashable params
      key, body = None, None
    if body is None:
      one = (lambda *xs: [fun(*xs, **params)]) if not multiple_results else (
          lambda *xs: list(fun(*xs, **params)))
      closed = trace_physical(one, avals)
      if closed.effects:  # inline, so the effects take this region's token
        return xctx.lower_jaxpr(closed.jaxpr, closed.consts, list(operands))
      body, reusable = _emit(xctx, closed)
      if reusable and key is not None:
        cached(emitted, key, lambda: body)
    return _splice(xctx, body, operands, avals_out)
  rule._on_text = True   # runs on SSA names only
  return rule


def _emit(ctx: lo.LoweringContext, closed) -> tuple[_Body, bool]:
  """``closed``'s operations emitted apart; whether they can be spliced into any module
  (they call no function of this one and run no host callback)."""
  module = ctx.module
  n_functions, n_callbacks = len(module.functions), len(module.host_callbacks)
  sub = ctx.scratch()
  # Unique names: a rule emitted inside another's body must not retype the outer's arguments.
  args = [sub.fresh().replace("%", "%parg") for _ in closed.in_avals]
  for a, aval in zip(args, closed.in_avals):
    sub.declare(a, aval)
  returned = sub.lower_jaxpr(closed.jaxpr, closed.consts, args)
  reusable = (len(module.functions) == n_functions
              and len(module.host_callbacks) == n_callbacks)
  return _Body(sub.lines, args, returned), reusable


def trace_physical(fn: Callable, avals_in: Sequence[ShapedArray]):
  """``fn`` (returning a list) traced at ``avals_in``; operands of extended dtype (PRNG
  keys) reach ``fn`` as the arrays that store them."""
  return trace_to_jaxpr(fn, [physical_aval(a) for a in avals_in])


def inline_traced(ctx: lo.LoweringContext, fn: Callable, avals_in: Sequence[ShapedArray],
                  operands: Sequence[str]) -> list[str]:
  """Emits ``fn`` (returning a list) traced at ``avals_in`` inline; its results' names."""
  closed = trace_physical(fn, avals_in)
  return ctx.lower_jaxpr(closed.jaxpr, closed.consts, list(operands))


# ---------------------------------------------------------------------------------------
# Types and constants

def aval_to_ir_type(aval: ShapedArray):
  """The StableHLO type of ``aval``: type text (``tensor<3xf32>``), or an ``ir.Type`` while
  a rule runs with the MLIR bindings."""
  text = lo.tensor_type(aval)
  return runtime.mlir_bindings("ir").Type.parse(text) if _current.bindings else text


def aval_to_ir_types(aval: ShapedArray) -> tuple:
  return (aval_to_ir_type(aval),)


def ir_constant(val: Any):
  """A constant in the module being lowered (inside a lowering rule)."""
  ctx = current_context("ir_constant")
  value = np.asarray(val)
  aval = get_aval(value)
  if _current.bindings:
    ir = runtime.mlir_bindings("ir")
    hlo = runtime.mlir_bindings("dialects.stablehlo")
    return hlo.ConstantOp(ir.Attribute.parse(lo.dense_attr(value, aval))).result
  return ctx.ctx.constant(value, aval)


def ir_constants(val: Any) -> list:
  return [ir_constant(val)]
