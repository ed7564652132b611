"""``jax.memory.Space`` and ``device_put`` to a memory space, as JAX 0.10.2 on CPU (device
memory; the host space is not supported by xjax, see docs/differences.md)."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp

S = xjax.memory.Space
X = jnp.arange(4.)


def test_enum_as_jax():
  assert [(s.name, s.value) for s in S] == [("Device", 1), ("Host", 2), ("Any", 3)]
  assert repr(S.Device) == str(S.Device) == "MemorySpace.Device"
  assert xjax.typeof(X).memory_space is S.Device


def test_device_put_to_device_memory():
  y = xjax.device_put(X, S.Device)
  np.testing.assert_array_equal(y, X)
  assert y.committed and y.sharding.memory_kind == "device"
  a, b = xjax.device_put([X, 1.], S.Device)
  assert float(b) == 1. and b.weak_type
  np.testing.assert_array_equal(xjax.device_put(np.arange(3), S.Device), [0, 1, 2])
  assert str(xjax.make_jaxpr(lambda a: xjax.device_put(a, S.Device))(X)) == """\
{ lambda ; a:f32[4]. let
    b:f32[4] = device_put[
      copy_semantics=(ArrayCopySemantics.REUSE_INPUT,)
      devices=(MemorySpace.Device,)
      srcs=(None,)
    ] a
  in (b,) }"""
  np.testing.assert_array_equal(xjax.jit(lambda a: xjax.device_put(a, S.Device) + 1)(X),
                                [1., 2., 3., 4.])
  np.testing.assert_array_equal(
      xjax.grad(lambda a: xjax.device_put(a, S.Device).sum())(X), np.ones(4))
  np.testing.assert_array_equal(xjax.vmap(lambda a: xjax.device_put(a, S.Device))(X), X)


def test_other_spaces():
  with pytest.raises(AssertionError):  # JAX: AssertionError("unreachable")
    xjax.device_put(X, S.Any)
  with pytest.raises(NotImplementedError, match="Space.Host"):
    xjax.device_put(X, S.Host)
