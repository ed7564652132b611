"""xjax.experimental.mesh_utils: meshes of stand-in devices (ids, platforms, processes,
slices) and of the real one, laid out as JAX 0.10.2 lays them out (expected ids taken
from the reference)."""
import numpy as np
import pytest

import xjax
from xjax.experimental import mesh_utils


class FakeDevice:
  def __init__(self, id, platform, device_kind, process_index, slice_index):
    self.id, self.platform, self.device_kind = id, platform, device_kind
    self.process_index, self.slice_index = process_index, slice_index

  def __repr__(self):
    return f"FakeDevice({self.id})"


ORDER = [5, 1, 7, 3, 0, 2, 6, 4]
GPUS = [FakeDevice(i, "gpu", "H100", i // 4, i // 4) for i in ORDER]
CPUS = [FakeDevice(i, "cpu", "cpu", i // 4, i // 2) for i in ORDER]


def ids(mesh):
  return np.vectorize(lambda d: d.id)(mesh).tolist()


def test_create_device_mesh_orders_gpus_by_id_and_keeps_cpu_order():
  assert ids(mesh_utils.create_device_mesh((2, 4), GPUS)) == [[0, 1, 2, 3], [4, 5, 6, 7]]
  assert ids(mesh_utils.create_device_mesh((2, 4), CPUS)) == [[5, 1, 7, 3], [0, 2, 6, 4]]
  assert ids(mesh_utils.create_device_mesh(["4", 2.0], CPUS)) == [[5, 1], [7, 3], [0, 2],
                                                                   [6, 4]]


def test_create_device_mesh_on_the_real_devices():
  mesh = mesh_utils.create_device_mesh((1,))
  assert mesh.shape == (1,) and mesh[0] == xjax.devices()[0]
  assert mesh_utils.create_device_mesh([1, 1], contiguous_submeshes=True,
                                       allow_split_physical_axes=True).shape == (1, 1)


def test_create_device_mesh_errors():
  with pytest.raises(ValueError, match=r"Number of devices 8 must equal the product of "
                                       r"mesh_shape \(3,\)"):
    mesh_utils.create_device_mesh((3,), CPUS)
  with pytest.raises(ValueError, match="should be a sequence of ints. Got"):
    mesh_utils.create_device_mesh(("a",), CPUS)
  with pytest.raises(TypeError, match="for one axis pass \\(8,\\)"):  # (JAX: TypeError)
    mesh_utils.create_device_mesh(8, CPUS)


def test_hybrid_meshes():
  hybrid = mesh_utils.create_hybrid_device_mesh
  assert ids(hybrid((2, 2), (2, 1), CPUS, process_is_granule=True)) == [
      [1, 3], [0, 2], [5, 7], [6, 4]]
  assert ids(hybrid((1, 2), (2, 2), CPUS)) == [[1, 0, 3, 2], [5, 4, 7, 6]]
  assert ids(hybrid((2,), (4,), CPUS, should_sort_granules_by_key=False)) == [
      5, 4, 1, 0, 7, 6, 3, 2]
  assert ids(hybrid((2, 1, 2), (1, 2, 1), GPUS, process_is_granule=True)) == [
      [[0, 1], [4, 5]], [[2, 3], [6, 7]]]
  assert ids(hybrid((4,), (2,), CPUS, process_is_granule=True)) == [1, 3, 0, 2, 5, 7, 6, 4]
  with pytest.raises(ValueError, match=r"Number of slices 4 must equal the product of "
                                       r"dcn_mesh_shape \(3,\)"):
    hybrid((2,), (3,), CPUS)
  with pytest.raises(ValueError, match="does not have attribute slice_index. See "
                                       "`process_is_granule` option"):
    hybrid((1,), (1,))  # the CPU client's devices have no slices
  assert hybrid((1,), (1,), process_is_granule=True).shape == (1,)


def test_device_kind_handlers():
  toys = [FakeDevice(i, "cpu", "toy", 0, 0) for i in range(4)]
  assert mesh_utils.device_kind_handler_dict == {}
  try:
    mesh_utils.device_kind_handler_dict["toy"] = (
        lambda shape, devs, contiguous_submeshes: np.array(devs[::-1]).reshape(shape))
    assert ids(mesh_utils.create_device_mesh((2, 2), toys)) == [[3, 2], [1, 0]]
    mesh_utils.device_kind_handler_dict["toy"] = lambda *a, **k: None  # falls back
    assert ids(mesh_utils.create_device_mesh((2, 2), toys)) == [[0, 1], [2, 3]]
  finally:
    mesh_utils.device_kind_handler_dict.pop("toy", None)
