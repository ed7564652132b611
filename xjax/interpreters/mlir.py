"""Lowering extension points (``jax.interpreters.mlir``).

xjax lowers to StableHLO text: values in lowering rules are SSA names and types are type
strings. Rules made with ``lower_fun`` (the usual way) work as in JAX; rules that build
operations with the MLIR Python bindings are not supported (see docs/differences.md).
"""
from xjax._src.interpreters.user_lowering import (LoweringRuleContext,  # noqa: F401
                                                  ModuleContext, aval_to_ir_type,
                                                  aval_to_ir_types, ir_constant, ir_constants,
                                                  lower_fun, register_lowering)
