"""Interop with NumPy and other libraries: ``__array__``, pickling, copies, and Python ints
outside a dtype's range (DLPack: test_dlpack.py).  Expected behaviour from JAX 0.10.2."""
import copy
import pickle

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import random


def computed(x):
  out = jnp.asarray(x) + 0
  return out.block_until_ready()


def test_dunder_array_dtype_and_copy():
  x = jnp.ones(3)
  assert not np.asarray(x).flags.writeable  # the cached host view, as in JAX
  assert np.array(x).flags.writeable
  assert x.__array__(np.float64).dtype == np.float64
  np.testing.assert_array_equal(np.asarray(x, copy=False), [1.0, 1.0, 1.0])
  with pytest.raises(ValueError, match="Unable to avoid copy"):
    np.asarray(x, dtype=np.int32, copy=False)
  c = x.__array__(copy=True)
  c[0] = 5  # a private copy
  np.testing.assert_array_equal(x, [1.0, 1.0, 1.0])


def test_pickle_arrays():
  for x in (jnp.arange(6.0).reshape(2, 3), jnp.asarray(1.5), jnp.array([True, False])):
    y = pickle.loads(pickle.dumps(x))
    assert type(y) is type(x) and y.dtype == x.dtype and y.weak_type == x.weak_type
    np.testing.assert_array_equal(y, x)
  assert pickle.loads(pickle.dumps(jnp.asarray(1.5))).weak_type is True
  committed = xjax.device_put(jnp.ones(2), xjax.devices()[0])
  assert not pickle.loads(pickle.dumps(committed)).committed  # as JAX: placement not kept


def test_pickle_typed_keys():
  key = random.key(0)
  back = pickle.loads(pickle.dumps(key))
  assert back.dtype == key.dtype and back.shape == ()
  np.testing.assert_array_equal(random.key_data(back), random.key_data(key))
  np.testing.assert_array_equal(random.uniform(back, (3,)), random.uniform(key, (3,)))


def test_copy_and_deepcopy_make_new_arrays():
  x = jnp.arange(3.0) + 1
  for y in (copy.copy(x), copy.deepcopy(x), copy.deepcopy({"a": [x]})["a"][0]):
    assert y is not x and not y.committed
    assert y.unsafe_buffer_pointer() != x.unsafe_buffer_pointer()
    np.testing.assert_array_equal(y, [1.0, 2.0, 3.0])


@pytest.mark.parametrize("make,message", [
    (lambda: jnp.array(2**31), "Python int 2147483648 too large to convert to int32"),
    (lambda: jnp.array(2**64), "Python int 18446744073709551616 too large to convert to int32"),
    (lambda: jnp.array(-2**63 - 1), "too large to convert to int32"),
    (lambda: jnp.int32(2**31), "Python integer 2147483648 out of bounds for int32"),
    (lambda: jnp.uint8(300), "Python integer 300 out of bounds for uint8"),
    (lambda: jnp.array([1, 2**40]), "Python integer 1099511627776 out of bounds for int32"),
    (lambda: jnp.array(2**40, dtype=jnp.int16), "out of bounds for int16"),
    (lambda: xjax.device_put(2**40), "too large to convert to int32"),
    (lambda: jnp.ones(3, jnp.int32) + 2**31, "2147483648"),
    (lambda: xjax.lax.add(jnp.int32(1), 2**35), "too large to convert to int32"),
    (lambda: jnp.zeros(3, jnp.int32).at[0].set(2**40), "too large to convert to int32"),
    (lambda: xjax.jit(lambda a: a)(2**31),
     "An overflow was encountered while parsing an argument to a jitted computation, whose "
     "argument path is a. Got <class 'int'> with value 2147483648"),
    (lambda: xjax.jit(lambda a, b: a + b)(jnp.ones(3, jnp.int32), b=2**33),
     "argument path is b"),
])
def test_python_ints_out_of_range(make, message):
  with pytest.raises(OverflowError, match=message.replace("(", r"\(").replace(")", r"\)")):
    make()


def test_python_ints_in_range_and_wrapping_ops():
  assert int(jnp.array(2**31 - 1)) == 2**31 - 1
  np.testing.assert_array_equal(jnp.ones(3, jnp.int8) + 300, [45, 45, 45])  # as JAX
  np.testing.assert_array_equal(jnp.ones(3, jnp.int32) + (-2**31), [-2**31 + 1] * 3)


@pytest.mark.usefixtures("x64")
def test_python_ints_out_of_range_x64():
  assert int(jnp.array(2**40)) == 2**40
  with pytest.raises(OverflowError, match="Python int 18446744073709551616 too large to "
                     "convert to int64"):
    jnp.array(2**64)
  with pytest.raises(OverflowError, match="argument path is a"):
    xjax.jit(lambda a: a)(2**63)
