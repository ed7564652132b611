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
from typing import Any, Callable, Sequence

import numpy as np

from xjax._src.backend import lowering as lo
from xjax._src.backend import clients, mlir_modules
from xjax._src.core.avals import ShapedArray
from xjax._src.core.trace import Primitive
from xjax._src.core.values import get_aval
from xjax._src.extend.ir_modules import make_ir_context
from xjax._src.extend.lowering_records import (LoweringParameters,
                                               ShapePolyLoweringState, ShardingContext,
                                               TokenSet)
from xjax._src.primitives.traced_lowering import (Body, cached, check_count, params_key, splice,
                                                   traced_emitter)


class ModuleContext:
  """What JAX rules read off ``ctx.module_context``: the platforms lowered for, and the
  ``ir.Module`` built in (in a rule run with the MLIR bindings, the scratch module it builds
  in; otherwise the ``module`` given, or a new one in a new context)."""

  def __init__(self, platforms: Sequence[str] | None = None, *, backend=None,
               axis_context=None, keepalives: list | None = None,
               host_callbacks: list | None = None, lowering_parameters=None,
               context=None, module=None, ip=None, symbol_table=None,
               shape_poly_state=None, **_) -> None:
    self.platforms = tuple(platforms) if platforms else (_platform(),)
    self.backend = backend
    self.axis_context = axis_context or _ONE_DEVICE
    self.keepalives = [] if keepalives is None else keepalives
    self.host_callbacks = [] if host_callbacks is None else host_callbacks
    self.lowering_parameters = lowering_parameters or _DEFAULT_PARAMETERS
    self._shape_poly_state = shape_poly_state
    self._context, self._module, self._ip, self._symtab = context, module, ip, symbol_table

  @property
  def shape_poly_state(self) -> ShapePolyLoweringState:
    if self._shape_poly_state is None:
      self._shape_poly_state = ShapePolyLoweringState((), self.platforms)
    return self._shape_poly_state

  @property
  def platform(self) -> str:
    return self.platforms[0]

  def get_backend(self, optional: bool = False):
    return self.backend or clients.backend()

  def add_keepalive(self, keepalive) -> None:
    """Objects JAX keeps alive with the compiled module (xjax's host callbacks are kept by
    the module itself)."""
    self.keepalives.append(keepalive)

  def add_host_callback(self, host_callback) -> None:
    self.host_callbacks.append(host_callback)

  @property
  def module(self):
    if self._module is None:
      if _current.bindings:
        return _current.scratch
      if _current.ctx is not None:   # a rule on text: it is run again with the bindings
        raise RuntimeError("ModuleContext.module exists while a rule runs with the MLIR "
                           "bindings")
      self._module = mlir_modules.mlir_bindings("ir").Module.create(
          mlir_modules.mlir_bindings("ir").Location.unknown(self.context))
    return self._module

  @property
  def context(self):
    if self._context is None:
      if self._module is not None:
        return self._module.context
      ir = mlir_modules.mlir_bindings("ir")
      if _current.bindings:
        return ir.Context.current
      self._context = make_ir_context()
    return self._context

  @property
  def ip(self):
    return self._ip or mlir_modules.mlir_bindings("ir").InsertionPoint(self.module.body)

  @property
  def symbol_table(self):
    return self._symtab or mlir_modules.mlir_bindings("ir").SymbolTable(self.module.operation)


class LoweringRuleContext:
  """The context a JAX-style lowering rule receives (JAX's ``mlir.LoweringRuleContext``)."""

  def __init__(self, ctx: lo.LoweringContext, primitive: Primitive | None,
               avals_in: Sequence[ShapedArray], avals_out: Sequence[ShapedArray]) -> None:
    self.ctx = ctx
    self.primitive = primitive
    self.avals_in = list(avals_in)
    self.avals_out = list(avals_out)
    self.module_context = ModuleContext((_platform(),))
    self.tokens_in = _NO_TOKENS
    self.tokens_out = None
    self.name_stack = None
    self.const_lowering: dict = {}
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


_NO_TOKENS = TokenSet()
_ONE_DEVICE = ShardingContext(1)
_DEFAULT_PARAMETERS = LoweringParameters()


def _platform() -> str:
  return clients.backend().platform


_PLATFORM_NAMES = {"gpu": ("cuda", "rocm")}


def _matches(platform: str, current: str) -> bool:
  return platform == current or current in _PLATFORM_NAMES.get(platform, ())


class _Current(threading.local):
  def __init__(self) -> None:
    self.ctx: LoweringRuleContext | None = None
    self.bindings = False   # the rule runs on MLIR binding values, not SSA names
    self.scratch = None     # then: the scratch module it builds in
    # What a bindings rule emitted refers to functions or host callbacks of the module
    # being lowered (so it cannot be reused in another module).
    self.module_specific = False
    self.own_functions: set = set()   # functions of the scratch module xjax named


_current = _Current()


@contextmanager
def _lowering_with(ctx: LoweringRuleContext, bindings: bool = False):
  prev = _current.ctx, _current.bindings
  _current.ctx, _current.bindings = ctx, bindings
  try:
    yield
  finally:
    _current.ctx, _current.bindings = prev


def mark_module_specific() -> None:
  """What the running bindings rule builds refers to this module's functions or callbacks."""
  _current.module_specific = True


def own_function(name: str) -> None:
  """The scratch module's function ``name`` is already named in the module being lowered."""
  _current.own_functions.add(name)


def in_rule() -> bool:
  """Whether a lowering rule runs (on SSA names or with the MLIR bindings)."""
  return _current.ctx is not None


def in_text_rule() -> bool:
  """Whether a lowering rule runs on SSA names."""
  return _current.ctx is not None and not _current.bindings


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
    outs = _apply(f"primitive '{prim.name}'", rule, jctx, operands, params, bindings_rules,
                  built)
    return outs if prim.multiple_results else outs[0]
  return lowering


def _apply(what: str, rule: Callable, jctx: LoweringRuleContext, operands, params: dict,
           bindings_rules: set, built: dict | None) -> list[str]:
  """Runs ``rule`` on SSA names, or with the MLIR bindings when it is known to need them or
  fails on names; its results' names."""
  ctx = jctx.ctx
  if rule in bindings_rules:
    return _lower_with_bindings(what, rule, jctx, operands, params, built)
  if getattr(rule, "_on_text", False):
    with _lowering_with(jctx):
      return _results(what, rule(jctx, *operands, **params), len(jctx.avals_out))
  saved = len(ctx.lines), dict(ctx.memo), ctx.token
  try:
    with _lowering_with(jctx):
      out = rule(jctx, *operands, **params)
  except Exception:  # not a rule on SSA names: run it with the bindings
    del ctx.lines[saved[0]:]
    ctx.memo, ctx.token = saved[1], saved[2]
    outs = _lower_with_bindings(what, rule, jctx, operands, params, built)
    bindings_rules.add(rule)
    return outs
  return _results(what, out, len(jctx.avals_out))


def _results(what: str, out, n: int) -> list[str]:
  if isinstance(out, str):
    out = [out]
  outs = [o[0] if isinstance(o, (list, tuple)) and len(o) == 1 else o for o in out]
  if not all(isinstance(o, str) for o in outs):
    raise TypeError(f"the lowering rule of {what} returned values that are not xjax SSA "
                    "names")
  check_count(what, len(outs), n)
  return outs


def _lower_with_bindings(what: str, rule: Callable, jctx: LoweringRuleContext,
                         operands: Sequence[str], params: dict, built: dict | None
                         ) -> list[str]:
  """Runs ``rule`` with jaxlib's MLIR bindings and splices the operations it built (kept in
  ``built`` per rule, operand types and params, unless they belong to this module)."""
  ctx = jctx.ctx
  arg_types = tuple(lo.tensor_type(ctx.aval_of(o)) for o in operands)
  key = (rule, arg_types, tuple(jctx.avals_out), params_key(params))
  try:
    body = built.get(key) if built is not None else None
  except TypeError:  # unhashable params
    body, built = None, None
  if body is None:
    body, reusable = _build_with_bindings(rule, jctx, params, arg_types)
    if reusable and built is not None:
      cached(built, key, lambda: body)
  check_count(what, len(body.returned), len(jctx.avals_out))
  return splice(ctx, body, operands, jctx.avals_out)


def _build_with_bindings(rule: Callable, jctx: LoweringRuleContext, params: dict,
                         arg_types: tuple) -> tuple[Body, bool]:
  """What ``rule`` builds with the bindings; whether it can be spliced into any module.
  Functions it adds to the scratch module join the module being lowered."""
  saved = _current.scratch, _current.module_specific, _current.own_functions

  def run(args):
    ir = mlir_modules.mlir_bindings("ir")
    rule_fn = ir.InsertionPoint.current.block.owner.operation
    _current.scratch = rule_fn.parent.opview
    _current.module_specific, _current.own_functions = False, set()
    with _lowering_with(jctx, bindings=True):
      out = rule(jctx, *args, **params)
    _adopt_functions(ir, jctx.ctx.module, _current.scratch, rule_fn)
    return out

  try:
    body = _function_body(mlir_modules.build_with_bindings(arg_types, run))
    reusable = not _current.module_specific
  finally:
    _current.scratch, _current.module_specific, _current.own_functions = saved
  return body, reusable


def _adopt_functions(ir, module: lo.Module, scratch, rule_fn) -> None:
  """Moves the functions a rule added to its scratch module into ``module`` (renamed when
  their names are taken there)."""
  for op in scratch.body.operations:
    if op == rule_fn:
      continue
    name = ir.StringAttr(op.attributes["sym_name"]).value
    if name not in _current.own_functions:
      new = module.unique_name(name)
      if new != name:
        ir.SymbolTable.replace_all_symbol_uses(name, new, scratch.operation)
        ir.SymbolTable.set_symbol_name(op, new)
    ir.SymbolTable.set_visibility(op, "private")
    module.functions.append(op.get_asm(print_generic_op_form=True))
    _current.module_specific = True


def _function_body(text: str) -> Body:
  """The operation lines of a one-block function printed in generic form (indented from
  its block), the names of its arguments and the values it returns."""
  lines = text.split("\n")
  # the entry block's label line (none when it has no arguments), or the function's first
  entry = next((i for i, l in enumerate(lines) if l.lstrip().startswith("^bb0")), 0)
  args = re.findall(r"(%[\w$.\-]+):", lines[entry]) if entry else []
  ret = max(i for i, l in enumerate(lines) if l.lstrip().startswith('"func.return"'))
  returned = lines[ret][lines[ret].index("(") + 1:lines[ret].index(")")]
  return Body([l[2:] for l in lines[entry + 1:ret]], args,
               [r.strip() for r in returned.split(",") if r.strip()])


# ---------------------------------------------------------------------------------------
# Rules from Python functions

def lower_fun(fun: Callable, multiple_results: bool = True) -> Callable:
  """A lowering rule that traces ``fun(*operands, **params)`` at the operands' avals and
  inlines it; ``fun`` returns a sequence when ``multiple_results``.  What it emits is kept
  per avals and params, and spliced with its values renamed."""
  emit = traced_emitter(fun, multiple_results)

  def rule(ctx, *operands, **params):
    xctx = ctx.ctx if isinstance(ctx, LoweringRuleContext) else ctx
    return emit(xctx, tuple(ctx.avals_in), list(ctx.avals_out), operands, params)
  rule._on_text = True   # runs on SSA names only
  return rule


# ---------------------------------------------------------------------------------------
# Types and constants

def _array_ir_type(aval: ShapedArray):
  return mlir_modules.mlir_bindings("ir").Type.parse(lo.tensor_type(aval))


# The IR type of each kind of abstract value (an ``ir.Type``), as JAX's table.
ir_type_handlers: dict = {ShapedArray: _array_ir_type}


def aval_to_ir_type(*ctx_and_aval):
  """The StableHLO type of an aval (``aval_to_ir_type(aval)``, or JAX's newer
  ``aval_to_ir_type(module_context, aval)``): type text (``tensor<3xf32>``), or an
  ``ir.Type`` while a rule runs with the MLIR bindings or an MLIR context is entered."""
  aval = ctx_and_aval[-1]
  handler = next((h for t in type(aval).__mro__ if (h := ir_type_handlers.get(t))), None)
  if handler is _array_ir_type:
    text = lo.tensor_type(aval)
    return text if _on_text() else mlir_modules.mlir_bindings("ir").Type.parse(text)
  if handler is None:
    raise TypeError(f"No ir_type_handler for aval type: {type(aval)}")
  if _on_text():
    with mlir_modules.mlir_context():
      return str(handler(aval))
  return handler(aval)


def aval_to_ir_types(*ctx_and_aval) -> tuple:
  return (aval_to_ir_type(*ctx_and_aval),)


def _on_text() -> bool:
  """Whether IR is written as xjax's text now: in a lowering rule run on SSA names, or
  outside lowering rules while no MLIR context is entered."""
  if _current.bindings:
    return False
  return _current.ctx is not None or mlir_modules.mlir_bindings("ir").Context.current is None


_constant_handlers: dict = {}


def register_constant_handler(type_: type, handler_fun: Callable) -> None:
  """Has constants of ``type_`` lower as ``handler_fun(value, aval)`` builds them (with
  ``ir_constant``, or with the MLIR bindings): in jitted functions that close over such a
  value, and in ``ir_constant``."""
  _constant_handlers[type_] = handler_fun
  lo.user_constants[type_] = _lower_user_constant


def _handler_for(value) -> Callable | None:
  return next((h for t in type(value).__mro__ if (h := _constant_handlers.get(t))), None)


def _lower_user_constant(ctx: lo.LoweringContext, value, aval: ShapedArray) -> str:
  handler = _handler_for(value)
  jctx = LoweringRuleContext(ctx, None, [], [aval])
  rule = lambda _: [handler(value, aval)]
  return _apply(f"the constant handler of {type(value).__name__}", rule, jctx, [], {},
                set(), None)[0]


def ir_constant(val: Any, *, const_lowering=None, aval: ShapedArray | None = None):
  """A constant in the module being lowered (inside a lowering rule); ``aval`` gives the
  dtype of a Python scalar."""
  ctx = current_context("ir_constant")
  handler = _handler_for(val)
  if handler is not None:
    if not _current.bindings:
      return ctx.ctx.constant(val, aval or get_aval(val))
    out = handler(val, aval)
    if isinstance(out, (tuple, list)):
      raise ValueError(f"Expected a constant to produce a single ir.Value, got {out}")
    return out
  value = np.asarray(val, aval.dtype) if aval is not None else np.asarray(val)
  aval = get_aval(value)
  if _current.bindings:
    ir = mlir_modules.mlir_bindings("ir")
    hlo = mlir_modules.mlir_bindings("dialects.stablehlo")
    return hlo.ConstantOp(ir.Attribute.parse(lo.dense_attr(value, aval))).result
  return ctx.ctx.constant(value, aval)


def ir_constants(val: Any, *, const_lowering=None, aval: ShapedArray | None = None) -> list:
  return [ir_constant(val, aval=aval)]


def token_type():
  """The type of effect tokens (``!stablehlo.token``)."""
  if _on_text():
    return "!stablehlo.token"
  return mlir_modules.mlir_bindings("dialects.stablehlo").TokenType.get()


def create_token():
  """A new effect token in the module being lowered."""
  if _on_text():
    return current_context("create_token").ctx.op("stablehlo.after_all", [], [lo.TOKEN])[0]
  return mlir_modules.mlir_bindings("dialects.stablehlo").create_token()


def shape_tensor(ctx, sizes: Sequence) -> Any:
  """A 1-D i32 tensor of ``sizes`` (ints, or scalar integer values)."""
  i32, vec = ShapedArray((), np.int32), ShapedArray((1,), np.int32)
  if not any(not isinstance(d, (int, np.integer)) for d in sizes):
    return ir_constant(np.array(sizes, np.int32))
  parts = []
  if _current.bindings:
    hlo = mlir_modules.mlir_bindings("dialects.stablehlo")
    for d in sizes:
      if isinstance(d, (int, np.integer)):
        parts.append(ir_constant(np.array([d], np.int32)))
        continue
      if str(d.type) != "tensor<i32>":
        d = hlo.convert(aval_to_ir_type(i32), d)
      parts.append(hlo.reshape(aval_to_ir_type(vec), d))
    return hlo.concatenate(parts, mlir_modules.mlir_bindings("ir").IntegerAttr.get(
        mlir_modules.mlir_bindings("ir").IntegerType.get_signless(64), 0))
  xctx = current_context("shape_tensor").ctx
  for d in sizes:
    if isinstance(d, (int, np.integer)):
      parts.append(xctx.constant(np.array([d], np.int32), vec))
      continue
    if xctx.aval_of(d).dtype != np.int32:
      d = xctx.op("stablehlo.convert", [d], i32)
    parts.append(xctx.op("stablehlo.reshape", [d], vec))
  return xctx.op("stablehlo.concatenate", parts, ShapedArray((len(parts),), np.int32),
                 {"dimension": "0 : i64"})
