"""xjax.export: exported jitted functions (attributes, calls eager / under jit / under grad
through the exported VJP), serialization in JAX's flatbuffer format (round trips, blobs made
by JAX 0.10.2 in tests/data/export read and called, including shape-polymorphic ones, and
xjax's blobs checked in the reference JAX when one is configured), pytree registrations,
and the errors JAX 0.10.2 raises (messages as the reference's)."""
import collections
import os
import subprocess
import sys
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
  with pytest.raises(ValueError, match="unregistered type .*OrderedDict"):
    eo.serialize()
  ei = export.export(xjax.jit(lambda d: d))({1: 1.})
  with pytest.raises(TypeError, match="only for dictionaries with string keys"):
    ei.serialize()


def test_shape_polymorphism_is_refused_and_safety_checks():
  for call in (lambda: export.symbolic_shape("b, 4"), lambda: export.SymbolicScope(),
               lambda: export.symbolic_args_specs(X, "b, 3")):
    with pytest.raises(NotImplementedError, match="shape polymorphism.*ShapeDtypeStruct"):
      call()
  assert export.is_symbolic_dim(3) is False
  cc = export.DisabledSafetyCheck.custom_call("foo")
  assert str(cc) == repr(cc) == "custom_call:foo" and cc.is_custom_call() == "foo"
  assert export.DisabledSafetyCheck.platform().is_custom_call() is None
  assert export.DisabledSafetyCheck.platform() == export.DisabledSafetyCheck.platform()
