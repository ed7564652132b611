"""Shardings: how an array is laid out over devices.  Single-device placement for now."""
from __future__ import annotations


class Sharding:
  """Base class of array layouts over devices (``jax.sharding.Sharding``)."""

  @property
  def device_set(self) -> set:
    raise NotImplementedError

  @property
  def is_fully_replicated(self) -> bool:
    return True

  @property
  def is_fully_addressable(self) -> bool:
    return True

  @property
  def memory_kind(self):
    return None

  @property
  def addressable_devices(self) -> set:
    return self.device_set

  @property
  def num_devices(self) -> int:
    return len(self.device_set)

  def shard_shape(self, global_shape) -> tuple:
    return tuple(global_shape)


class SingleDeviceSharding(Sharding):
  """The whole array on one device."""

  def __init__(self, device, *, memory_kind=None) -> None:
    self._device = device

  @property
  def device_set(self) -> set:
    return {self._device}

  def devices_indices_map(self, global_shape) -> dict:
    return {self._device: tuple(slice(None) for _ in global_shape)}

  def __eq__(self, other) -> bool:
    return isinstance(other, SingleDeviceSharding) and other._device == self._device

  def __hash__(self) -> int:
    return hash(("SingleDeviceSharding", self._device))

  def __repr__(self) -> str:
    return f"SingleDeviceSharding(device={self._device!r}, memory_kind=device)"
