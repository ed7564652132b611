"""xjax.Array: attributes, conversions, operators, printing, immutability, lifetime."""
import collections.abc
import pickle

import numpy as np
import pytest

import xjax as jax
import xjax.numpy as jnp


def test_attributes():
  x = jnp.asarray(np.arange(6, dtype=np.float32).reshape(2, 3))
  assert isinstance(x, jax.Array)
  assert x.shape == (2, 3) and x.ndim == 2 and x.size == 6 and x.dtype == np.float32
  assert not x.weak_type
  np.testing.assert_array_equal(x.T, np.arange(6).reshape(2, 3).T)
  assert len(x) == 2
  assert [r.shape for r in x] == [(3,), (3,)]


def test_conversions():
  x = jnp.asarray(np.float32(2.5))
  assert float(x) == 2.5 and int(x) == 2 and bool(x) and complex(x) == 2.5
  assert x.item() == 2.5
  assert jnp.arange(3).tolist() == [0, 1, 2]
  np.testing.assert_array_equal(np.asarray(jnp.arange(3)), [0, 1, 2])
  assert [1, 2, 3][jnp.asarray(1)] == 2
  with pytest.raises(TypeError):
    len(x)


def test_operators_with_scalars_and_numpy_on_either_side():
  x = jnp.asarray(np.array([1.0, 2.0, 3.0], np.float32))
  n = np.array([1.0, 1.0, 1.0], np.float32)
  np.testing.assert_allclose(x + 1, [2, 3, 4])
  np.testing.assert_allclose(1 + x, [2, 3, 4])
  np.testing.assert_allclose(2 * x - x / 2, [1.5, 3, 4.5])
  np.testing.assert_allclose(x ** 2, [1, 4, 9])
  np.testing.assert_allclose(n + x, [2, 3, 4])
  assert isinstance(x + n, jax.Array)
  np.testing.assert_array_equal(x > 1.5, [False, True, True])
  np.testing.assert_array_equal(-x, [-1, -2, -3])
  np.testing.assert_array_equal(jnp.arange(5) // 2, [0, 0, 1, 1, 2])
  np.testing.assert_array_equal(jnp.arange(-3, 3) % 3, np.arange(-3, 3) % 3)
  m = jnp.ones((2, 3)) @ jnp.ones((3, 4))
  np.testing.assert_allclose(m, np.full((2, 4), 3.0))


def test_python_scalars_are_weakly_typed():
  assert repr(jnp.add(1, 1.0)) == "Array(2., dtype=float32, weak_type=True)"
  h = jnp.asarray(np.ones(2, np.float16))
  assert (h + 1.0).dtype == np.float16
  i8 = jnp.asarray(np.ones(2, np.int8))
  assert (i8 + 1).dtype == np.int8


def test_repr_and_str():
  assert repr(jnp.asarray(np.array([0.0, 1.0, 2.0], np.float32))) == \
      "Array([0., 1., 2.], dtype=float32)"
  assert repr(jnp.asarray(1.0)) == "Array(1., dtype=float32, weak_type=True)"
  assert str(jnp.arange(3)) == "[0 1 2]"
  assert f"{jnp.asarray(np.float32(0.5)):.2f}" == "0.50"


def test_immutable_with_helpful_message():
  x = jnp.arange(10)
  with pytest.raises(TypeError, match=r"immutable.*x\.at\[idx\]\.set"):
    x[0] = 10
  message = ("JAX arrays are immutable and do not support in-place item assignment. Instead "
             "of x[idx] = y, use x = x.at[idx].set(y) or another .at[] method: "
             "https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html")
  for target in (x, None):   # (an Array, and a tracer: JAX 0.10.2's text for both)
    with pytest.raises(TypeError) as info:
      if target is None:
        jax.jit(lambda v: v.__setitem__(0, 1))(x)
      else:
        target[0] = 10
    assert str(info.value) == message
  y = x.at[0].set(10)
  assert int(x[0]) == 0 and int(y[0]) == 10


def test_array_type_is_not_constructed_by_calling_it():
  # JAX: type(x)() is a TypeError (its constructor needs a buffer), jax.Array(x) too
  x = jnp.ones(2)
  with pytest.raises(TypeError, match="cannot be constructed directly"):
    type(x)()
  with pytest.raises(TypeError):
    jax.Array(x)


def test_not_hashable():
  """As JAX's: hashing raises, and arrays and tracers are not ``Hashable`` at all (funsor keys
  its cons cache by ``id`` for values that are not)."""
  with pytest.raises(TypeError, match="unhashable"):
    hash(jnp.ones(2))
  assert not isinstance(jnp.ones(2), collections.abc.Hashable)

  def traced(a):
    assert not isinstance(a, collections.abc.Hashable)
    with pytest.raises(TypeError, match="unhashable type: 'DynamicJaxprTracer'"):
      hash(a)
    return a
  jax.jit(traced)(jnp.ones(2))


def test_astype_reshape_copy():
  x = jnp.arange(6)
  assert x.astype(jnp.float32).dtype == np.float32
  assert x.reshape(2, 3).shape == (2, 3)
  assert x.reshape((3, -1)).shape == (3, 2)
  c = jnp.array(x, copy=True)
  np.testing.assert_array_equal(c, x)


def test_devices_block_and_delete():
  x = jnp.ones(3)
  assert x.devices() == {jax.devices()[0]}
  assert x.device == jax.devices()[0]
  assert x.block_until_ready() is x
  x.delete()
  assert x.is_deleted()
  with pytest.raises(RuntimeError, match="deleted"):
    np.asarray(x)


def test_pickle_roundtrip():
  x = jnp.asarray(np.arange(4, dtype=np.int16))
  y = pickle.loads(pickle.dumps(x))
  assert isinstance(y, jax.Array) and y.dtype == np.int16
  np.testing.assert_array_equal(x, y)


def test_default_dtypes_are_32_bit():
  assert jnp.asarray(np.arange(3, dtype=np.int64)).dtype == np.int32
  assert jnp.asarray(np.ones(2)).dtype == np.float32
  assert jnp.asarray(1.0).dtype == np.float32


def test_enable_x64():
  jax.config.update("jax_enable_x64", True)
  try:
    assert jnp.asarray(np.ones(2)).dtype == np.float64
    assert jnp.asarray(1).dtype == np.int64
    assert jax.jit(lambda x: x * 2)(np.ones(2)).dtype == np.float64
  finally:
    jax.config.update("jax_enable_x64", False)
  assert jnp.asarray(np.ones(2)).dtype == np.float32


def test_devices_api():
  assert jax.device_count() >= 1
  assert jax.default_backend() == "cpu"
  assert jax.local_devices()[0] == jax.devices()[0]
  d = jax.device_put(np.ones(2))
  assert isinstance(d, jax.Array) and not d.committed
  c = jax.device_put(np.ones(2), jax.devices()[0])
  assert c.committed


def test_sharding_of_a_single_device_array():
  x = jnp.ones(2)
  assert x.sharding == jax.sharding.SingleDeviceSharding(jax.devices()[0])
  assert x.sharding.device_set == {jax.devices()[0]}
  with pytest.raises(TypeError, match="scalar"):
    [1, 2][jnp.ones(2, jnp.int32)]


def test_view_tobytes_and_sizes():
  x = jnp.arange(4, dtype=jnp.int32)
  ref = np.arange(4, dtype=np.int32)
  np.testing.assert_array_equal(x.view(jnp.uint8), ref.view(np.uint8))
  np.testing.assert_array_equal(x.view(jnp.uint8).view(jnp.int32), ref)
  np.testing.assert_array_equal(x.view(jnp.float32), ref.view(np.float32))
  assert x.tobytes() == ref.tobytes()
  assert (x.nbytes, x.itemsize) == (16, 4)
  assert jax.jit(lambda v: v * v.nbytes)(x)[1] == 16


def test_byteswap():
  """Values from JAX 0.10.2 (each element's bytes reversed, dtype kept)."""
  np.testing.assert_array_equal(jnp.arange(5, dtype=jnp.int32).byteswap(),
                                np.arange(5, dtype=np.int32).byteswap())
  np.testing.assert_array_equal(
      jnp.array([1.5, -2.0], jnp.float32).byteswap().view(jnp.uint32), [49215, 192])
  c = jnp.array([1 + 2j], jnp.complex64).byteswap()
  np.testing.assert_array_equal(c, np.array([1 + 2j], np.complex64).byteswap())
  np.testing.assert_array_equal(jnp.array([1, 2], jnp.int8).byteswap(), [1, 2])
  np.testing.assert_array_equal(jnp.array([True]).byteswap(), [True])
  x = jnp.arange(6, dtype=jnp.int16).reshape(2, 3)
  np.testing.assert_array_equal(jax.vmap(lambda a: a.byteswap())(x),
                                [[0, 256, 512], [768, 1024, 1280]])
  with pytest.raises(NotImplementedError, match="Cannot call abstract method byteswap"):
    jax.random.key(0).byteswap()
  with pytest.raises(NotImplementedError, match=r"stream argument of array.to_device\(\)"):
    x.to_device(jax.devices()[0], stream=1)


# -- format, platform, clone and the removed device_buffer(s), as JAX 0.10.2 on CPU ---------
def test_format_is_the_row_major_layout_and_sharding():
  x = jnp.arange(6.).reshape(2, 3)
  expected = ("Format(layout=Layout(major_to_minor=(0, 1), tiling=(), "
              "sub_byte_element_size_in_bits=0), sharding=SingleDeviceSharding("
              "device=CpuDevice(id=0), memory_kind=device))")
  assert repr(x.format) == expected
  assert x.format.layout.major_to_minor == (0, 1) and x.format.sharding == x.sharding
  assert jnp.array(1.).format.layout.major_to_minor == ()
  y = jnp.arange(3.)
  y.delete()
  assert y.format.layout is None      # a deleted array keeps its sharding, not its layout
  assert y.sharding == jax.sharding.SingleDeviceSharding(jax.devices()[0])


def test_platform_and_clone():
  x = jnp.arange(3.)
  assert x.platform() == "cpu"
  c = x.clone()
  assert c is not x and c.unsafe_buffer_pointer() == x.unsafe_buffer_pointer()
  np.testing.assert_array_equal(c, [0., 1., 2.])
  assert c.committed is False and c.sharding == x.sharding
  assert jax.device_put(x, jax.devices()[0]).clone().committed is True
  x.delete()                          # one buffer: deleting either deletes both
  assert c.is_deleted()
  with pytest.raises(RuntimeError, match="deleted"):
    x.platform()


def test_key_arrays_lack_format_clone_platform():
  key = jax.random.key(0)
  for name in ("format", "clone", "platform", "device_buffer", "device_buffers"):
    assert not hasattr(key, name)
    with pytest.raises(AttributeError):
      getattr(key, name)


def test_device_buffer_removed():
  x = jnp.arange(3.)
  with pytest.raises(AttributeError, match=r"^arr.device_buffer has been deprecated. Use "
                                           r"arr.addressable_data\(0\)$"):
    x.device_buffer
  with pytest.raises(AttributeError, match=r"device_buffers has been deprecated. Use \[x.data "
                                           r"for x in arr.addressable_shards\]$"):
    x.device_buffers


def test_traceback_is_none_as_jax_without_collection():
  # (documented in differences.md: xjax does not record where arrays are made)
  assert isinstance(type(jnp.ones(2)).__dict__["traceback"], property)
  assert jnp.arange(3.0).traceback is None
  assert jax.jit(lambda a: a * 2)(jnp.ones(2)).traceback is None


def test_arrays_take_user_attributes_as_jax():
  # JAX's ArrayImpl has a __dict__ (Keras sets `trainable` on an array); its own properties
  # stay read-only, results do not inherit the attribute, and tracers refuse one.
  x = jnp.ones(3)
  x.trainable = False
  assert x.trainable is False and x.__dict__ == {"trainable": False}
  assert not hasattr(x + 1, "trainable")
  with pytest.raises(AttributeError, match="has no setter"):
    x.shape = (1,)

  def f(t):
    with pytest.raises(AttributeError, match="object has no attribute 'bar'"):
      t.bar = 2
    return t
  jax.jit(f)(x)
