"""``jax.extend.mlir``: jaxlib's MLIR Python bindings (``ir``, ``passmanager``, ``dialects``)
and its converters of StableHLO modules (portable artifacts, HLO, shape refinement)."""
from xjax._src.backend import mlir_modules as _mlir_modules


def _public_names(name: str) -> dict:
  """What ``from jaxlib.mlir.<name> import *`` binds."""
  module = _mlir_modules.mlir_bindings(name)
  names = getattr(module, "__all__", None) or [n for n in vars(module) if n[0] != "_"]
  return {n: getattr(module, n) for n in names}


def lower_with_sharding_in_types(ctx, op, aval):
  """``op`` constrained to the sharding ``aval``'s type carries: xjax's avals carry none,
  so ``op`` itself."""
  return op


_converters = _mlir_modules.mlir_converters()
serialize_portable_artifact = _converters.serialize_portable_artifact
deserialize_portable_artifact = _converters.deserialize_portable_artifact
refine_polymorphic_shapes = _converters.refine_polymorphic_shapes
hlo_to_stablehlo = _converters.hlo_to_stablehlo
del _converters
