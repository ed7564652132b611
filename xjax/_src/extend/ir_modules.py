"""MLIR contexts and modules made with jaxlib's Python bindings (``jax.interpreters.mlir``):
new contexts with the dialects StableHLO needs, modules as text or bytecode, and merging the
functions of one module into another."""
from __future__ import annotations

import io

from xjax._src.backend import mlir_modules


def make_ir_context():
  """A new MLIR context with the dialects of xjax's and JAX's modules loaded (builtin,
  func, StableHLO, CHLO, Shardy, ...)."""
  ir = mlir_modules.mlir_bindings("ir")
  registry = ir.DialectRegistry()
  mlir_modules.mlir_bindings("_mlir_libs._jax_mlir_ext").register_dialects(registry)
  context = ir.Context()
  context.append_dialect_registry(registry)
  context.load_all_available_dialects()
  for dialect in ("stablehlo", "chlo", "sdy", "mpmd"):
    mlir_modules.mlir_bindings(f"dialects.{dialect}").register_dialect(context)
  return context


def module_to_string(module, enable_debug_info=None) -> str:
  """``module`` printed in MLIR's textual form, with source locations when
  ``enable_debug_info`` (xjax records none: by default they are left out)."""
  out = io.StringIO()
  module.operation.print(file=out, enable_debug_info=bool(enable_debug_info))
  return out.getvalue()


def module_to_bytecode(module) -> bytes:
  """``module`` as MLIR bytecode (``ir.Module.parse`` reads it back)."""
  out = io.BytesIO()
  module.operation.write_bytecode(file=out)
  return out.getvalue()


def _name(ir, op) -> str:
  return ir.StringAttr(op.attributes["sym_name"]).value


def move_functions(src, dst, dst_symtab=None, renames: dict | None = None,
                   keep: str | None = None) -> dict:
  """Moves the functions of module ``src`` (all but ``keep``, which stays, its calls
  renamed) to the end of module ``dst``, private, renamed as ``renames`` says (old name ->
  wanted name) and wherever a name is taken in ``dst``; returns the names they got."""
  ir = mlir_modules.mlir_bindings("ir")
  src_symtab = ir.SymbolTable(src.operation)
  dst_symtab = dst_symtab or ir.SymbolTable(dst.operation)
  renames = dict(renames or {})
  names = [n for op in src.body.operations if (n := _name(ir, op)) != keep]
  used: set = set()
  final = {}
  for name in names:
    base = renames.get(name, name)
    new, i = base, 0
    while ((new in src_symtab and new != name) or new in dst_symtab or new in used):
      new, i = f"{base}_{i}", i + 1
    used.add(new)
    final[name] = new
  moved = [op for op in src.body.operations if _name(ir, op) != keep]
  for op in moved:
    name = _name(ir, op)
    if final[name] != name:
      src_symtab.set_symbol_name(op, final[name])
    ir.SymbolTable.set_visibility(op, "private")
  for old, new in final.items():
    if old != new:
      for op in src.body.operations:
        ir.SymbolTable.replace_all_symbol_uses(old, new, op)
  for op in moved:
    op.detach_from_parent()
    dst.body.append(op)
    dst_symtab.insert(op)
  return final


def merge_mlir_modules(dst_module, sym_name: str, src_module, dst_symtab=None) -> str:
  """Moves the functions of ``src_module`` into ``dst_module``, private and renamed where
  their names are taken there; ``src_module``'s ``main`` is named after ``sym_name`` (made
  unique).  Returns the name ``main`` got.  Both modules must share one context."""
  if dst_module.context != src_module.context:
    raise ValueError("merge_mlir_modules: the modules belong to different MLIR contexts")
  ir = mlir_modules.mlir_bindings("ir")
  if "main" not in ir.SymbolTable(src_module.operation):
    raise ValueError("merge_mlir_modules: the source module has no function 'main'")
  return move_functions(src_module, dst_module, dst_symtab, {"main": sym_name})["main"]
