"""A jaxpr lowered to a whole module as a jaxlib ``ir.Module``
(``jax.interpreters.mlir.lower_jaxpr_to_module``): xjax's StableHLO text for it, the module
a jitted call compiles, parsed into a new MLIR context."""
from __future__ import annotations

from typing import Sequence

from xjax._src.execution import dispatch
from xjax._src.backend import lowering as lo
from xjax._src.backend import mlir_modules
from xjax._src.core.jaxpr import ClosedJaxpr, Jaxpr
from xjax._src.extend.ir_modules import make_ir_context
from xjax._src.extend.lowering_records import (LoweringResult, ShapePolyLoweringState,
                                               lowerable_effects)


def lower_jaxpr_to_module(module_name: str, jaxpr: ClosedJaxpr | Jaxpr, *,
                          num_const_args: int = 0, in_avals: Sequence | None = None,
                          ordered_effects: Sequence = (), platforms: Sequence[str] = (),
                          backend=None, axis_context=None,
                          donated_args: Sequence[bool] | None = None,
                          arg_shardings: Sequence | None = None,
                          result_shardings: Sequence | None = None,
                          num_partitions: int = 1,
                          input_output_aliases: Sequence | None = None,
                          lowering_parameters=None, **_) -> LoweringResult:
  """The module named ``module_name`` whose public ``main`` computes ``jaxpr``: it takes
  the jaxpr's consts first when ``num_const_args`` counts them (otherwise they are written
  in), then its invars.  Donated arguments (``donated_args``) or ``input_output_aliases``
  alias outputs.  The host callbacks it runs come back with it; pass them to the compiler."""
  closed = jaxpr if isinstance(jaxpr, ClosedJaxpr) else ClosedJaxpr(jaxpr, [])
  jaxpr = closed.jaxpr
  bad = lowerable_effects.filter_not_in(jaxpr.effects)
  if bad:
    raise ValueError(f"Cannot lower jaxpr with effects: {bad}")
  if num_const_args not in (0, len(jaxpr.constvars)):
    raise ValueError(f"lower_jaxpr_to_module: num_const_args={num_const_args}; the jaxpr "
                     f"has {len(jaxpr.constvars)} consts (pass 0 to write them in)")
  n_params = num_const_args + len(jaxpr.invars)
  if in_avals is not None and len(in_avals) != n_params:
    raise ValueError(f"lower_jaxpr_to_module: {len(in_avals)} in_avals for {n_params} "
                     "parameters")
  if num_partitions != 1 or any(s is not None for s in [*(arg_shardings or ()),
                                                         *(result_shardings or ())]):
    raise NotImplementedError("lower_jaxpr_to_module: xjax lowers one program per device "
                              "here (use jit with shardings for SPMD programs)")
  if input_output_aliases is not None:
    aliases = list(input_output_aliases)[num_const_args:]
  elif donated_args is not None:
    aliases = dispatch.donation_aliases(jaxpr.in_avals, list(donated_args)[num_const_args:],
                                        jaxpr.out_avals)
  else:
    aliases = None
  embedded = {} if num_const_args else dict(enumerate(closed.consts))
  callbacks: list = []
  text = lo.lower_module(jaxpr, "main", callbacks, aliases, embedded=embedded)
  ir = mlir_modules.mlir_bindings("ir")
  module = ir.Module.parse(text, make_ir_context())
  module.operation.attributes["sym_name"] = ir.StringAttr.get(module_name, module.context)
  return LoweringResult(module, None, callbacks,
                        ShapePolyLoweringState((), tuple(platforms) or None))
