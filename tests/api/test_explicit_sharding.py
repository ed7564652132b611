"""JAX's explicit-sharding API on one device: set_mesh, reshard, auto_axes/explicit_axes,
smap, bare PartitionSpecs under a context mesh, and the auto_pcast /
remove_size_one_mesh_axis_from_type flags of shard_map's check_vma -- values, shardings
and errors as JAX 0.10.2 gives them on one CPU device."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax
from xjax.sharding import AxisType, NamedSharding, PartitionSpec as P

X = jnp.arange(4.)
X2 = jnp.arange(8.).reshape(2, 4)


def _mesh(*types):
  return xjax.make_mesh((1,) * len(types), ("i", "j")[:len(types)], axis_types=types)


EXPLICIT, AUTO = _mesh(AxisType.Explicit), _mesh(AxisType.Auto)


def test_set_mesh_context_and_global():
  assert xjax.sharding.get_abstract_mesh().empty
  with xjax.set_mesh(EXPLICIT) as m:
    assert m is None
    assert xjax.sharding.get_mesh() == EXPLICIT
    assert xjax.sharding.get_abstract_mesh() == EXPLICIT.abstract_mesh
    with xjax.set_mesh(None):
      assert xjax.sharding.get_abstract_mesh().empty
    assert xjax.sharding.get_abstract_mesh() == EXPLICIT.abstract_mesh
  assert xjax.sharding.get_abstract_mesh().empty
  setter = xjax.sharding.set_mesh(EXPLICIT)  # a global setter too
  try:
    assert xjax.sharding.get_abstract_mesh() == EXPLICIT.abstract_mesh
  finally:
    setter.__exit__(None, None, None)
  assert xjax.sharding.get_abstract_mesh().empty


def test_mesh_contexts_remember_the_meshes_they_replace():
  # (as JAX 0.10.2, where a context nothing set before reads an opaque sentinel)
  other = xjax.make_mesh((1,), ("y",), axis_types=(AxisType.Auto,))
  with xjax.set_mesh(EXPLICIT):
    inner = xjax.set_mesh(other)
    assert inner.prev_mesh is EXPLICIT and inner.prev_abstract_mesh == EXPLICIT.abstract_mesh
    with inner:
      cleared = xjax.set_mesh(None)
      assert cleared.prev_mesh is other
      with cleared:
        again = xjax.set_mesh(EXPLICIT)
        assert again.prev_mesh.empty and again.prev_abstract_mesh.empty
        again.__exit__(None, None, None)
    use = xjax.sharding.use_abstract_mesh(other.abstract_mesh)
    with pytest.raises(AttributeError):
      use.prev   # set on entering
    with use:
      assert use.prev == EXPLICIT.abstract_mesh
    assert use.prev == EXPLICIT.abstract_mesh
  assert {"prev_mesh", "prev_abstract_mesh"} <= set(dir(xjax.set_mesh))
  assert "prev" in dir(xjax.sharding.use_abstract_mesh)


def test_set_mesh_errors_as_jax():
  with pytest.raises(ValueError, match="Expected mesh of type `jax.sharding.Mesh`. Got "
                                       "<class 'int'>"):
    xjax.set_mesh(3)
  with pytest.raises(ValueError, match="`set_mesh` can only be used outside of `jax.jit`"):
    xjax.jit(lambda a: xjax.set_mesh(EXPLICIT) and a)(X)
  with pytest.raises(ValueError, match="contains manual axes"):
    xjax.set_mesh(_mesh(AxisType.Manual))


def test_bare_partition_specs_under_set_mesh():
  with pytest.raises(ValueError, match="Please set a mesh via `jax.set_mesh`"):
    xjax.device_put(X, P("i"))
  with pytest.raises(RuntimeError, match="jit requires a non-empty mesh in context"):
    xjax.jit(lambda a: a, out_shardings=P("i"))(X)
  f = xjax.jit(lambda a: a * 2, in_shardings=P("i"), out_shardings=P())
  with xjax.set_mesh(EXPLICIT):
    y = xjax.device_put(X, P("i"))
    assert y.sharding == NamedSharding(EXPLICIT, P("i"))
    np.testing.assert_array_equal(y, X)
    np.testing.assert_array_equal(f(X), [0., 2., 4., 6.])
    with pytest.raises(ValueError, match="Resource axis: j of P\\('j',\\) is not found"):
      xjax.device_put(X, P("j"))


def test_reshard_values_shardings_and_transformations():
  with xjax.set_mesh(EXPLICIT):
    y = xjax.reshard(X, P("i"))
    np.testing.assert_array_equal(y, X)
    assert y.sharding == NamedSharding(EXPLICIT, P("i"))
    assert xjax.reshard(X, P(None)).sharding.spec == P(None)
    np.testing.assert_array_equal(xjax.jit(lambda a: xjax.reshard(a, P()) * 2)(y),
                                  [0., 2., 4., 6.])
    np.testing.assert_array_equal(xjax.vmap(lambda a: xjax.reshard(a, P()))(jnp.ones((3, 4))),
                                  np.ones((3, 4)))
    np.testing.assert_array_equal(xjax.grad(lambda a: xjax.reshard(a, P("i")).sum())(X),
                                  np.ones(4))
  ns = NamedSharding(EXPLICIT, P("i"))
  assert xjax.reshard(X, ns).sharding == ns
  assert xjax.reshard(jnp.ones((4, 5)), ns).sharding.spec == P("i", None)
  a, b = xjax.reshard([X, X], [NamedSharding(EXPLICIT, P()), ns])
  assert b.sharding == ns
  s = xjax.reshard(3., NamedSharding(EXPLICIT, P()))
  assert float(s) == 3. and s.weak_type


def test_reshard_errors_as_jax():
  with pytest.raises(ValueError, match="Reshard should only be used with out_shardings which "
                                       "are non-None"):
    xjax.reshard(X, None)
  with pytest.raises(ValueError, match="cannot contain axis names that are of type Auto or "
                                       "Manual. Got PartitionSpec: P\\('i',\\) with axis name: "
                                       "i of type: AxisType.Auto"):
    xjax.reshard(X, NamedSharding(AUTO, P("i")))
  with pytest.raises(ValueError, match="Using PartitionSpec when you are not under a mesh "
                                       "context is not allowed"):
    xjax.reshard(X, P("i"))
  with pytest.raises(ValueError, match="tree prefix"):
    xjax.reshard([X, X], [NamedSharding(EXPLICIT, P())])


def test_auto_and_explicit_axes():
  seen = []

  def f(a):
    seen.append(xjax.sharding.get_abstract_mesh().axis_types)
    return a * 3

  with xjax.set_mesh(EXPLICIT):
    y = xjax.sharding.auto_axes(f, out_sharding=P("i"))(X)
    np.testing.assert_array_equal(y, [0., 3., 6., 9.])
    assert y.sharding == NamedSharding(EXPLICIT, P("i"))
    assert seen[-1] == (AxisType.Auto,)
    z = xjax.sharding.auto_axes(f)(X, out_sharding=P())   # out_sharding when calling
    assert z.sharding.spec == P(None)  # as JAX: the spec padded to the rank
    j = xjax.jit(lambda a: xjax.sharding.auto_axes(f, out_sharding=P("i"))(a))(X)
    np.testing.assert_array_equal(j, [0., 3., 6., 9.])
  with xjax.set_mesh(AUTO):
    w = xjax.sharding.explicit_axes(f, in_sharding=P("i"))(X)
    np.testing.assert_array_equal(w, [0., 3., 6., 9.])
    assert seen[-1] == (AxisType.Explicit,)
    assert w.sharding == NamedSharding(AUTO, P())
  y = xjax.sharding.auto_axes(f, out_sharding=NamedSharding(EXPLICIT, P("i")))(X)
  assert y.sharding == NamedSharding(EXPLICIT, P("i"))
  np.testing.assert_array_equal(xjax.sharding.auto_axes(f, out_sharding=P())(X),
                                [0., 3., 6., 9.])  # no mesh at all: f as it is
  with pytest.raises(TypeError, match="Missing required keyword argument: 'out_sharding'"):
    xjax.sharding.auto_axes(f)(X)
  with pytest.raises(TypeError, match="Missing required keyword argument: 'in_sharding'"):
    xjax.sharding.explicit_axes(f)(X)
  with pytest.raises(ValueError, match="Context mesh cannot be empty"):
    xjax.sharding.explicit_axes(f, in_sharding=P())(X)


def test_smap_values_as_jax():
  with xjax.set_mesh(AUTO):
    f = xjax.smap(lambda a: a * 2 + lax.axis_index("i"), in_axes=0, out_axes=0, axis_name="i")
    np.testing.assert_array_equal(f(X2), [[0., 2., 4., 6.], [8., 10., 12., 14.]])
    np.testing.assert_array_equal(
        xjax.smap(lambda a: lax.psum(a, "i"), in_axes=1, out_axes=None, axis_name="i")(X2), X2)
    np.testing.assert_array_equal(
        xjax.smap(lambda a, b: a + b, in_axes=(0, None), out_axes=1, axis_name="i")(
            X2, jnp.float32(1)), X2 + 1)
    np.testing.assert_array_equal(
        xjax.smap(lambda a: a * 3, in_axes=-1, out_axes=-1, axis_name="i")(X2), X2 * 3)
    jaxpr = str(xjax.make_jaxpr(xjax.smap(lambda a: a * 2, in_axes=0, out_axes=0,
                                          axis_name="i"))(X2))
    assert "in_specs=(P('i',),)" in jaxpr and "out_specs=(P('i',),)" in jaxpr
  with xjax.set_mesh(EXPLICIT):
    xs = xjax.reshard(X2, P("i"))
    np.testing.assert_array_equal(xjax.smap(lambda a: a * 2, out_axes=0, axis_name="i")(xs),
                                  X2 * 2)  # in_axes inferred from the sharding
  with xjax.set_mesh(_mesh(AxisType.Auto, AxisType.Auto)):
    np.testing.assert_array_equal(
        xjax.smap(lambda a: a * 2, in_axes=0, out_axes=0, axis_name="i")(X2), X2 * 2)


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(in_axes=0, out_axes=0, axis_name=("i",)), TypeError,
     "smap axis_name should be a `str` or a `Hashable`"),
    (dict(in_axes=[0], out_axes=0, axis_name="i"), TypeError, "smap in_axes must be an int"),
    (dict(in_axes=0.5, out_axes=0, axis_name="i"), TypeError, "smap in_axes must be an int"),
    (dict(in_axes=0, out_axes="a", axis_name="i"), TypeError, "smap out_axes must be an int"),
    (dict(in_axes=0, out_axes=0, axis_name="j"), ValueError,
     r"requires axis_names=frozenset\({'j'}\) to be a subset"),
    (dict(in_axes=(0, 0), out_axes=0, axis_name="i"), ValueError, "in_specs"),
    (dict(in_axes=3, out_axes=0, axis_name="i"), ValueError, "in_specs"),
    (dict(out_axes=0, axis_name="i"), TypeError,
     r"in_axes was not specified when axis_name=frozenset\({'i'}\) was of type AxisType.Auto"),
])
def test_smap_errors_as_jax(kwargs, error, message):
  with xjax.set_mesh(AUTO):
    with pytest.raises(error, match=message):
      xjax.smap(lambda a: a, **kwargs)(X2)


def test_smap_needs_a_context_mesh():
  with pytest.raises(ValueError, match="The context mesh cannot be empty"):
    xjax.smap(lambda a: a, in_axes=0, out_axes=0, axis_name="i")(X2)


def test_shard_map_takes_the_context_mesh_of_its_first_call():
  """JAX 0.10.2: a shard_map made without ``mesh=`` (a decorator at import) finds the
  context mesh when called; called outside one it raises JAX's ValueError."""
  f = xjax.shard_map(lambda a: xjax.lax.psum(a.sum(), "i"), in_specs=P("i"), out_specs=P())
  with pytest.raises(ValueError, match="The context mesh cannot be empty"):
    f(X)
  with xjax.set_mesh(AUTO):
    assert float(f(X)) == 6.0


def test_auto_pcast_flag_as_jax():
  assert xjax.auto_pcast.value is True and xjax.config.jax_auto_pcast is True
  f = xjax.shard_map(lambda x, y: x + y, mesh=AUTO, in_specs=(P("i"), P()), out_specs=P("i"))
  y = jnp.float32(2.)
  np.testing.assert_array_equal(f(X, y), [2., 3., 4., 5.])
  with xjax.auto_pcast(False):
    with pytest.raises(ValueError, match=r"Primitive add requires varying manual axes to "
                                         r"match, but got \[frozenset\({'i'}\), frozenset\(\)\]"):
      f(X, y)
    with pytest.raises(ValueError, match="Primitive mul requires varying manual axes"):
      xjax.shard_map(lambda x: x * 2., mesh=AUTO, in_specs=P("i"), out_specs=P("i"))(X)
    with pytest.raises(ValueError, match="Primitive gt requires varying manual axes"):
      xjax.shard_map(lambda x, y: jnp.where(x > 1, x, y), mesh=AUTO, in_specs=(P("i"), P()),
                     out_specs=P("i"))(X, y)
    g = xjax.shard_map(lambda x, y: x + y, mesh=AUTO, in_specs=(P("i"), P()),
                       out_specs=P("i"), check_vma=False)
    np.testing.assert_array_equal(g(X, y), [2., 3., 4., 5.])
    # an explicit cast to varying makes the operands match
    h = xjax.shard_map(lambda x, y: x + lax.pcast(y, "i", to="varying"), mesh=AUTO,
                       in_specs=(P("i"), P()), out_specs=P("i"))
    np.testing.assert_array_equal(h(X, y), [2., 3., 4., 5.])
    assert "pvary[axes=('i',)]" in str(xjax.make_jaxpr(h)(X, y))
  np.testing.assert_array_equal(f(X, y), [2., 3., 4., 5.])


def test_remove_size_one_mesh_axis_from_type_as_jax():
  assert xjax.remove_size_one_mesh_axis_from_type.value is False
  m = xjax.shard_map(lambda x: x * 2, mesh=AUTO, in_specs=P("i"), out_specs=P())
  with pytest.raises(ValueError, match="out_specs which require replication"):
    m(X)  # varying over 'i' (of size 1) but declared replicated
  with xjax.remove_size_one_mesh_axis_from_type(True):
    np.testing.assert_array_equal(m(X), [0., 2., 4., 6.])
    with xjax.auto_pcast(False):
      f = xjax.shard_map(lambda x, y: x + y, mesh=AUTO, in_specs=(P("i"), P()),
                         out_specs=P("i"))
      np.testing.assert_array_equal(f(X, jnp.float32(1.)), [1., 2., 3., 4.])


def test_asked_for_types_are_given_from_the_first_one():
  """A sharding asked for by ``out_sharding=`` types the result even when no sharded type was
  made before in the process; lax.broadcasted_iota and lax.broadcast take it (JAX 0.10.2:
  ``int32[4@i,2]``, ``float32[4@i,2]``)."""
  from xjax._src.core import avals
  before, avals.sharded_types[0] = avals.sharded_types[0], False
  try:
    with xjax.set_mesh(EXPLICIT):
      out = lax.broadcast_in_dim(jnp.ones(2), (4, 2), (1,), out_sharding=P("i"))
      assert str(xjax.typeof(out)) == "float32[4@i,2]"
      iota = lax.broadcasted_iota(jnp.int32, (4, 2), 0, out_sharding=P("i"))
      assert str(xjax.typeof(iota)) == "int32[4@i,2]"
      assert iota.tolist() == [[0, 0], [1, 1], [2, 2], [3, 3]]
      assert str(xjax.typeof(lax.broadcast(jnp.ones(2), (4,), out_sharding=P("i")))) == (
          "float32[4@i,2]")
    assert str(xjax.typeof(lax.broadcasted_iota(jnp.int32, (4, 2), 1))) == "int32[4,2]"
  finally:
    avals.sharded_types[0] = before or avals.sharded_types[0]


def test_with_sharding_constraint_names_auto_axes_only_as_jax():
  """A constraint over make_mesh's default (Explicit) axes, outside a mesh context, is JAX
  0.10.2's ValueError; over Auto axes, or naming none, it constrains."""
  wsc = xjax.lax.with_sharding_constraint
  explicit = xjax.make_mesh((1,), ("i",))
  auto = xjax.make_mesh((1,), ("i",), axis_types=(xjax.sharding.AxisType.Auto,))
  for f in (lambda a: wsc(a, NamedSharding(explicit, P("i"))),
            xjax.jit(lambda a: wsc(a, NamedSharding(explicit, P("i"))))):
    with pytest.raises(ValueError, match=r"^The spec of NamedSharding passed to "
                       r"with_sharding_constraint can only refer to Auto axes of the mesh\. "
                       r"Got spec=P\('i',\)"):
      f(jnp.ones(4))
  np.testing.assert_array_equal(wsc(jnp.ones(4), NamedSharding(explicit, P())), np.ones(4))
  out = xjax.jit(lambda a: wsc(a * 2, NamedSharding(auto, P("i"))))(jnp.ones(4))
  np.testing.assert_array_equal(out, np.full(4, 2.0))
  with pytest.raises(ValueError, match="cannot contain `P.UNCONSTRAINED` when no mesh "
                                       "axis_types are `Auto`"):
    NamedSharding(explicit, P(P.UNCONSTRAINED))


def test_out_sharding_types_results_over_a_mesh_of_one_device():
  """As JAX 0.10.2: over a one-device mesh an Explicit split is still in the type and the
  reported sharding (values unchanged), eagerly, under jit and in gradients."""
  with xjax.set_mesh(EXPLICIT):
    for make in (lambda: jnp.ones(4, out_sharding=P("i")),
                 lambda: jnp.arange(4.0, out_sharding=P("i")),
                 lambda: xjax.random.normal(xjax.random.key(0), (4,), out_sharding=P("i"))):
      a = make()
      assert str(xjax.typeof(a)) == "float32[4@i]"
      assert a.sharding == NamedSharding(EXPLICIT, P("i"))
    jitted = xjax.jit(lambda: jnp.zeros(4, out_sharding=P("i")))()
    assert str(xjax.typeof(jitted)) == "float32[4@i]"
    f = xjax.jit(lambda v: (v * 2, v + 1), out_shardings=(P("i"), None))
    laid, free = f(jnp.arange(4.0))
    assert str(xjax.typeof(laid)) == "float32[4@i]" and str(xjax.typeof(free)) == "float32[4]"
    assert laid.sharding == NamedSharding(EXPLICIT, P("i"))
    np.testing.assert_array_equal(laid, np.arange(4.0) * 2)
    assert str(xjax.typeof(jnp.zeros((2, 4), out_sharding=P(None, "i")))) == "float32[2,4@i]"
    g = xjax.grad(lambda a: xjax.reshard(a, P("i")).sum())(jnp.arange(4.0))
    np.testing.assert_array_equal(g, np.ones(4))


def test_results_under_set_mesh_are_placed_on_its_device():
  """JAX 0.10.2 on one CPU device: under ``set_mesh`` results of computations report the
  mesh (``P(None, ...)`` over Explicit axes, read from their types; ``P()`` over Auto ones
  and for ``jnp.array`` of host data) and are committed; ``device_put`` of host data without
  a target stays a SingleDeviceSharding, and outside the mesh nothing changes."""
  z = jnp.arange(2.)
  with xjax.set_mesh(EXPLICIT):
    x = jnp.arange(4.)
    assert x.sharding == NamedSharding(EXPLICIT, P(None)) and x.committed
    assert (x * 2).sharding.spec == P(None) and jnp.sum(x).sharding.spec == P()
    y = jnp.ones(4, out_sharding=P("i"))
    assert str(xjax.typeof(y)) == "float32[4@i]" and (y + 1).sharding.spec == P("i")
    assert str(xjax.typeof(y + x)) == "float32[4@i]" and jnp.sum(y).sharding.spec == P()
    assert jnp.array([1, 2]).sharding.spec == P()
    assert jnp.asarray(np.ones((2, 2))).sharding.spec == P()
    assert xjax.grad(lambda a: jnp.sum(a ** 2))(x).sharding.spec == P(None)
    assert xjax.vmap(jnp.sin)(x).sharding.spec == P(None) and x[1].sharding.spec == P()
    assert isinstance(xjax.device_put(np.ones(2)).sharding, xjax.sharding.SingleDeviceSharding)
    assert xjax.random.normal(xjax.random.key(0), (3,)).sharding.spec == P(None)
    assert (x > 1).sharding.spec == P(None) and (z + 1).sharding.spec == P(None)
    assert (z + 1).committed
    np.testing.assert_array_equal(x * 2, [0., 2., 4., 6.])
  with xjax.set_mesh(AUTO):
    assert jnp.arange(3.).sharding == NamedSharding(AUTO, P())
  assert not z.committed and isinstance((z + 1).sharding, xjax.sharding.SingleDeviceSharding)


def test_scan_over_a_leading_dimension_sharded_in_its_type_is_refused_as_jax():
  with xjax.set_mesh(EXPLICIT):
    x = xjax.device_put(jnp.arange(4.), P("i"))
    body = lambda c, r: (c + r, c)
    with pytest.raises(ValueError, match=r"^0th dimension of all xs should be replicated\. "
                       r"Got P\(.i.,\), P\(None,\)"):
      lax.scan(body, 0., [x, jnp.ones(4)])
    y = xjax.device_put(jnp.ones((4, 2)), P(None, "i"))   # (another dimension may be)
    assert float(lax.scan(lambda c, r: (c + r.sum(), c), 0., y)[0]) == 8.0


def test_with_sharding_constraint_of_a_spec_outside_a_mesh_is_a_runtime_error():
  """JAX 0.10.2 raises RuntimeError (not ValueError) for a bare PartitionSpec without a
  context mesh."""
  with pytest.raises(RuntimeError, match="with_sharding_constraint requires a non-empty mesh "
                                         "in context if you are passing `PartitionSpec`s"):
    xjax.jit(lambda a: xjax.lax.with_sharding_constraint(a, P("i")))(X)
