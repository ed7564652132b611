"""jaxlib's MLIR bindings (their context made once, with the StableHLO, CHLO and Shardy
dialects) and what xjax does to StableHLO module text through them: parsing, converting to
HLO, serializing portable artifacts, renaming functions, refining polymorphic shapes."""
from __future__ import annotations

from typing import Callable, Sequence

from xjax._src.backend.jaxlib_api import jaxlib_ext as _jax, jaxlib_module, xc as _xc


_mlir_context: list = []


def parse_module(text: str):
  """``compile_and_load`` takes host callbacks only with a parsed MLIR module."""
  ir = jaxlib_module("mlir.ir")
  with _mlir_ctx():
    return ir.Module.parse(text)


def _mlir_ctx():
  """jaxlib's MLIR context with the StableHLO, CHLO and Shardy (``sdy``: the shardings of
  JAX's exported modules) dialects loaded (made once)."""
  ir = jaxlib_module("mlir.ir")
  if not _mlir_context:
    _jax_mlir_ext = jaxlib_module("mlir._mlir_libs._jax_mlir_ext")
    chlo = jaxlib_module("mlir.dialects.chlo")
    sdy = jaxlib_module("mlir.dialects.sdy")
    stablehlo = jaxlib_module("mlir.dialects.stablehlo")
    registry = ir.DialectRegistry()
    _jax_mlir_ext.register_dialects(registry)
    ctx = ir.Context()
    ctx.append_dialect_registry(registry)
    ctx.load_all_available_dialects()
    stablehlo.register_dialect(ctx)
    chlo.register_dialect(ctx)
    sdy.register_dialect(ctx)
    _mlir_context.append(ctx)
  return _mlir_context[0]


def mlir_bindings(name: str):
  """A module of jaxlib's MLIR Python bindings (``"ir"``, ``"dialects.stablehlo"``, ...),
  for lowering rules written with them; its context is made first."""
  _mlir_ctx()
  return jaxlib_module(f"mlir.{name}")


def mlir_context():
  """jaxlib's MLIR context in which xjax parses and builds IR (made once)."""
  return _mlir_ctx()


def mlir_converters():
  """jaxlib's converters between MLIR modules and XLA's forms (``jax.extend.mlir``'s
  ``serialize_portable_artifact``, ``hlo_to_stablehlo``, ...)."""
  return _jax.mlir


def build_with_bindings(arg_types: Sequence[str], build: Callable) -> str:
  """Runs ``build(arguments) -> results`` (values, ops or lists of them) with jaxlib's MLIR
  Python bindings in a scratch function taking ``arg_types`` (type text), under that
  context and an unknown location; returns the function printed in MLIR's generic form."""
  ir = jaxlib_module("mlir.ir")
  func = jaxlib_module("mlir.dialects.func")
  with _mlir_ctx(), ir.Location.unknown():
    module = ir.Module.create()
    types = [ir.Type.parse(t) for t in arg_types]
    with ir.InsertionPoint(module.body):
      fn = func.FuncOp("rule", (types, []))
      block = fn.add_entry_block()
    with ir.InsertionPoint(block):
      results = _ir_values(ir, build(list(block.arguments)))
      func.ReturnOp(results)
    fn.attributes["function_type"] = ir.TypeAttr.get(
        ir.FunctionType.get(types, [r.type for r in results]))
    return fn.operation.get_asm(print_generic_op_form=True)


def _ir_values(ir, out) -> list:
  """The values of a binding-built rule's results, flattened (ops give their results)."""
  if isinstance(out, ir.Value):
    return [out]
  if isinstance(out, (ir.Operation, ir.OpView)):
    return list(out.results)
  return [v for o in out for v in _ir_values(ir, o)]


def mlir_module(text: str):
  """The MLIR module (jaxlib's ``ir.Module``) of StableHLO text."""
  return parse_module(text)


def hlo_computation(text: str):
  """XLA's HLO computation of a StableHLO module (it prints with ``as_hlo_text()``)."""
  return _jax.mlir.mlir_module_to_xla_computation(text, use_tuple_args=False,
                                                      return_tuple=False)


def hlo_cost_analysis(text: str, device) -> dict:
  """XLA's cost estimates of a StableHLO module before optimization (flops, bytes)."""
  return _jax.hlo_module_cost_analysis(device.client,
                                           hlo_computation(text).as_hlo_module())


def serialize_portable_artifact(text: str) -> bytes:
  """StableHLO text as a portable artifact: versioned bytecode that consumers built up to
  four weeks apart from this jaxlib can read (what ``jax.export`` stores)."""
  ir = jaxlib_module("mlir.ir")
  stablehlo = jaxlib_module("mlir.dialects.stablehlo")
  with _mlir_ctx():
    target = stablehlo.get_version_from_compatibility_requirement(
        stablehlo.StablehloCompatibilityRequirement.WEEK_4)
    return bytes(stablehlo.serialize_portable_artifact(ir.Module.parse(text), target))


def deserialize_portable_artifact(data: bytes) -> str:
  """The StableHLO text of a portable artifact."""
  stablehlo = jaxlib_module("mlir.dialects.stablehlo")
  with _mlir_ctx() as ctx:
    return str(stablehlo.deserialize_portable_artifact(ctx, bytes(data)))


def callable_functions(text: str, rename: Callable[[str], str]) -> list[str]:
  """The functions of a module as private functions renamed by ``rename`` (the public
  ``main`` first, without argument or result attributes), in MLIR's generic form, ready to
  join another module and be called from it. Other top-level operations (Shardy's
  ``sdy.mesh``, which the argument attributes name) are left out: the functions are called
  on one device."""
  ir = jaxlib_module("mlir.ir")
  with _mlir_ctx():
    module = ir.Module.parse(text)
    ops = sorted((op for op in module.body.operations if op.operation.name == "func.func"),
                 key=lambda op: ir.StringAttr(op.attributes["sym_name"]).value != "main")
    for op in ops:
      old = ir.StringAttr(op.attributes["sym_name"]).value
      new = rename(old)
      ir.SymbolTable.replace_all_symbol_uses(old, new, module.operation)
      ir.SymbolTable.set_symbol_name(op, new)
      ir.SymbolTable.set_visibility(op, "private")
      for attr in ("arg_attrs", "res_attrs"):
        if attr in op.attributes:
          del op.attributes[attr]
    return [op.get_asm(print_generic_op_form=True) for op in ops]


def refine_polymorphic_shapes(text: str) -> str:
  """A module whose ``main`` has static argument types with the dynamic shapes of the
  functions it calls refined from them and their shape assertions checked (a failing one is
  a ``ValueError`` with its message), as text."""
  ir = jaxlib_module("mlir.ir")
  try:
    refined = _jax.mlir.refine_polymorphic_shapes(text.encode(), True, True)
  except _xc.XlaRuntimeError as e:
    detail = str(e).split("error: ", 1)[-1].split("\n", 1)[0]
    raise ValueError(f"Error refining shapes. {detail}") from None
  with _mlir_ctx():
    return str(ir.Module.parse(refined))


def approx_top_k_output_size(input_size: int, rank: int, k: int, recall_target: float,
                             input_size_override: int) -> int:
  """The reduction-dimension size of XLA's ApproxTopK results left unaggregated."""
  return int(_jax.approx_top_k_reduction_output_size(
      input_size, rank, k, recall_target, False, input_size_override)[0])
