"""Meshes, partition specs and named shardings (``xjax.sharding``): the descriptions JAX code
builds and inspects, with the reprs and answers of JAX 0.10.2 (taken from the reference)."""
import re

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax.sharding import AbstractMesh, AxisType, Mesh, NamedSharding, PartitionSpec as P


def test_partition_specs():
  assert repr(P()) == "P()" and repr(P("x")) == "P('x',)"
  assert repr(P("x", ("a", "b"), None)) == "P('x', ('a', 'b'), None)"
  assert P("x") == P("x") and P("x", None) != P("x") and P("x") != ("x",)
  assert len(P("x", None)) == 2 and P("x")[0] == "x" and xjax.P is P


def test_unconstrained_entries():
  import copy
  import pickle
  u = P.UNCONSTRAINED
  assert repr(u) == str(u) == "UNCONSTRAINED" and hash(u) == hash(P.UNCONSTRAINED)
  assert pickle.loads(pickle.dumps(u)) is u and copy.deepcopy(u) is u
  p = P("x", u, None)
  assert repr(p) == "P('x', UNCONSTRAINED, None)" and p.partitions == ("x", u, None)
  assert p.unreduced == p.reduced == frozenset()
  assert p.count(None) == 1 and p.index(u) == 1
  assert p.to_tangent_spec() == p.to_ct_spec() == p and p.to_lo() == [p]
  mesh = Mesh(np.array(xjax.devices()[:1]), ("x",))
  s = NamedSharding(mesh, P("x", u))   # an unconstrained dimension names no mesh axis
  assert s.shard_shape((4, 4)) == (4, 4)
  for what in ("in_shardings", "out_shardings"):   # only constraints take it (as JAX)
    with pytest.raises(ValueError, match=f"Unconstrained dims are not allowed when passed to "
                                         f"{what}: NamedSharding"):
      xjax.jit(lambda a: a, **{what: s})


def test_the_sharding_in_an_arrays_type_is_replicated():
  s = xjax.typeof(jnp.ones((2, 3))).sharding
  assert repr(s) == "NamedSharding(mesh=AbstractMesh((), axis_types=()), spec=P(None, None))"
  assert s.mesh.empty and not s.mesh.are_all_axes_explicit and s.mesh.size == 1


def test_meshes():
  m = xjax.make_mesh((1,), ("x",))
  assert repr(m) == "Mesh(axis_sizes=(1,), axis_names=('x',), axis_types=(Explicit,))"
  assert m.are_all_axes_explicit and dict(m.shape) == {"x": 1} and m.size == 1
  auto = Mesh(np.array(xjax.devices()).reshape(1), ("x",))
  assert auto.axis_types == (AxisType.Auto,) and not auto.are_all_axes_explicit
  assert repr(auto.abstract_mesh) == ("AbstractMesh('x': 1, axis_types=(Auto,), device_kind=cpu, "
                                      "num_cores=None, platform=cpu)")  # as JAX 0.10.2
  assert repr(AbstractMesh((2,), ("x",))) == "AbstractMesh('x': 2, axis_types=(Auto,))"
  with auto:
    assert xjax.sharding.get_abstract_mesh() == auto.abstract_mesh
  assert xjax.sharding.get_abstract_mesh().empty
  with pytest.raises(ValueError, match=r"Number of devices 1 must be >= the product of "
                                       r"mesh_shape \(2,\)"):
    xjax.make_mesh((2,), ("x",))


def test_make_mesh_signature_and_axis_types():
  """JAX 0.10.2's ``make_mesh(axis_shapes, axis_names, axis_types=None, *, devices=None)``:
  Explicit axes by default, one AxisType for all axes, or one per axis."""
  assert xjax.make_mesh((1,), ("x",)).axis_types == (AxisType.Explicit,)
  m = xjax.make_mesh((1, 1), ("x", "y"), (AxisType.Auto, AxisType.Explicit))
  assert m.axis_types == (AxisType.Auto, AxisType.Explicit)
  assert xjax.make_mesh((1,), ("x",), AxisType.Auto).axis_types == (AxisType.Auto,)
  m = xjax.make_mesh((1,), ("x",), axis_types=(AxisType.Manual,), devices=xjax.devices())
  assert str(m) == "Mesh('x': 1, axis_types=(Manual,))"
  with pytest.raises(ValueError, match=re.escape(
      "Number of axis names should match the number of axis_types. Got axis_names=('x',) "
      "and axis_types=(Auto, Auto)")):
    xjax.make_mesh((1,), ("x",), (AxisType.Auto, AxisType.Auto))
  with pytest.raises(TypeError):
    xjax.make_mesh((1,), ("x",), None, xjax.devices())  # devices is keyword-only


def test_named_shardings_and_placement():
  m = xjax.make_mesh((1,), ("x",))
  s = NamedSharding(m, P("x"))
  assert repr(s) == ("NamedSharding(mesh=Mesh('x': 1, axis_types=(Explicit,)), spec=P('x',), "
                     "memory_kind=device)")
  assert s.device_set == {xjax.devices()[0]} and s.is_fully_replicated
  assert s == NamedSharding(m, P("x")) and hash(s) == hash(NamedSharding(m, P("x")))
  y = xjax.device_put(np.arange(4.0), s)
  np.testing.assert_array_equal(y, np.arange(4.0))
  assert y.committed and y.devices() == {xjax.devices()[0]}


def test_layouts_and_formats():
  from xjax.experimental.layout import Format, Layout, with_layout_constraint
  s = xjax.sharding.SingleDeviceSharding(xjax.devices()[0])
  f = Format(Layout((1, 0)), s)
  assert repr(f) == ("Format(layout=Layout(major_to_minor=(1, 0), tiling=None, "
                     "sub_byte_element_size_in_bits=0), sharding=SingleDeviceSharding("
                     "device=CpuDevice(id=0), memory_kind=device))")
  assert Format() == Format() and Layout((0,)) == Layout((0,))
  assert hash(Layout((0,))) == hash(Layout((0,)))
  with pytest.raises(ValueError, match="Sharding has to be concrete"):
    Format(Layout((1, 0)))
  x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
  np.testing.assert_array_equal(
      xjax.jit(lambda x: with_layout_constraint(x, Layout((0, 1))))(x), x)


def test_arrays_placed_on_a_one_device_mesh_report_named_shardings_as_jax():
  # Values from JAX 0.10.2 on one CPU device: the placed sharding is kept; results of the
  # same shape keep it, other results are replicated over the mesh (P()).
  mesh = Mesh(np.array(xjax.devices()[:1]), ("data",))
  s = NamedSharding(mesh, P("data"))
  x = xjax.device_put(xjax.numpy.arange(8.0), s)
  assert x.sharding == s and x.committed is True
  assert (x + 1).sharding == s and xjax.jit(lambda a: a * 2)(x).sharding == s
  assert xjax.lax.with_sharding_constraint(x, s).sharding == s
  replicated = NamedSharding(mesh, P())
  assert x.sum().sharding == replicated
  assert x.reshape(2, 4).sharding == replicated
  assert xjax.jit(lambda a: a.sum())(x).sharding == replicated
  assert type(xjax.device_put(x, xjax.devices()[0]).sharding).__name__ == "SingleDeviceSharding"


def test_device_put_places_by_a_formats_sharding_and_device_assignments():
  from xjax.experimental.layout import Format, Layout
  d = xjax.devices()[0]
  s = xjax.sharding.SingleDeviceSharding(d)
  x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
  y = xjax.device_put(x, Format(Layout((1, 0)), s))
  assert y.committed and y.sharding == s
  np.testing.assert_array_equal(y, x)
  # JAX's private device orders, which orbax-checkpoint reads
  assert s._device_assignment == s._addressable_device_assignment == (d,)
  n = NamedSharding(xjax.make_mesh((1,), ("x",)), P("x"))
  assert n._device_assignment == n._addressable_device_assignment == (d,)


def test_mesh_axis_queries():
  from xjax.sharding import SingleDeviceSharding
  dev = xjax.devices()[0]
  m = Mesh(np.array([dev]), ("x",))
  m2 = Mesh(np.array([dev]).reshape(1, 1), ("x", "y"), axis_types=(AxisType.Explicit,
                                                                    AxisType.Manual))
  assert m.shape_tuple == (("x", 1),) and m2.shape_tuple == (("x", 1), ("y", 1))
  assert m.local_mesh is m and str(m.local_mesh) == "Mesh('x': 1, axis_types=(Auto,))"
  assert (m.are_all_axes_auto, m.are_all_axes_manual, m.are_all_axes_explicit) == (
      True, False, False)
  assert m.axis_sizes == (1,) and not m.is_multi_process and m.local_devices == [dev]
  assert (m.auto_axes, m.explicit_axes, m.manual_axes) == (("x",), (), ())
  assert (m2.auto_axes, m2.explicit_axes, m2.manual_axes) == ((), ("x",), ("y",))
  assert not m2.are_all_axes_explicit and not m2.are_all_axes_auto
  assert AbstractMesh((2, 3), ("a", "b")).shape_tuple == (("a", 2), ("b", 3))
  assert AbstractMesh((2,), ("a",), axis_types=AxisType.Manual).are_all_axes_manual


def test_partition_spec_update():
  assert P("x", None).update(partitions=("y",)) == P("y")
  assert P("x", None).update() == P("x", None)


def test_partition_spec_unreduced_and_reduced_axes_are_refused():
  """JAX's keywords: empty sets are the default; axes in them are xjax's
  NotImplementedError (its types have none), a non-set JAX's TypeError."""
  assert P("x", unreduced=set(), reduced=frozenset()) == P("x")
  assert P("x").unreduced == frozenset() and P("x").reduced == frozenset()
  for kwargs in ({"unreduced": {"y"}}, {"reduced": frozenset({"y"})}):
    with pytest.raises(NotImplementedError, match="no unreduced or reduced mesh axes"):
      P("x", **kwargs)
    with pytest.raises(NotImplementedError, match="no unreduced or reduced mesh axes"):
      P("x").update(**kwargs)
  with pytest.raises(TypeError, match="unreduced argument of PartitionSpec should of type"):
    P(unreduced="y")


def test_sharding_equivalence_and_addressable_indices():
  from xjax.sharding import Sharding, SingleDeviceSharding
  dev = xjax.devices()[0]
  m = Mesh(np.array([dev]), ("x",))
  ns, s = NamedSharding(m, P("x")), SingleDeviceSharding(dev)
  assert ns.addressable_devices_indices_map((4,)) == {dev: (slice(None),)}
  assert s.addressable_devices_indices_map((4, 2)) == {dev: (slice(None), slice(None))}
  assert ns.is_equivalent_to(NamedSharding(m, P()), 1) and ns.is_equivalent_to(s, 1)
  assert s.is_equivalent_to(ns, 1) and s.is_equivalent_to(s, 2) and ns.is_equivalent_to(ns, 2)
  assert ns.has_addressable_devices and s.has_addressable_devices
  with pytest.raises(AttributeError):
    ns.is_equivalent_to(3, 2)
  with pytest.raises(NotImplementedError, match="Subclasses should implement this method."):
    Sharding().devices_indices_map((2,))
