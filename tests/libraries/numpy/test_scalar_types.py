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


# JAX 0.10.2's finfo(dtype).(epsneg, iexp, machep, negep, nexp, resolution), each value
# of the dtype itself (float4_e2m1fn's epsneg is a Python float there too).
_FINFO = {
    "bfloat16": (0.00390625, 8, -7, -8, 8, 0.0100098),
    "float16": (0.0004883, 5, -10, -11, 5, 0.001),
    "float32": (5.9604645e-08, 8, -23, -24, 8, 1e-06),
    "float64": (1.1102230246251565e-16, 11, -52, -53, 11, 1e-15),
    "float8_e4m3fn": (0.0625, 4, -3, -4, 4, 0.101562),
    "float8_e5m2": (0.125, 5, -2, -3, 5, 0.09375),
    "float8_e4m3fnuz": (0.0625, 4, -3, -4, 4, 0.101562),
    "float8_e5m2fnuz": (0.125, 5, -2, -3, 5, 0.09375),
    "float8_e4m3b11fnuz": (0.0625, 4, -3, -4, 4, 0.101562),
    "float8_e4m3": (0.0625, 4, -3, -4, 4, 0.101562),
    "float8_e3m4": (0.03125, 3, -4, -5, 3, 0.09375),
    "float8_e8m0fnu": (0.5, 8, 0, -1, 8, 0.125),
    "float4_e2m1fn": (0.5, 2, -1, -1, 2, 1.0),
}


def test_finfo_of_every_float_dtype_as_jax():
  for name, (epsneg, iexp, machep, negep, nexp, resolution) in _FINFO.items():
    dtype = np.dtype(getattr(jnp, name))
    for fi in (jnp.finfo(dtype), xjax.dtypes.finfo(dtype)):
      assert (fi.iexp, fi.machep, fi.negep, fi.nexp) == (iexp, machep, negep, nexp), name
      assert fi.resolution.dtype == dtype, name
      # (the reference's values print to the dtype's precision: rounded to it, they are equal)
      assert fi.epsneg == np.asarray(epsneg).astype(dtype), name
      assert fi.resolution == np.asarray(resolution).astype(dtype), name
      if name != "float4_e2m1fn":
        assert fi.epsneg.dtype == dtype, name
