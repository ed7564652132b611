"""Primitives about tracing rather than values: ``stage`` (the identity that lifts a value
into the active trace) and ``dce_sink`` (marks values as used, so the computations
producing them are not removed as dead code)."""
from __future__ import annotations

from xjax._src.foundations import tree_util
from xjax._src.core.effects import Effect, control_flow_allowed_effects
from xjax._src.core.trace import Tracer
from xjax._src.core.values import get_aval
from xjax._src.interpreters import ad
from xjax._src.interpreters.staging import staged_constant
from xjax._src.primitives.lax.primitive_builders import standard_primitive

# ---------------------------------------------------------------------------------------
# stage

stage_p = standard_primitive("stage", lambda x: x, lambda ctx, x: x)
ad.deflinear(stage_p, lambda ct, x: [ct])
stage_p.batch = lambda axis, args, dims: (stage_p.bind(*args), dims[0])


def stage(x, /):
  """``x`` as a value of the active trace: outside any transformation an Array (a Python
  scalar stays weakly typed); under one, a traced value or constant of it."""
  if isinstance(x, Tracer):
    return x
  try:
    get_aval(x)
  except TypeError:
    raise TypeError("Error interpreting argument to stage as a JAX value. The problematic "
                    f"value is of type {type(x)} and was passed to stage at position 0."
                    ) from None
  from xjax._src.execution.array import Array, make_array
  if isinstance(x, Array):
    return staged_constant(x, made=False)
  return staged_constant(make_array(x))


# ---------------------------------------------------------------------------------------
# dce_sink

class NoDCEEffect(Effect):
  """Marks a use that dead-code elimination must keep (allowed in control-flow bodies)."""
  __slots__ = ()


no_dce_effect = NoDCEEffect("NoDCE")
control_flow_allowed_effects.add_type(NoDCEEffect)


def _sink_lowering(ctx, x, *, prevent_mlir_dce):
  if prevent_mlir_dce:  # an op with a side effect that reads x, so XLA keeps x's producers
    ctx.op("stablehlo.custom_call", [x], [],
           {"call_target_name": '"dce_sink"', "has_side_effect": "true",
            "backend_config": '""', "mhlo.backend_config": "{}"})
  return []


dce_sink_p = standard_primitive("dce_sink", lambda x, *, prevent_mlir_dce: [], _sink_lowering,
                                multiple_results=True)
dce_sink_p.effects = lambda **_: (no_dce_effect,)
dce_sink_p.impl = lambda x, **_: []  # nothing to compute for a concrete value
dce_sink_p.jvp = lambda primals, tangents, **params: (dce_sink_p.bind(*primals, **params), [])
dce_sink_p.batch = lambda axis, args, dims, **params: (dce_sink_p.bind(*args, **params), [])


def dce_sink(val, *, prevent_mlir_dce: bool = False) -> None:
  """Marks every leaf of ``val`` as used (by dead-code elimination of jaxprs, and of the
  compiled program too with ``prevent_mlir_dce``)."""
  for leaf in tree_util.tree_leaves(val):
    dce_sink_p.bind(leaf, prevent_mlir_dce=bool(prevent_mlir_dce))
