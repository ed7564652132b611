"""Device meshes with good collective performance (``jax.experimental.mesh_utils``).

xjax runs on CPU and GPU clients, whose devices have no physical torus to follow: a mesh
is the devices in order (GPUs by id, as JAX orders them), reshaped.  Handlers for other
device kinds can be registered in ``device_kind_handler_dict``.
"""
from __future__ import annotations

import collections
import math
from typing import Any, Callable, Sequence

import numpy as np

from xjax._src.backend import clients

# device_kind -> handler(mesh_shape, devices, *, contiguous_submeshes) returning the mesh
# as an array of devices, or None to fall back to the default order.  JAX's handlers are
# for TPU topologies, which xjax does not run on: the table starts empty.
device_kind_handler_dict: dict[str, Callable[..., np.ndarray | None]] = {}

_GPU_PLATFORMS = ("gpu", "cuda", "rocm")


def _axis_sizes(mesh_shape) -> tuple[int, ...]:
  """``mesh_shape`` as ints: a shape that is not a sequence is JAX's TypeError, a sequence
  of other values its ValueError."""
  try:
    sizes = list(mesh_shape)
  except TypeError:
    raise TypeError(f"`mesh_shape` passed to `create_device_mesh` should be a sequence of "
                    f"ints, got {type(mesh_shape).__name__} {mesh_shape!r}; for one axis "
                    f"pass ({mesh_shape!r},)") from None
  try:
    return tuple(int(s) for s in sizes)
  except (TypeError, ValueError):
    raise ValueError("`mesh_shape` passed to `create_device_mesh` should be a sequence of "
                     f"ints. Got {mesh_shape}") from None


def create_device_mesh(mesh_shape: Sequence[int], devices: Sequence[Any] | None = None, *,
                       contiguous_submeshes: bool = False,
                       allow_split_physical_axes: bool = False) -> np.ndarray:
  """An array of ``devices`` (default: all) of shape ``mesh_shape``, for
  ``xjax.sharding.Mesh``; ValueError unless it holds exactly ``len(devices)`` devices."""
  devices = clients.devices() if devices is None else list(devices)
  shape = _axis_sizes(mesh_shape)
  if math.prod(shape) != len(devices):
    raise ValueError(f"Number of devices {len(devices)} must equal the product of "
                     f"mesh_shape {shape}")
  handler = device_kind_handler_dict.get(devices[-1].device_kind)
  if handler is not None:
    mesh = handler(shape, devices, contiguous_submeshes=contiguous_submeshes)
    if mesh is not None:
      return mesh
  if devices[-1].platform in _GPU_PLATFORMS:  # by id: the topology-aware order
    devices = sorted(devices, key=lambda d: d.id)
  return np.asarray(devices, dtype=object).reshape(shape)


def create_hybrid_device_mesh(mesh_shape: Sequence[int], dcn_mesh_shape: Sequence[int],
                              devices: Sequence[Any] | None = None, *,
                              process_is_granule: bool = False,
                              should_sort_granules_by_key: bool = True,
                              allow_split_physical_axes: bool = False) -> np.ndarray:
  """A mesh over several granules (slices, or processes with ``process_is_granule``):
  each granule's devices form a ``mesh_shape`` block, and the blocks are laid out as
  ``dcn_mesh_shape``; the result has shape ``mesh_shape * dcn_mesh_shape``."""
  devices = clients.devices() if devices is None else list(devices)
  attr = "process_index" if process_is_granule else "slice_index"
  if not hasattr(devices[0], attr):
    raise ValueError(f"Device {devices[0]} does not have attribute {attr}. See "
                     "`process_is_granule` option.")
  by_key = collections.defaultdict(list)
  for d in devices:
    by_key[getattr(d, attr)].append(d)
  keys = sorted(by_key) if should_sort_granules_by_key else list(by_key)
  if math.prod(dcn_mesh_shape) != len(keys):
    raise ValueError(f"Number of slices {len(keys)} must equal the product of "
                     f"dcn_mesh_shape {dcn_mesh_shape}")
  blocks = np.stack([create_device_mesh(mesh_shape, by_key[k],
                                        allow_split_physical_axes=allow_split_physical_axes)
                     for k in keys])
  inner = blocks.shape[1:]
  outer = tuple(int(s) for s in dcn_mesh_shape)
  if len(outer) != len(inner):
    raise ValueError(f"dcn_mesh_shape {tuple(dcn_mesh_shape)} and mesh_shape "
                     f"{tuple(mesh_shape)} must have the same number of axes")
  # (dcn axes, mesh axes) -> interleaved (dcn_0, mesh_0, dcn_1, mesh_1, ...) -> merged.
  grid = blocks.reshape(outer + inner)
  n = len(inner)
  order = [k for i in range(n) for k in (i, n + i)]
  return grid.transpose(order).reshape(tuple(o * i for o, i in zip(outer, inner)))
