"""Jaxprs lowered from inside lowering rules, or into modules built with jaxlib's MLIR
bindings (``jax.interpreters.mlir.jaxpr_subcomp``, ``lower_jaxpr_to_fun``,
``core_call_lowering``).

In a rule run on SSA names a jaxpr is emitted into xjax's text directly.  Otherwise xjax
writes it as a function of StableHLO text, which is parsed in the current MLIR context; its
operations are then moved into the block being built (``jaxpr_subcomp``), or the function
itself into the module (``lower_jaxpr_to_fun``).  The private functions it calls are those
of the module being lowered (in a rule), or are moved into the target module with it.
"""
from __future__ import annotations

import re
from typing import Any, Sequence

from xjax._src.backend import lowering as lo
from xjax._src.backend import mlir_modules
from xjax._src.core.jaxpr import ClosedJaxpr, Jaxpr
from xjax._src.extend import user_lowering as ul
from xjax._src.extend.ir_modules import move_functions

_PARAM = object()   # a constvar taken as a parameter of the function
_INLINED = "__xjax.inlined"   # the name of a function whose body is inlined


def _emit_function(module: lo.Module, name: str, jaxpr: Jaxpr, consts: Sequence,
                   with_token: bool = False, public: bool = False) -> str:
  """``jaxpr`` as the function ``name`` written in ``module``'s text.  Its parameters are a
  token (``with_token``: the first result is then the token its effects leave), the
  constvars whose const is ``_PARAM``, then the invars; other consts are written in."""
  ctx = module.new_context()
  params: list[str] = []

  def param(aval, prefix="%fa"):
    n = ctx.fresh().replace("%", prefix)
    ctx.declare(n, aval)
    params.append(f"{n}: {lo.tensor_type(aval)}")
    return n

  if with_token:
    ctx.token = param(lo.TOKEN, "%ftok")
  const_values = [param(v.aval) if c is _PARAM else c for c, v in zip(consts, jaxpr.constvars)]
  args = [param(v.aval) for v in jaxpr.invars]
  outs = ctx.lower_jaxpr(jaxpr, const_values, args)
  types = [lo.tensor_type(a) for a in jaxpr.out_avals]
  if with_token:
    outs, types = [ctx.effect_token(), *outs], ["!stablehlo.token", *types]
  ret = f"    func.return {', '.join(outs)} : {', '.join(types)}" if outs else "    func.return"
  return (f"  func.func {'public' if public else 'private'} @{name}({', '.join(params)}) -> "
          f"({', '.join(types)}) {{\n" + "\n".join([*ctx.lines, ret]) + "\n  }")


_SYMBOL = re.compile(r"@([A-Za-z_][\w$.]*)")
_DEFINED = re.compile(r'func\.func (?:public |private )?@([\w$.]+)|sym_name = "([^"]+)"')


def _defined_name(text: str) -> str:
  m = _DEFINED.search(text)
  return m.group(1) or m.group(2)


def _called_functions(module: lo.Module, text: str) -> list[str]:
  """The functions of ``module`` that ``text`` calls, directly or not."""
  defined = {_defined_name(t): t for t in module.functions}
  found: dict = {}
  todo = set(_SYMBOL.findall(text))
  while todo:
    name = todo.pop()
    if name in defined and name not in found:
      found[name] = defined[name]
      todo |= set(_SYMBOL.findall(found[name]))
  return list(found.values())


def _parse(functions: Sequence[str], context=None):
  ir = mlir_modules.mlir_bindings("ir")
  return ir.Module.parse("module {\n" + "\n".join(functions) + "\n}", context)


def _function(module, name: str):
  return mlir_modules.mlir_bindings("ir").SymbolTable(module.operation)[name]


class _Target:
  """Where a jaxpr's function text is written: the module being lowered (in a rule), or a
  module of its own whose functions then move into ``dst``."""

  def __init__(self, what: str, module_context) -> None:
    self.in_rule = ul.in_rule()
    if self.in_rule:
      self.module = ul.current_context(what).ctx.module
    else:
      self.module = lo.Module("lowered")
      self.dst = module_context.module
    self.n_callbacks = len(self.module.host_callbacks)

  def parse(self, entry: str, context=None):
    """The module holding the function text ``entry`` and the functions it calls."""
    if len(self.module.host_callbacks) != self.n_callbacks:
      if not self.in_rule:
        raise NotImplementedError("a jaxpr with host callbacks lowers into a module of "
                                  "xjax's own only (jit, or mlir.lower_jaxpr_to_module)")
      ul.mark_module_specific()
    helpers = _called_functions(self.module, entry)
    if self.in_rule:
      if helpers:
        ul.mark_module_specific()
      return _parse([*helpers, entry], context)
    return _parse([*self.module.functions, entry], context)


def jaxpr_subcomp(ctx, jaxpr: Jaxpr | ClosedJaxpr, name_stack, tokens, consts: Sequence,
                  *args, dim_var_values: Sequence = (), const_lowering=None,
                  outer_traceback=None) -> tuple[list, Any]:
  """Emits ``jaxpr`` (its constvars bound to ``consts``, its invars to ``args``) inline at
  the current insertion point; returns (its results, ``tokens``).  ``ctx`` is the
  ModuleContext; xjax orders a rule's effects with those around it by itself."""
  if isinstance(jaxpr, ClosedJaxpr):
    jaxpr, consts = jaxpr.jaxpr, (consts or jaxpr.consts)
  consts = [_one(c) for c in consts]
  args = [_one(a) for a in args]
  if ul.in_text_rule():
    xctx = ul.current_context("jaxpr_subcomp").ctx
    return xctx.lower_jaxpr(jaxpr, consts, args), tokens
  ir = mlir_modules.mlir_bindings("ir")
  if not ul.in_rule() and ir.Context.current is None:
    raise RuntimeError("mlir.jaxpr_subcomp emits at the current insertion point: call it "
                       "from a lowering rule, or under an MLIR context and insertion point")
  is_value = [isinstance(c, ir.Value) for c in consts]
  target = _Target("jaxpr_subcomp", ctx)
  text = _emit_function(target.module, _INLINED, jaxpr,
                        [_PARAM if v else c for c, v in zip(consts, is_value)])
  parsed = target.parse(text)
  fn = _function(parsed, _INLINED)
  if not target.in_rule:
    move_functions(parsed, target.dst, keep=_INLINED)
  block = fn.regions[0].blocks[0]
  for param, value in zip(block.arguments, [c for c, v in zip(consts, is_value) if v] + args):
    param.replace_all_uses_with(value)
  *body, ret = list(block.operations)
  results = list(ret.operands)
  ip = ir.InsertionPoint.current
  for op in body:
    op.detach_from_parent()
    ip.insert(op)
  return results, tokens


def _one(x):
  """A value given as a one-element list or tuple (as ``ir_constants`` returns it)."""
  return x[0] if isinstance(x, (list, tuple)) and len(x) == 1 else x


def lower_jaxpr_to_fun(ctx, name: str, jaxpr: ClosedJaxpr | Jaxpr, effects: Sequence = (), *,
                       num_const_args: int = 0, main_function: bool = False,
                       in_avals: Sequence | None = None, **_):
  """``jaxpr`` as a function of the module ``ctx.module`` (the ModuleContext's; in a rule
  run with the MLIR bindings, the one it builds in), returned as a ``func.FuncOp``.  Its
  parameters are a token when ``effects`` are given, the jaxpr's consts when
  ``num_const_args`` counts them (otherwise they are written in), then its invars.  The
  function is private and named after ``name`` (``main`` and public for the
  ``main_function``)."""
  closed = jaxpr if isinstance(jaxpr, ClosedJaxpr) else ClosedJaxpr(jaxpr, [])
  jaxpr = closed.jaxpr
  if num_const_args not in (0, len(jaxpr.constvars)):
    raise ValueError(f"lower_jaxpr_to_fun: num_const_args={num_const_args}; the jaxpr has "
                     f"{len(jaxpr.constvars)} consts (pass 0 to write them into the function)")
  if in_avals is not None and len(in_avals) != num_const_args + len(jaxpr.invars):
    raise ValueError(f"lower_jaxpr_to_fun: {len(in_avals)} in_avals for "
                     f"{num_const_args + len(jaxpr.invars)} parameters")
  if len(effects) > 1:
    raise NotImplementedError("lower_jaxpr_to_fun: xjax orders a function's effects with "
                              "one token; pass at most one effect")
  if ul.in_text_rule():
    raise RuntimeError("mlir.lower_jaxpr_to_fun builds with the MLIR bindings (in a "
                       "lowering rule, it runs with them)")
  consts = [_PARAM] * len(jaxpr.constvars) if num_const_args else closed.consts
  target = _Target("lower_jaxpr_to_fun", ctx)
  if target.in_rule:
    fn_name = target.module.unique_name(name)
    parsed = target.parse(_emit_function(target.module, fn_name, jaxpr, consts, bool(effects)))
    fn = _function(parsed, fn_name)
    fn.operation.detach_from_parent()
    ctx.ip.insert(fn)
    ul.own_function(fn_name)
    return fn
  text = _emit_function(target.module, _INLINED, jaxpr, consts, bool(effects))
  parsed = target.parse(text, ctx.module.context)
  symtab = ctx.symbol_table
  names = move_functions(parsed, ctx.module, symtab,
                         {_INLINED: "main" if main_function else target.module.unique_name(name)})
  fn = symtab[names[_INLINED]]
  if main_function:
    mlir_modules.mlir_bindings("ir").SymbolTable.set_visibility(fn, "public")
  return fn


def core_call_lowering(ctx, *args, name: str, backend=None, call_jaxpr):
  """The lowering of a call primitive: ``call_jaxpr`` called as a private function (inline
  in a rule run with the MLIR bindings)."""
  ctx.set_tokens_out(ctx.tokens_in)
  if ul.in_text_rule():
    return ctx.ctx.call(call_jaxpr, name, list(args))
  return jaxpr_subcomp(ctx.module_context, call_jaxpr, None, ctx.tokens_in, [], *args)[0]
