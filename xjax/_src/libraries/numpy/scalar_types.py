"""JAX-style scalar type objects: ``jnp.float32``, ``jnp.int32``, ``jnp.bool_``, ...

Each is a class that stands for its NumPy scalar type wherever a dtype is expected (it has
a ``dtype`` attribute, compares and hashes equal to the NumPy type, and ``isinstance``
checks against NumPy scalars), and calling it makes an xjax array of that dtype:
``jnp.float32(1)`` is ``Array(1., dtype=float32)``.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.libraries.numpy.creation import asarray


class _ScalarMeta(type):
  """Metaclass making each scalar type a dtype specifier and an array constructor."""

  def __eq__(cls, other):
    return cls is other or cls.dtype.type == other

  def __ne__(cls, other):
    return not _ScalarMeta.__eq__(cls, other)

  def __hash__(cls):
    return hash(cls.dtype.type)

  def __instancecheck__(cls, instance):
    return isinstance(instance, cls.dtype.type)

  def __call__(cls, x):
    if isinstance(x, str):  # parsed as NumPy does: ValueError for text that is no number
      x = np.array(x, dtype=cls.dtype)
    return asarray(x, dtype=cls.dtype)

  def __repr__(cls):  # (standing in for jax, the module is jax.numpy: compat/jax_alias.py)
    return f"<class '{cls.__module__}.{cls.__name__}'>"


def _make(name: str, scalar_type) -> _ScalarMeta:
  dt = np.dtype(scalar_type)
  doc = (f"A {dt.name} scalar type: as a dtype it names {dt.name}; called on a value it "
         f"returns an xjax array of that dtype.")
  return _ScalarMeta(name, (object,), {"dtype": dt, "__module__": "xjax.numpy",
                                       "__doc__": doc})


bool_ = _make("bool", np.bool_)
int8 = _make("int8", np.int8)
int16 = _make("int16", np.int16)
int32 = _make("int32", np.int32)
int64 = _make("int64", np.int64)
uint8 = _make("uint8", np.uint8)
uint16 = _make("uint16", np.uint16)
uint32 = _make("uint32", np.uint32)
uint64 = _make("uint64", np.uint64)
float16 = _make("float16", np.float16)
float32 = _make("float32", np.float32)
float64 = _make("float64", np.float64)
bfloat16 = _make("bfloat16", dtypes.bfloat16)
# Narrow storage types (ml_dtypes): they convert and compute, but never promote implicitly.
float4_e2m1fn = _make("float4_e2m1fn", ml_dtypes.float4_e2m1fn)
float6_e2m3fn = _make("float6_e2m3fn", ml_dtypes.float6_e2m3fn)
float6_e3m2fn = _make("float6_e3m2fn", ml_dtypes.float6_e3m2fn)
float8_e3m4 = _make("float8_e3m4", ml_dtypes.float8_e3m4)
float8_e4m3 = _make("float8_e4m3", ml_dtypes.float8_e4m3)
float8_e4m3b11fnuz = _make("float8_e4m3b11fnuz", ml_dtypes.float8_e4m3b11fnuz)
float8_e4m3fn = _make("float8_e4m3fn", ml_dtypes.float8_e4m3fn)
float8_e4m3fnuz = _make("float8_e4m3fnuz", ml_dtypes.float8_e4m3fnuz)
float8_e5m2 = _make("float8_e5m2", ml_dtypes.float8_e5m2)
float8_e5m2fnuz = _make("float8_e5m2fnuz", ml_dtypes.float8_e5m2fnuz)
float8_e8m0fnu = _make("float8_e8m0fnu", ml_dtypes.float8_e8m0fnu)
int2 = _make("int2", ml_dtypes.int2)
int4 = _make("int4", ml_dtypes.int4)
uint2 = _make("uint2", ml_dtypes.uint2)
uint4 = _make("uint4", ml_dtypes.uint4)
if hasattr(ml_dtypes, "int1"):  # 1-bit integers: ml_dtypes 0.6 and newer (absent before, as in JAX)
  int1 = _make("int1", ml_dtypes.int1)
  uint1 = _make("uint1", ml_dtypes.uint1)
complex64 = _make("complex64", np.complex64)
complex128 = _make("complex128", np.complex128)

int_ = _make("int_", np.int64)
uint = _make("uint", np.uint64)
float_ = _make("float_", np.float64)
complex_ = _make("complex_", np.complex128)
single, double = float32, float64
csingle, cdouble = complex64, complex128
