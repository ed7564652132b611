"""Mesh, AbstractMesh and sharding methods libraries call (``update``, ``is_scalar``,
``with_memory_kind``, ``check_compatible_aval``, ``replicated_axes``), against results and
errors recorded from JAX 0.10.2 on CPU."""
import numpy as np
import pytest

import xjax
from xjax.sharding import (AbstractMesh, AxisType, Mesh, NamedSharding, PartitionSpec as P,
                           Sharding, SingleDeviceSharding)

CPU_KINDS = ("Could not find memory addressable by device cpu. Device cpu can address the "
             "following memory kinds: device, pinned_host, unpinned_host. Got memory kind: foo")


def _mesh(names=("x",)):
  return Mesh(np.array(xjax.devices()[:1]).reshape((1,) * len(names)), names)


def test_mesh_axis_sizes_is_scalar_update():
  m = _mesh()
  assert isinstance(Mesh.axis_sizes, property) and m.axis_sizes == (1,)
  assert m.is_scalar is False
  scalar = Mesh(np.array(xjax.devices()[0]), ())
  assert (scalar.is_scalar, scalar.axis_sizes, scalar.devices.shape) == (True, (), ())
  assert m.update() == m
  renamed = m.update(axis_names=("y",))
  assert renamed.axis_names == ("y",) and renamed.axis_types == (AxisType.Auto,)
  typed = m.update(axis_types=(AxisType.Explicit,))
  assert typed.axis_types == (AxisType.Explicit,) and typed.axis_names == ("x",)
  assert m.update(devices=np.array(xjax.devices()[:1])) == m
  with pytest.raises(TypeError, match="unexpected keyword argument 'foo'"):
    m.update(foo=1)


def test_abstract_mesh_update_and_missing_devices():
  am = AbstractMesh((2,), ("x",))
  assert am.update(axis_sizes=(4,)).axis_sizes == (4,)
  assert am.update_axis_types({"x": AxisType.Explicit}).axis_types == (AxisType.Explicit,)
  assert am.update_axis_types({}).axis_types == (AxisType.Auto,)
  concrete = _mesh().abstract_mesh
  assert concrete.update(axis_names=("y",)).abstract_device is concrete.abstract_device
  for name in ("devices", "device_ids", "is_multi_process", "local_devices", "local_mesh"):
    with pytest.raises(ValueError, match=f"AbstractMesh does not implement {name}"):
      getattr(am, name)
  assert not hasattr(am, "is_scalar")  # (JAX's abstract meshes have none either)


def test_named_sharding_memory_kind_and_with_memory_kind():
  m = _mesh()
  s = NamedSharding(m, P("x"))
  assert s.memory_kind == "device"
  assert isinstance(NamedSharding.mesh, property) and s.mesh is m and s.spec == P("x")
  same = s.with_memory_kind("device")
  assert same == s and same.memory_kind == "device"
  assert repr(same) == ("NamedSharding(mesh=Mesh('x': 1, axis_types=(Auto,)), spec=P('x',), "
                        "memory_kind=device)")
  with pytest.raises(ValueError) as e:
    s.with_memory_kind("foo")
  assert str(e.value) == CPU_KINDS
  with pytest.raises(ValueError):
    NamedSharding(m, P(), memory_kind="foo")
  # memory JAX has but xjax does not place arrays in
  for kind in ("pinned_host", "unpinned_host"):
    with pytest.raises(NotImplementedError, match="device memory only"):
      s.with_memory_kind(kind)


def test_abstract_named_sharding_memory_kind():
  am = _mesh().abstract_mesh
  s = NamedSharding(am, P())
  assert s.memory_kind is None
  d = s.with_memory_kind("device")
  assert d.memory_kind == "device" and d != s  # (JAX: unequal too)
  assert repr(d).endswith("spec=P(), memory_kind=device)")


def test_single_device_sharding_with_memory_kind():
  dev = xjax.devices()[0]
  s = SingleDeviceSharding(dev)
  for kind in ("device", None):
    out = s.with_memory_kind(kind)
    assert isinstance(out, SingleDeviceSharding) and out == s
    assert repr(out) == "SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device)"
  with pytest.raises(ValueError) as e:
    SingleDeviceSharding(dev, memory_kind="foo")
  assert str(e.value) == CPU_KINDS
  with pytest.raises(NotImplementedError):
    s.with_memory_kind("pinned_host")
  with pytest.raises(NotImplementedError):  # (JAX's base class: the same)
    Sharding.with_memory_kind(s, "device")


def test_check_compatible_aval():
  s = NamedSharding(_mesh(), P("x"))
  assert s.check_compatible_aval((4,)) is None
  assert s.check_compatible_aval((3,)) is None  # (divisibility is not checked here)
  with pytest.raises(ValueError) as e:
    s.check_compatible_aval(())
  assert str(e.value) == (
      "Sharding NamedSharding(mesh=Mesh('x': 1, axis_types=(Auto,)), spec=P('x',), "
      "memory_kind=device) is only valid for values of rank at least 1, but was applied to a "
      "value of rank 0. For scalars the PartitionSpec should be P()")
  s2 = NamedSharding(_mesh(("x", "y")), P("x", "y"))
  with pytest.raises(ValueError, match=r"rank at least 2, but was applied to a value of "
                                       r"rank 1\.$"):
    s2.check_compatible_aval((4,))
  assert SingleDeviceSharding(xjax.devices()[0]).check_compatible_aval((3, 2)) is None


def test_replicated_axes():
  m2 = _mesh(("x", "y"))
  assert NamedSharding(_mesh(), P("x")).replicated_axes == frozenset()
  assert NamedSharding(m2, P(("x",), None)).replicated_axes == frozenset({"y"})
  assert NamedSharding(m2, P()).replicated_axes == frozenset({"x", "y"})
  assert NamedSharding(m2, P(P.UNCONSTRAINED, "y")).replicated_axes == frozenset({"x"})
