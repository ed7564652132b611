"""``GSPMDSharding``: a layout over a list of devices given as XLA's HLO sharding (an
``HloSharding`` or ``OpSharding`` proto), as ``jax.extend.sharding`` offers it."""
from __future__ import annotations

from typing import Sequence

from xjax._src.backend import hlo_sharding
from xjax._src.foundations.sharding import Tiling, TilingSharding


class GSPMDSharding(TilingSharding):
  """Devices ``devices`` (the HLO sharding's device ids index them) laid out as
  ``op_sharding``."""

  def __init__(self, devices: Sequence, op_sharding, *, memory_kind: str | None = None,
               _device_list=None) -> None:
    self._devices = tuple(devices)
    self._hlo_sharding = hlo_sharding.hlo_sharding(op_sharding)
    self._memory_kind = memory_kind
    # a single-device layout places values as that device (device_put)
    self._device = self._devices[0] if len(self._devices) == 1 else None

  @classmethod
  def get_replicated(cls, device_set, *, memory_kind: str | None = None) -> "GSPMDSharding":
    return cls(tuple(device_set), hlo_sharding.hlo_sharding(None), memory_kind=memory_kind)

  def _to_xla_hlo_sharding(self, num_dimensions: int):
    return self._hlo_sharding

  def tiling(self, ndim: int) -> Tiling:
    return hlo_sharding.hlo_tiling(self._hlo_sharding, self._devices, ndim)

  @property
  def device_set(self) -> set:
    return set(self._devices)

  @property
  def _device_assignment(self) -> list:
    return list(self._devices)

  @property
  def is_fully_replicated(self) -> bool:
    return self._hlo_sharding.is_replicated()

  @property
  def memory_kind(self) -> str:
    return self._memory_kind or "device"

  def __eq__(self, other) -> bool:
    return (isinstance(other, GSPMDSharding) and self._hlo_sharding == other._hlo_sharding
            and self._devices == other._devices and self.memory_kind == other.memory_kind)

  def __hash__(self) -> int:
    return hash((self._hlo_sharding, self._devices, self.memory_kind))

  def __repr__(self) -> str:
    return f"GSPMDSharding({self._hlo_sharding!r}, memory_kind={self.memory_kind})"
