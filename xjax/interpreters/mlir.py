"""Lowering extension points (``jax.interpreters.mlir``).

xjax lowers to StableHLO text: in a rule run on text, values are SSA names and types are
type strings. Rules made with ``lower_fun`` (the usual way) emit text; rules that build
operations with the MLIR Python bindings (``ir``, jaxlib's ``stablehlo`` dialect) run on
binding values and their operations are spliced into the text.
"""
from xjax._src.backend import runtime as _runtime
from xjax._src.interpreters.user_lowering import (LoweringRuleContext,  # noqa: F401
                                                  ModuleContext, aval_to_ir_type,
                                                  aval_to_ir_types, ir_constant, ir_constants,
                                                  lower_fun, register_lowering)


def __getattr__(name):
  if name == "ir":   # jaxlib's MLIR bindings, loaded when first asked for
    return _runtime.mlir_bindings("ir")
  raise AttributeError(f"module 'xjax.interpreters.mlir' has no attribute '{name}'")
