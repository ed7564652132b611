"""xjax.numpy's scalar types (jnp.float32, jnp.bfloat16, ...): construction, dtypes, weak
types, subtyping, hashing and the dtype queries over them."""
import numpy as np

import xjax
import xjax.numpy as jnp

from tests.checking import check


def test_scalar_types():
  x = jnp.float32(1)
  assert isinstance(x, jnp.ndarray) and x.dtype == np.float32 and not x.weak_type
  check(jnp.int32([1.7, 2]), [1, 2], np.int32)
  check(jnp.bool_(2), True, np.bool_)
  check(jnp.bfloat16(1.5).astype(np.float32), 1.5)
  assert jnp.bfloat16(1.5).dtype == jnp.bfloat16.dtype
  assert np.dtype(jnp.float32) == np.float32 and np.dtype(jnp.bfloat16).name == "bfloat16"
  assert jnp.float32 == np.float32 and hash(jnp.float32) == hash(np.float32)
  assert isinstance(np.float32(1), jnp.float32) and not isinstance(np.int32(1), jnp.float32)
  assert jnp.issubdtype(jnp.float32, jnp.floating) and jnp.issubdtype(jnp.bfloat16, jnp.floating)
  assert jnp.issubdtype(jnp.uint8, np.unsignedinteger) and not jnp.issubdtype(jnp.int8, jnp.floating)
  assert jnp.zeros(2, jnp.float16).dtype == np.float16
  assert jnp.arange(3).astype(jnp.uint8).dtype == np.uint8
  assert jnp.result_type(jnp.float32, jnp.int32) == np.float32
  assert jnp.promote_types(jnp.int8, jnp.uint8) == np.int16
  assert jnp.finfo(jnp.float32).eps == np.finfo(np.float32).eps
  assert xjax.jit(lambda v: jnp.float32(v))(3).dtype == np.float32
  assert repr(jnp.float32) == "<class 'xjax.numpy.float32'>"
