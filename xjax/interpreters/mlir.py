"""Lowering extension points (``jax.interpreters.mlir``).

xjax lowers to StableHLO text: in a rule run on text, values are SSA names and types are
type strings. Rules made with ``lower_fun`` (the usual way) emit text; rules that build
operations with the MLIR Python bindings (``ir``, jaxlib's ``stablehlo`` dialect) run on
binding values and their operations are spliced into the text.
"""
from xjax._src.backend import mlir_modules as _mlir_modules
from xjax._src.primitives.callback import emit_callback as _emit_callback
from xjax._src.core.avals import ShapedArray as _ShapedArray
from xjax._src.extend.ir_attributes import dense_int_elements, ir_attribute  # noqa: F401
from xjax._src.extend.ir_modules import (make_ir_context,  # noqa: F401
                                         merge_mlir_modules, module_to_bytecode,
                                         module_to_string)
from xjax._src.extend.ir_trees import (ir_tree_registry,  # noqa: F401
                                       unflatten_ir_values_like_types)
from xjax._src.extend.jaxpr_to_ir import (core_call_lowering,  # noqa: F401
                                          jaxpr_subcomp, lower_jaxpr_to_fun)
from xjax._src.extend.lowering_records import (DEVICE_TO_DEVICE_TYPE,  # noqa: F401
                                               RECV_FROM_HOST_TYPE, SEND_TO_HOST_TYPE,
                                               AxisContext, ConstantHandler,
                                               LoweringParameters, LoweringResult,
                                               LoweringRule, MeshAxisName, SPMDAxisContext,
                                               ShapePolyLoweringState, ShardingContext,
                                               TokenSet, lowerable_effects)
from xjax._src.extend.user_lowering import (LoweringRuleContext,  # noqa: F401
                                            ModuleContext, aval_to_ir_type,
                                            aval_to_ir_types, ir_constant, ir_constants,
                                            ir_type_handlers, lower_fun,
                                            register_constant_handler, register_lowering,
                                            shape_tensor, token_type)
from xjax._src.extend.user_lowering import in_bindings_rule as _current_bindings
from xjax._src.extend.jaxpr_to_module import lower_jaxpr_to_module  # noqa: F401
from xjax._src.foundations.sharding import Mesh  # noqa: F401


def dtype_to_ir_type(dtype):
  """The StableHLO element type of ``dtype`` (text, or an ``ir.Type`` in a bindings rule)."""
  text = aval_to_ir_type(_ShapedArray((), dtype))
  return text[len("tensor<"):-1] if isinstance(text, str) else text.element_type


def flatten_ir_values(xs) -> list:
  """Values nested in lists and tuples, flattened."""
  return [v for x in xs for v in (flatten_ir_values(x) if isinstance(x, (list, tuple))
                                  else [x])]


flatten_ir_types = flatten_ir_values


def i32_attr(i: int):
  """An i32 attribute (for rules built with the MLIR bindings)."""
  ir = _mlir_modules.mlir_bindings("ir")
  return ir.IntegerAttr.get(ir.IntegerType.get_signless(32), i)


def i64_attr(i: int):
  """An i64 attribute (for rules built with the MLIR bindings)."""
  ir = _mlir_modules.mlir_bindings("ir")
  return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), i)


def dense_int_array(xs):
  """An ``array<i64: ...>`` attribute (for rules built with the MLIR bindings)."""
  return _mlir_modules.mlir_bindings("ir").DenseI64ArrayAttr.get([int(x) for x in xs])


def emit_python_callback(ctx, callback, token, operands, operand_avals, result_avals, *,
                         has_side_effect: bool, partitioned: bool = False, sharding=None,
                         **_):
  """A host call of ``callback`` (NumPy arrays in, a sequence of arrays out) on
  ``operands``; returns (results, token, keepalive) as JAX.  Effectful calls are ordered by
  the region's token (``token`` is passed back unchanged)."""
  if _current_bindings():
    raise NotImplementedError("mlir.emit_python_callback is supported in lowering rules "
                              "written on xjax's text values, not with the MLIR bindings")
  xctx = ctx.ctx
  saved, xctx.avals_in = xctx.avals_in, list(operand_avals)
  try:
    results = _emit_callback(xctx, callback, operands, list(result_avals), has_side_effect)
  finally:
    xctx.avals_in = saved
  return results, token, None


_LAZY = {"ir": lambda ir: ir, "Value": lambda ir: ir.Value, "Token": lambda ir: ir.Value}


def __getattr__(name):
  if name in _LAZY:   # jaxlib's MLIR bindings, loaded when first asked for
    return _LAZY[name](_mlir_modules.mlir_bindings("ir"))
  raise AttributeError(f"module 'xjax.interpreters.mlir' has no attribute '{name}'")


def __dir__():
  return sorted([*globals(), *_LAZY])
