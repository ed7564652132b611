"""xjax.sharding's context and description names: get_mesh, use_abstract_mesh,
AbstractDevice, ManualAxisType, make_single_device_sharding (behaviour and messages of
JAX 0.10.2)."""
import copy
import dataclasses
import pickle

import numpy as np
import pytest

import xjax
from xjax import sharding

MESH = sharding.Mesh(np.array(xjax.devices()), ("x",))


def test_get_mesh_is_the_context_mesh():
  empty = sharding.get_mesh()
  assert empty.empty and empty.axis_names == () and empty.axis_sizes == ()
  with MESH:
    assert sharding.get_mesh() is MESH
  with pytest.raises(ValueError, match=r"`get_mesh` can only be used outside of `jax.jit`. "
                                       r"Maybe you want `jax.sharding.get_abstract_mesh\(\)`\?"):
    xjax.jit(lambda x: sharding.get_mesh())(1.0)


def test_use_abstract_mesh():
  n = len(xjax.devices())
  abstract = sharding.AbstractMesh((n,), ("x",))
  ctx = sharding.use_abstract_mesh(abstract)
  assert sharding.get_abstract_mesh().empty  # only inside the block
  with ctx:
    assert sharding.get_abstract_mesh() == abstract
    assert sharding.get_mesh().empty  # no concrete mesh
  assert sharding.get_abstract_mesh().empty
  with pytest.raises(ValueError, match="Expected mesh of type `jax.sharding.AbstractMesh`. "
                                       "Got type: "):
    sharding.use_abstract_mesh(MESH)
  with MESH:
    with pytest.raises(ValueError, match="use_abstract_mesh cannot change the size of the "
                                         "mesh"):
      with sharding.use_abstract_mesh(sharding.AbstractMesh((n + 1,), ("x",))):
        pass
    assert sharding.get_abstract_mesh() == MESH.abstract_mesh  # restored


def test_abstract_device():
  d = sharding.AbstractDevice("cpu", 2, "cpu")
  assert repr(d) == "AbstractDevice(device_kind=cpu, num_cores=2, platform=cpu)"
  assert d == sharding.AbstractDevice(device_kind="cpu", num_cores=2, platform="cpu")
  assert hash(d) == hash(sharding.AbstractDevice("cpu", 2, "cpu"))
  with pytest.raises(dataclasses.FrozenInstanceError):
    d.num_cores = 3


def test_manual_axis_type_is_interned():
  t = sharding.ManualAxisType(varying={"x"})
  assert t is sharding.ManualAxisType(varying=frozenset({"x"}))
  assert repr(t) == ("ManualAxisType(varying=frozenset({'x'}), unreduced=frozenset(), "
                     "reduced=frozenset())")
  assert t.update(varying=frozenset()) is sharding.ManualAxisType()
  assert pickle.loads(pickle.dumps(t)) is t and copy.deepcopy(t) is t
  with pytest.raises(ValueError, match="varying and unreduced cannot have common mesh axes. "
                                       "Got varying={'x'} and unreduced={'x'}"):
    sharding.ManualAxisType(varying={"x"}, unreduced={"x"})
  with pytest.raises(ValueError, match="varying and reduced cannot have common mesh axes"):
    sharding.ManualAxisType(varying={"x"}, reduced={"x"})


def test_make_single_device_sharding():
  device = xjax.devices()[0]
  s = sharding.make_single_device_sharding(device, memory_kind="device")
  assert s == sharding.SingleDeviceSharding(device)
  assert xjax.device_put(np.ones(3), s).sharding == s


def test_manual_axis_type_queries():
  t = sharding.ManualAxisType(varying={"x"}, reduced={"y"})
  assert t.to_ct_mat() is sharding.ManualAxisType(varying={"x"}, unreduced={"y"})
  assert t.vur == frozenset({"x", "y"})
  assert not t.empty and sharding.ManualAxisType().empty
  for axis_type, invarying in ((sharding.AxisType.Explicit, frozenset()),
                               (sharding.AxisType.Manual, frozenset({"y"}))):
    mesh = sharding.AbstractMesh((2, 2), ("x", "y"), axis_types=(axis_type,) * 2)
    assert sharding.ManualAxisType(unreduced={"x"}).invarying(mesh) == invarying
