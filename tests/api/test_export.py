"""xjax.export: exported jitted functions (attributes, calls eager / under jit / under grad
through the exported VJP), serialization in JAX's flatbuffer format (round trips, blobs made
by JAX 0.10.2 in tests/data/export read and called, including shape-polymorphic ones, and
xjax's blobs checked in the reference JAX when one is configured), pytree registrations,
and the errors JAX 0.10.2 raises (messages as the reference's)."""
import collections
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import export
from xjax.tree_util import tree_leaves

from tests.checking import check

X = np.arange(6., dtype=np.float32).reshape(2, 3) / 5


def f(x, y):
  return jnp.sin(x) * y, {"s": x.sum()}


@pytest.fixture(scope="module")
def exp():
  return export.export(xjax.jit(f))(xjax.ShapeDtypeStruct((2, 3), np.float32), 2.)


def test_attributes(exp):
  assert exp.fun_name == "f"
  assert [str(a) for a in exp.in_avals] == ["float32[2,3]", "~float32[]"]
  assert [str(a) for a in exp.out_avals] == ["float32[2,3]", "float32[]"]
  assert str(exp.in_tree) == "PyTreeDef(((*, *), {}))"
  assert str(exp.out_tree) == "PyTreeDef((*, {'s': *}))"
  assert exp.platforms == ("cpu",) == (export.default_export_platform(),)
  assert exp.calling_convention_version == 10 and exp.nr_devices == 1
  assert exp.in_shardings_hlo == (None, None) and exp.out_shardings_hlo == (None, None)
  assert exp.module_kept_var_idx == (0, 1) and not exp.uses_global_constants
  assert exp.mlir_module_serialized.startswith(b"ML\xefR")  # a StableHLO portable artifact
  assert "stablehlo.sine" in exp.mlir_module() and "@main" in exp.mlir_module()
  assert (export.minimum_supported_calling_convention_version,
          export.maximum_supported_calling_convention_version) == (9, 10)


def test_call_eager_jit_and_grad(exp):
  check(tree_leaves(exp.call(X, 2.)), tree_leaves(f(X, 2.)), rtol=1e-6, atol=0)
  check(tree_leaves(xjax.jit(exp.call)(X, 3.)), tree_leaves(f(X, 3.)), rtol=1e-6, atol=0)
  jaxpr = str(xjax.make_jaxpr(exp.call)(X, 3.))
  assert "call_exported[" in jaxpr and "exported=Exported(fun_name=f, ...)" in jaxpr
  text = xjax.jit(lambda x: exp.call(x, 1.)[0] + exp.call(x, 2.)[0]).lower(X).as_text()
  assert text.count('sym_name = "call_exported_f"') == 1  # the program is added once
  g = xjax.grad(lambda x: exp.call(x, 2.)[0].sum())(X)
  np.testing.assert_allclose(g, 2 * np.cos(X), rtol=1e-6)
  vjp = exp.vjp()
  assert vjp.fun_name == "fun_vjp_jax" and len(vjp.in_avals) == 4 and len(vjp.out_avals) == 2
  sq = export.export(xjax.jit(lambda x: jnp.sin(x) * x))(1.)
  np.testing.assert_allclose(xjax.grad(xjax.grad(sq.call))(1.),
                             2 * np.cos(1.) - np.sin(1.), rtol=1e-6)
  with pytest.raises(NotImplementedError, match="Batching rule for 'call_exported'"):
    xjax.vmap(lambda x: exp.call(x, 2.))(np.ones((4, 2, 3), np.float32))


def test_serialization_round_trip(exp):
  blob = exp.serialize()
  assert isinstance(blob, bytearray)
  back = export.deserialize(blob)
  assert (back.fun_name, back.in_tree, back.out_tree) == (exp.fun_name, exp.in_tree,
                                                           exp.out_tree)
  # JAX's format keeps no weak types
  assert [str(a) for a in back.in_avals] == ["float32[2,3]", "float32[]"]
  assert back.out_avals == exp.out_avals and back.platforms == exp.platforms
  assert back.module_kept_var_idx == (0, 1) and back.nr_devices == 1
  check(tree_leaves(back.call(X, np.float32(2.))), tree_leaves(f(X, 2.)), rtol=1e-6, atol=0)
  assert not back.has_vjp()
  with pytest.raises(ValueError, match="No VJP is available"):
    xjax.grad(lambda x: back.call(x, np.float32(2.))[0].sum())(X)
  with_vjp = export.deserialize(bytes(exp.serialize(vjp_order=1)))
  np.testing.assert_allclose(
      xjax.grad(lambda x: with_vjp.call(x, np.float32(2.))[0].sum())(X), 2 * np.cos(X),
      rtol=1e-6)
  with pytest.raises(ValueError, match="does not have vjps of high-enough order"):
    back.serialize(vjp_order=1)


def test_deserialize_errors_as_reference(exp):
  for junk in (b"garbage", b"\0" * 64):
    with pytest.raises(ValueError, match="not a serialized Exported"):
      export.deserialize(junk)
  blob = bytearray(exp.serialize())
  root = int.from_bytes(blob[:4], "little")
  vtable = root - int.from_bytes(blob[root:root + 4], "little", signed=True)
  at = root + int.from_bytes(blob[vtable + 4:vtable + 6], "little")  # serialization_version
  assert int.from_bytes(blob[at:at + 2], "little") == 3  # what JAX 0.10.2 writes
  blob[at:at + 2] = (12).to_bytes(2, "little")
  with pytest.raises(NotImplementedError, match="deserialize unsupported version 12"):
    export.deserialize(blob)


def test_shardings_recorded_at_export_as_jax():
  # (JAX 0.10.2's shardings for the same exports over a one-device mesh)
  from xjax.sharding import AxisType, NamedSharding, PartitionSpec as P
  mesh = xjax.make_mesh((1,), ("a",), axis_types=(AxisType.Auto,))
  other = xjax.make_mesh((1,), ("b",), axis_types=(AxisType.Auto,))
  x = np.ones((4, 2), np.float32)
  exp = export.export(xjax.jit(lambda x, y: (x * 2, y), in_shardings=(
      NamedSharding(mesh, P("a")), None), out_shardings=(None, NamedSharding(mesh, P(None, "a")))
  ))(x, x)
  ins, outs = exp.in_shardings_jax(mesh), exp.out_shardings_jax(mesh)
  assert ins[1] is None and outs[0] is None
  assert ins[0] == NamedSharding(mesh, P("a")) and outs[1] == NamedSharding(mesh, P(None, "a"))
  assert repr(ins[0]) == ("NamedSharding(mesh=Mesh('a': 1, axis_types=(Auto,)), spec=P('a',), "
                          "memory_kind=device)")
  abstract = exp.in_shardings_jax(None)[0]   # over the abstract mesh exported with
  assert abstract.mesh == mesh.abstract_mesh and abstract.spec == P("a")
  assert exp.in_shardings_jax(mesh.abstract_mesh)[0].mesh == mesh.abstract_mesh
  with pytest.raises(ValueError, match="NamedSharding new mesh .* does not match the mesh "
                                       "used for export"):
    exp.in_shardings_jax(other)
  # a committed argument's own sharding; one device's is replicated over an empty mesh
  placed = xjax.device_put(x, NamedSharding(mesh, P("a")))
  assert export.export(xjax.jit(lambda x: x))(placed).in_shardings_jax(mesh) == (
      NamedSharding(mesh, P("a")),)
  on_device = export.export(xjax.jit(lambda x: x))(xjax.device_put(x, xjax.devices()[0]))
  (empty,) = on_device.in_shardings_jax(None)
  assert empty.mesh.empty and empty.spec == P(None, None)
  with pytest.raises(ValueError, match="does not match"):
    on_device.in_shardings_jax(mesh)
  unplaced = export.export(xjax.jit(lambda x: x))(x)
  assert unplaced.in_shardings_jax(mesh) == (None,) == unplaced.out_shardings_jax(mesh)
  with xjax.set_mesh(mesh):   # a bare PartitionSpec names the context mesh
    spec = export.export(xjax.jit(lambda x: x, in_shardings=P("a")))(x)
  assert spec.in_shardings_jax(mesh) == (NamedSharding(mesh, P("a")),)


def test_constants_statics_kwargs_and_nesting():
  big = np.arange(1000., dtype=np.float32)  # written into the program
  e = export.export(xjax.jit(lambda x: x + big))(np.zeros(1000, np.float32))
  assert export.deserialize(e.serialize()).call(np.ones(1000, np.float32))[-1] == 1000.
  e = export.export(xjax.jit(lambda x, n: x * n, static_argnums=1))(np.ones(2), 3)
  assert str(e.in_tree) == "PyTreeDef(((*,), {}))" and e.call(np.ones(2)).tolist() == [3, 3]
  e = export.export(xjax.jit(lambda x, *, k: x * k))(np.ones(2), k=np.float32(3))
  assert str(e.in_tree) == "PyTreeDef(((*,), {'k': *}))"
  assert export.deserialize(e.serialize()).call(np.ones(2, np.float32),
                                                k=np.float32(5)).tolist() == [5, 5]
  sq = export.export(xjax.jit(jnp.sin))(1.)
  outer = export.export(xjax.jit(lambda x: sq.call(x) + sq.call(2 * x)))(1.)
  np.testing.assert_allclose(export.deserialize(outer.serialize()).call(np.float32(1.)),
                             np.sin(1.) + np.sin(2.), rtol=1e-6)
  key = xjax.random.key(0)
  ek = export.export(xjax.jit(lambda k: xjax.random.uniform(k)))(key)
  assert ek.call(key) == xjax.random.uniform(key)
  with pytest.raises(ValueError, match="numeric dtypes only"):
    ek.serialize()


def test_call_errors_as_reference(exp):
  with pytest.raises(ValueError, match=r"Shape mismatch for args\[0\].shape\[1\] \(expected "
                                       r"same constant\): expected \(2, 3\) and called with "
                                       r"\(2, 4\)"):
    exp.call(np.ones((2, 4), np.float32), 2.)
  with pytest.raises(ValueError, match=r"Rank mismatch for args\[0\]: expected \(2, 3\) and "
                                       r"called with \(6,\)"):
    exp.call(np.ones(6, np.float32), 2.)
  with pytest.raises(ValueError, match=r"Dtype mismatch for args\[0\]: expected float32 and "
                                       "called with int32"):
    exp.call(np.ones((2, 3), np.int32), 2.)
  with pytest.raises(ValueError, match="must have the same pytree structure"):
    exp.call(X)
  tpu = export.export(xjax.jit(lambda x: x * 2), platforms=["tpu"])(np.ones(3, np.float32))
  with pytest.raises(ValueError, match=r"exported for platforms '\('tpu',\)' but it is used on "
                                       r"'\('cpu',\)'"):
    tpu.call(np.ones(3, np.float32))
  unchecked = export.export(xjax.jit(lambda x: x * 2), platforms=["tpu"], disabled_checks=[
      export.DisabledSafetyCheck.platform()])(np.ones(3, np.float32))
  assert export.deserialize(unchecked.serialize()).call(np.ones(3, np.float32)).tolist() == [2] * 3


def test_export_errors():
  with pytest.raises(ValueError, match="must be the result of `jit`"):
    export.export(lambda x: x)
  with pytest.raises(ValueError, match="Unsupported platform 'foo'"):
    export.export(xjax.jit(lambda x: x), platforms=["foo"])
  with pytest.raises(NotImplementedError, match="serialization of host_callbacks"):
    export.export(xjax.jit(lambda x: xjax.pure_callback(lambda v: v, x, x)))(1.)


Pair = collections.namedtuple("Pair", "a b")
Unregistered = collections.namedtuple("Unregistered", "a b")


class Box:
  def __init__(self, v, tag):
    self.v, self.tag = v, tag


# As tools/jax_export_blobs.py registers them in JAX (the blobs name them so).
xjax.tree_util.register_pytree_node(Box, lambda b: ((b.v,), b.tag), lambda tag, c: Box(c[0], tag))
export.register_namedtuple_serialization(Pair, serialized_name="xjax_tests.Pair")
export.register_pytree_node_serialization(
    Box, serialized_name="xjax_tests.Box", serialize_auxdata=lambda tag: tag.encode(),
    deserialize_auxdata=lambda b: b.decode())


def test_pytree_serialization_registrations():
  e = export.export(xjax.jit(lambda p: Unregistered(p.b, p.a)))(Unregistered(1., 2.))
  with pytest.raises(ValueError, match="unregistered type .*Unregistered.*"
                                       "register_namedtuple_serialization"):
    e.serialize()
  e = export.export(xjax.jit(lambda p: Pair(p.b, p.a)))(Pair(1., 2.))
  back = export.deserialize(e.serialize())
  assert back.out_tree == e.out_tree and back.call(Pair(5., 6.)) == Pair(6., 5.)
  with pytest.raises(ValueError, match="Duplicate serialization registration for type"):
    export.register_namedtuple_serialization(Pair, serialized_name="test_export.Pair2")
  eb = export.deserialize(export.export(xjax.jit(lambda b: Box(b.v * 2, b.tag)))(
      Box(1., "x")).serialize())
  out = eb.call(Box(3., "x"))
  assert isinstance(out, Box) and out.tag == "x" and out.v == 6.
  eo = export.export(xjax.jit(lambda d: d))(collections.OrderedDict(b=1., a=2.))
  assert export.deserialize(eo.serialize()).in_tree == eo.in_tree  # registered, as in JAX
  with pytest.raises(ValueError, match="Use `jax.export.register_pytree_node_serialization` "
                                       "for types other than `collections.namedtuple`"):
    export.register_namedtuple_serialization(Box, serialized_name="Box2")
  with pytest.raises(ValueError, match="If `from_children` is not present, you must call "
                                       "first`jax.tree_util.register_pytree_node`"):
    export.register_pytree_node_serialization(
        type("Plain", (), {}), serialized_name="t", serialize_auxdata=bytes,
        deserialize_auxdata=bytes)
  ei = export.export(xjax.jit(lambda d: d))({1: 1.})
  with pytest.raises(TypeError, match="only for dictionaries with string keys"):
    ei.serialize()


def test_shape_polymorphic_export_is_refused_and_safety_checks():
  # Symbolic shapes are traced (tests/api/test_symbolic_shapes.py) but not lowered.
  spec = export.symbolic_args_specs(X, "b, 3")
  for call in (lambda: export.export(xjax.jit(jnp.sin))(spec),
               lambda: xjax.jit(jnp.sin).lower(spec)):
    with pytest.raises(NotImplementedError, match=r"symbolic \(shape-polymorphic\).*f32\[b,3\]"
                                                  r".*ShapeDtypeStruct"):
      call()
  assert export.is_symbolic_dim(3) is False
  cc = export.DisabledSafetyCheck.custom_call("foo")
  assert str(cc) == repr(cc) == "custom_call:foo" and cc.is_custom_call() == "foo"
  assert export.DisabledSafetyCheck.platform().is_custom_call() is None
  assert export.DisabledSafetyCheck.platform() == export.DisabledSafetyCheck.platform()


DATA = Path(__file__).resolve().parent.parent / "data" / "export"


def _jax_blob(name: str):
  return export.deserialize((DATA / f"jax_{name}.bin").read_bytes())


def test_reads_jax_blobs():
  e = _jax_blob("pytrees")
  assert [str(a) for a in e.in_avals] == ["float32[2,3]", "float32[3]", "int32[3]", "bool[4]",
                                          "bfloat16[2]", "float32[]", "float32[]",
                                          "float32[2]"]
  t = (X, np.arange(3, dtype=np.float32))
  l = [np.arange(3, dtype=np.int32), None]
  d = {"a": np.array([True, False, True, False]), "b": np.array([1.5, -2], jnp.bfloat16)}
  out = e.call(t, l, d, Pair(np.float32(2), np.float32(3)), Box(np.ones(2, np.float32), "tag"))
  assert sorted(out) == ["bf", "box", "flags", "ints", "pair", "sum"]
  check(out["sum"], X * 2 + t[1])
  check(out["ints"][0], l[0] + 1)
  assert out["ints"][1] is None and isinstance(out["pair"], Pair)
  check(out["flags"], ~d["a"])
  check(out["bf"], d["b"] * 2, dtype=d["b"].dtype)  # (NumPy 2.0 promotes bf16 * 2 to f32)
  check(tuple(out["pair"]), (np.float32(5), np.float32(6)))
  assert isinstance(out["box"], Box) and out["box"].tag == "tag"
  check(out["box"].v, np.full(2, 3, np.float32))

  x = np.linspace(-1, 2, 3, dtype=np.float32)
  v = _jax_blob("vjp")
  assert v.has_vjp() and v.vjp().fun_name == "fun_vjp_jax"
  check(v.call(x), np.sin(x) * x, rtol=1e-6)
  check(xjax.grad(lambda x: v.call(x).sum())(x), np.cos(x) * x + np.sin(x), rtol=1e-5)
  check(xjax.jit(lambda x: v.call(x) * 2)(x), 2 * np.sin(x) * x, rtol=1e-6)

  mp = _jax_blob("multi_platform")  # takes a platform index first: xjax passes cpu's, 0
  assert mp.platforms == ("cpu", "cuda")
  assert "_platform_index" in mp.mlir_module()
  check(mp.call(np.ones(4, np.float32)), np.cos(np.ones(4, np.float32)) + 1, rtol=1e-6)
  tpu = _jax_blob("tpu_unchecked")
  assert tpu.disabled_safety_checks == (export.DisabledSafetyCheck.platform(),)
  check(tpu.call(x), x * 2)
  kv = _jax_blob("kept_vars")  # JAX drops the unused argument from the program
  assert kv.module_kept_var_idx == (0, 2)
  check(kv.call(np.ones(2, np.float32), np.zeros(5, np.int32), np.full(2, 3, np.float32)),
        np.full(2, 3, np.float32))

  one = _jax_blob("sharded_one_device")  # a mesh of one device: shardings are that device
  assert one.nr_devices == 1 and one.in_shardings_hlo == (None,)
  assert "sdy.mesh" in one.mlir_module()
  x4 = np.linspace(-1, 2, 4, dtype=np.float32)
  check(one.call(x4), x4 * 2 + 1)
  check(xjax.jit(lambda x: one.call(x) - 1)(x4), x4 * 2)

  f64 = _jax_blob("f64")
  assert [str(a) for a in f64.in_avals] == ["float64[3]", "int64[]"]
  with pytest.raises(ValueError, match="Dtype mismatch for args\\[0\\]: expected float64 and "
                                       "called with float32"):
    f64.call(np.ones(3), np.int64(2))  # without x64 the arguments are 32-bit
  xjax.config.update("jax_enable_x64", True)
  try:
    y, n = f64.call(np.array([1.5, 2., 1e-20]), np.int64(2 ** 40))
    check(y, np.array([2.25, 4., 1e-40]), rtol=1e-15, atol=0)
    assert y.dtype == np.float64 and int(n) == 3 * 2 ** 40
  finally:
    xjax.config.update("jax_enable_x64", False)


def test_reads_jax_shape_polymorphic_blobs():
  e = _jax_blob("poly_b4")
  assert [str(a) for a in e.in_avals] == ["float32[b,4]"]
  assert [str(a) for a in e.out_avals] == ["float32[b,4]", "float32[4]"]
  b = e.in_avals[0].shape[0]
  assert export.is_symbolic_dim(b) and str(b) == "b" and b.variables() == {"b"}
  for rows in (1, 3, 7):
    x = np.arange(rows * 4, dtype=np.float32).reshape(rows, 4) / 10
    check(e.call(x), (np.sin(x) * 2, x.sum(0)), rtol=1e-5)
    check(xjax.jit(e.call)(x), (np.sin(x) * 2, x.sum(0)), rtol=1e-5)
  x = np.ones((5, 4), np.float32)
  check(xjax.grad(lambda x: e.call(x)[0].sum())(x), 2 * np.cos(x), rtol=1e-6)
  with pytest.raises(ValueError, match=r"Shape mismatch for args\[0\].shape\[1\] \(expected "
                                       r"same constant\): expected \(b, 4\) and called with "
                                       r"\(3, 5\)"):
    e.call(np.ones((3, 5), np.float32))
  with pytest.raises(ValueError, match=r"Rank mismatch for args\[0\]: expected \(b, 4\) and "
                                       r"called with \(3,\)"):
    e.call(np.ones(3, np.float32))
  with pytest.raises(ValueError, match=r"Expected value >= 1 for dimension variable 'b'\. "
                                       r"Using the following polymorphic shapes specifications: "
                                       r"args\[0\].shape = \(b, 4\)\. Obtained dimension "
                                       r"variables: 'b' = 0 from specification 'b' for "
                                       r"dimension args\[0\].shape\[0\] \(= 0\), \."):
    e.call(np.ones((0, 4), np.float32))

  c = _jax_blob("poly_constraint")  # b >= 2, checked by the program's shape assertion
  assert [str(a) for a in c.out_avals] == ["float32[b - 1,4]"]
  x = np.arange(12, dtype=np.float32).reshape(3, 4) ** 2
  check(c.call(x), x[1:] - x[:-1])
  with pytest.raises(ValueError, match="Error refining shapes.*symbolic shape constraint "
                                       "b >= 2.*but found -1"):
    c.call(np.ones((1, 4), np.float32))

  ab = _jax_blob("poly_ab")
  assert [str(a) for a in ab.in_avals] == ["float32[a,b]", "float32[a*b + 1]"]
  assert [str(a) for a in ab.out_avals] == ["float32[b,a]", "float32[2*a*b + 1]"]
  x, y = np.arange(6, dtype=np.float32).reshape(2, 3), np.arange(7, dtype=np.float32)
  check(ab.call(x, y), (x.T, np.concatenate([x.ravel(), y])))
  with pytest.raises(ValueError, match=r"Found inconsistency between dimension size "
                                       r"args\[1\].shape\[0\] \(= 6\) and the specification "
                                       r"'a\*b \+ 1' \(= 7\)"):
    ab.call(x, y[:6])


def test_serialized_symbolic_dimensions():
  from functools import partial
  from xjax._src.api.export.shape_poly import parse_dim
  parse_dim = partial(parse_dim, scope=export.SymbolicScope())
  assert parse_dim("4") == 4 and parse_dim(" -1") == -1
  d = parse_dim("2*a*b + 3")
  assert str(d) == "2*a*b + 3" and d == parse_dim("3 + b*a*2") and d != parse_dim("2*a*b")
  assert d.evaluate({"a": 2, "b": 5}) == 23 and hash(d) == hash(parse_dim("b*2*a + 3"))
  assert parse_dim("- a + 3").evaluate({"a": 1}) == 2 and parse_dim("a^2") == parse_dim("a*a")
  assert parse_dim("floordiv(a, 2) + mod(b, 3)").evaluate({"a": 7, "b": 5}) == 5
  assert parse_dim("max(a, b) - min(a, 2)").evaluate({"a": 1, "b": 4}) == 3
  assert parse_dim("a - a + 2") == 2 and not export.is_symbolic_dim(parse_dim("7"))
  with pytest.raises(ValueError, match="syntax error in symbolic dimension"):
    parse_dim("a +")


def _xjax_cases() -> dict:
  """name -> (Exported, flat arguments, VJP order): what xjax writes for JAX to read."""
  def trees(t, d, p):
    return {"s": t[0] * 2 + t[1], "l": [d["i"] + 1, None], "f": ~d["f"], "b": d["b"] * 2,
            "p": Pair(p.a * p.b, p.a - p.b)}
  t = (X, np.arange(3, dtype=np.float32))
  d = {"i": np.arange(3, dtype=np.int32), "f": np.array([True, False]),
       "b": np.array([1.5, 3], jnp.bfloat16)}
  p = Pair(np.float32(2), np.float32(3))
  x = np.linspace(-1, 2, 3, dtype=np.float32)
  poly = _jax_blob("poly_b4")
  return {
      "xjax_pytrees": (export.export(xjax.jit(trees))(t, d, p), tree_leaves((t, d, p)), 0),
      "xjax_vjp": (export.export(xjax.jit(lambda x: jnp.sin(x) * x))(x), [x], 1),
      "xjax_multi_platform": (export.export(xjax.jit(lambda x, *, k: jnp.cos(x) * k),
                                            platforms=("cpu", "cuda"))(x, k=np.float32(3)),
                              [x, np.float32(3)], 0),
      # a polymorphic JAX export, read and written again by xjax
      "xjax_reserialized_poly": (export.deserialize(poly.serialize(vjp_order=1)),
                                 [np.ones((3, 4), np.float32)], 1),
  }


def write_xjax_cases(folder: Path) -> list[str]:
  """Writes each case's blob and its arguments, results (and VJP values) for
  tests/data/export/check_in_jax.py."""
  folder.mkdir(parents=True, exist_ok=True)
  for name, (e, args, vjp_order) in _xjax_cases().items():
    blob = export.deserialize(e.serialize(vjp_order))  # as JAX will read it
    outs = tree_leaves(blob.call(*blob.in_tree.unflatten(args)[0],
                                 **blob.in_tree.unflatten(args)[1]))
    arrays = {f"in_{i}": np.asarray(a, np.float32 if a.dtype == jnp.bfloat16 else None)
              for i, a in enumerate(args)}
    arrays.update({f"out_{i}": np.asarray(o, np.float32 if o.dtype == jnp.bfloat16 else None)
                   for i, o in enumerate(outs)})
    if vjp_order:
      cts = [np.ones(o.shape, o.dtype) for o in outs]
      arrays.update({f"ct_{i}": c for i, c in enumerate(cts)})
      arrays.update({f"vjp_{i}": np.asarray(g)
                     for i, g in enumerate(blob.vjp().call(*args, *cts))})
    (folder / f"{name}.bin").write_bytes(bytes(e.serialize(vjp_order)))
    np.savez(folder / f"{name}.npz", **arrays)
  return sorted(_xjax_cases())


def _reference_python() -> str | None:
  ref = os.environ.get("XJAX_REFERENCE_PYTHON")
  if ref:
    return ref
  return "/tmp/ref/bin/python" if os.path.exists("/tmp/ref/bin/python") else None


def test_jax_reads_xjax_blobs(tmp_path):
  names = write_xjax_cases(tmp_path)
  ref = _reference_python()
  if ref is None:
    pytest.skip("no reference JAX interpreter: set XJAX_REFERENCE_PYTHON to a Python with "
                "jax 0.10.2 and flatbuffers to check xjax's blobs in JAX")
  run = subprocess.run([ref, str(DATA / "check_in_jax.py"), str(tmp_path)],
                       capture_output=True, text=True, timeout=600)
  assert run.returncode == 0, run.stdout + run.stderr
  for name in names:
    assert f"{name}: OK" in run.stdout, run.stdout


def test_committed_xjax_blobs_still_read():
  """The blobs in tests/data/export/xjax (checked once in JAX 0.10.2 with check_in_jax.py)
  still deserialize and give their recorded results."""
  blobs = sorted((DATA / "xjax").glob("*.bin"))
  assert len(blobs) == 4
  for blob in blobs:
    data = np.load(blob.with_suffix(".npz"))
    e = export.deserialize(blob.read_bytes())
    args = [data[f"in_{i}"].astype(a.dtype) for i, a in enumerate(e.in_avals)]
    a, k = e.in_tree.unflatten(args)
    got = tree_leaves(e.call(*a, **k))
    check([np.asarray(g, np.float32) for g in got],
          [data[f"out_{i}"].astype(np.float32) for i in range(len(got))])
