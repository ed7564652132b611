"""XLA's HLO shardings: made from xjax's descriptions, read back as tilings over devices, and
the sharding inspections (``inspect_array_sharding``) reported when a program compiles."""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from xjax._src.backend.jaxlib_api import xc as _xc
from xjax._src.backend.clients import lock


def tiling_of(hlo, devices: Sequence, ndim: int):
  """XLA's HLO sharding ``hlo`` of a rank-``ndim`` value as a ``sharding.Tiling`` over
  ``devices`` (the program's device assignment)."""
  from xjax._src.foundations.sharding import Tiling
  if hlo.is_replicated() or hlo.is_maximal() or not ndim:
    return Tiling((1,) * ndim, devices, len(devices))
  dims = list(hlo.tile_assignment_dimensions())
  chosen = tuple(devices[i] for i in hlo.tile_assignment_devices())
  return Tiling(dims[:ndim], chosen, int(np.prod(dims[ndim:], dtype=np.int64)))


def hlo_sharding(sharding=None):
  """XLA's HloSharding of an OpSharding proto object, of its serialized bytes, or itself;
  the replicated one when None."""
  if sharding is None:
    return _xc.HloSharding.replicate()
  if isinstance(sharding, bytes):
    sharding = op_sharding(sharding)
  if isinstance(sharding, _xc.OpSharding):
    return _xc.HloSharding.from_proto(sharding)
  return sharding


def op_sharding(serialized: bytes):
  """XLA's OpSharding proto object parsed from its serialized bytes."""
  proto = _xc.OpSharding()
  proto.ParseFromString(serialized)
  return proto


def hlo_tiling(hlo, devices: Sequence, ndim: int):
  """``sharding.Tiling`` of a rank-``ndim`` value laid out as ``hlo`` over ``devices``."""
  return tiling_of(hlo_sharding(hlo), devices, ndim)


# backend_config of an ``InspectSharding`` custom call -> the callable XLA's partitioner
# calls with the operand's sharding; held until a module naming it is compiled.
inspections: dict[str, Callable] = {}


def inspect_sharding_config(callback: Callable, devices: Sequence, ndim: int) -> str:
  """The ``backend_config`` (an MLIR string body) of an ``InspectSharding`` custom call
  in an SPMD program over ``devices``: XLA's partitioner then calls ``callback`` with the
  ``sharding.Tiling`` it chose for the rank-``ndim`` operand."""
  def on_sharding(hlo):
    callback(tiling_of(hlo, list(devices), ndim))
  config = "".join(f"\\{b:02X}" for b in _xc.encode_inspect_sharding_callback(on_sharding))
  with lock:
    inspections[config] = on_sharding
  return config


def report_inspections(module_text: str) -> None:
  """Lets go of the inspection callbacks of a module that has been compiled."""
  with lock:
    for config in [c for c in inspections if c in module_text]:
      del inspections[config]
