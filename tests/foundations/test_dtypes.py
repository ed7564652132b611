"""Tests for xjax._src.foundations.dtypes: canonicalization, weak types and JAX's promotion lattice.

The expected tables were computed once with the reference JAX (0.10.2) and embedded here.
Notation (that of JAX's type-promotion docs): b1 bool; u1/u2/u4/u8 uint8..uint64;
i1/i2/i4/i8 int8..int64; bf bfloat16; f2/f4/f8 float16..float64; c8/c16 complex64/128;
i*/f*/c* the weak Python types int/float/complex. A result ending in '*' is weakly typed,
'-' means TypePromotionError.
"""
import contextlib
import enum
import warnings

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import xjax.dtypes
from xjax._src.foundations import dtypes
from xjax._src.foundations.config import config

CODES = "b1 u1 u2 u4 u8 i1 i2 i4 i8 bf f2 f4 f8 c8 c16".split()
STRONG = [np.dtype(t) for t in ("bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16",
                                "int32", "int64", "bfloat16", "float16", "float32", "float64",
                                "complex64", "complex128")]
CODE_OF = dict(zip(STRONG, CODES))
COLUMNS = [*STRONG, int, float, complex]  # the 18 columns of every table
COLUMN_CODES = [*CODES, "i*", "f*", "c*"]
# (int1 and uint1 where ml_dtypes has them: 0.6 and newer)
NARROW_INTS = [n for n in ["int1", "uint1", "int2", "uint2", "int4", "uint4"]
               if hasattr(ml_dtypes, n)]
NARROW_FLOATS = ["float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn", "float8_e3m4", "float8_e4m3",
                 "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2",
                 "float8_e5m2fnuz", "float8_e8m0fnu"]
# The tables pass 64-bit dtypes with x64 off, which warns; the warning has its own tests.
pytestmark = pytest.mark.filterwarnings("ignore:Explicitly requested dtype:UserWarning")

CONFIGS = [(x64, mode) for x64 in (False, True) for mode in ("standard", "strict")]


class Weak:
  """A weakly typed value, as an xjax Array or tracer of a Python scalar would be."""

  def __init__(self, dt):
    self.dtype = np.dtype(dt)
    self.weak_type = True


@contextlib.contextmanager
def flags(x64=False, promotion="standard"):
  old = config.read("jax_enable_x64"), config.jax_numpy_dtype_promotion
  config.update("jax_enable_x64", x64)
  config.update("jax_numpy_dtype_promotion", promotion)
  try:
    yield
  finally:
    config.update("jax_enable_x64", old[0])
    config.update("jax_numpy_dtype_promotion", old[1])


def outcome(*args):
  """result_type's answer in table notation."""
  try:
    dt, weak = dtypes.result_type(*args, return_weak_type_flag=True)
  except dtypes.TypePromotionError:
    return "-"
  return CODE_OF[dt] + ("*" if weak else "")


def parse(table):
  return [line.split() for line in table.strip().splitlines()]


# Rows and columns in the order of COLUMNS: result_type(row, column).
PAIR_TABLES = {
    (False, 'standard'): """
b1 u1 u2 u4 u4 i1 i2 i4 i4 bf f2 f4 f4 c8 c8 i4* f4* c8*
u1 u1 u2 u4 u4 i2 i2 i4 i4 bf f2 f4 f4 c8 c8 u1 f4* c8*
u2 u2 u2 u4 u4 i4 i4 i4 i4 bf f2 f4 f4 c8 c8 u2 f4* c8*
u4 u4 u4 u4 u4 i4 i4 i4 i4 bf f2 f4 f4 c8 c8 u4 f4* c8*
u4 u4 u4 u4 u4 i4 i4 i4 i4 bf f2 f4 f4 c8 c8 u4 f4* c8*
i1 i2 i4 i4 i4 i1 i2 i4 i4 bf f2 f4 f4 c8 c8 i1 f4* c8*
i2 i2 i4 i4 i4 i2 i2 i4 i4 bf f2 f4 f4 c8 c8 i2 f4* c8*
i4 i4 i4 i4 i4 i4 i4 i4 i4 bf f2 f4 f4 c8 c8 i4 f4* c8*
i4 i4 i4 i4 i4 i4 i4 i4 i4 bf f2 f4 f4 c8 c8 i4 f4* c8*
bf bf bf bf bf bf bf bf bf bf f4 f4 f4 c8 c8 bf bf c8
f2 f2 f2 f2 f2 f2 f2 f2 f2 f4 f2 f4 f4 c8 c8 f2 f2 c8
f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 c8 c8 f4 f4 c8
f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 c8 c8 f4 f4 c8
c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8
c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8
i4* u1 u2 u4 u4 i1 i2 i4 i4 bf f2 f4 f4 c8 c8 i4* f4* c8*
f4* f4* f4* f4* f4* f4* f4* f4* f4* bf f2 f4 f4 c8 c8 f4* f4* c8*
c8* c8* c8* c8* c8* c8* c8* c8* c8* c8 c8 c8 c8 c8 c8 c8* c8* c8*
""",
    (False, 'strict'): """
b1 - - - - - - - - - - - - - - - - -
- u1 - - - - - - - - - - - - - u1 - -
- - u2 - - - - - - - - - - - - u2 - -
- - - u4 u4 - - - - - - - - - - u4 - -
- - - u4 u4 - - - - - - - - - - u4 - -
- - - - - i1 - - - - - - - - - i1 - -
- - - - - - i2 - - - - - - - - i2 - -
- - - - - - - i4 i4 - - - - - - i4 - -
- - - - - - - i4 i4 - - - - - - i4 - -
- - - - - - - - - bf - - - - - bf bf -
- - - - - - - - - - f2 - - - - f2 f2 -
- - - - - - - - - - - f4 f4 - - f4 f4 -
- - - - - - - - - - - f4 f4 - - f4 f4 -
- - - - - - - - - - - - - c8 c8 c8 c8 c8
- - - - - - - - - - - - - c8 c8 c8 c8 c8
- u1 u2 u4 u4 i1 i2 i4 i4 bf f2 f4 f4 c8 c8 i4* f4* c8*
- - - - - - - - - bf f2 f4 f4 c8 c8 f4* f4* c8*
- - - - - - - - - - - - - c8 c8 c8* c8* c8*
""",
    (True, 'standard'): """
b1 u1 u2 u4 u8 i1 i2 i4 i8 bf f2 f4 f8 c8 c16 i8* f8* c16*
u1 u1 u2 u4 u8 i2 i2 i4 i8 bf f2 f4 f8 c8 c16 u1 f8* c16*
u2 u2 u2 u4 u8 i4 i4 i4 i8 bf f2 f4 f8 c8 c16 u2 f8* c16*
u4 u4 u4 u4 u8 i8 i8 i8 i8 bf f2 f4 f8 c8 c16 u4 f8* c16*
u8 u8 u8 u8 u8 f8* f8* f8* f8* bf f2 f4 f8 c8 c16 u8 f8* c16*
i1 i2 i4 i8 f8* i1 i2 i4 i8 bf f2 f4 f8 c8 c16 i1 f8* c16*
i2 i2 i4 i8 f8* i2 i2 i4 i8 bf f2 f4 f8 c8 c16 i2 f8* c16*
i4 i4 i4 i8 f8* i4 i4 i4 i8 bf f2 f4 f8 c8 c16 i4 f8* c16*
i8 i8 i8 i8 f8* i8 i8 i8 i8 bf f2 f4 f8 c8 c16 i8 f8* c16*
bf bf bf bf bf bf bf bf bf bf f4 f4 f8 c8 c16 bf bf c8
f2 f2 f2 f2 f2 f2 f2 f2 f2 f4 f2 f4 f8 c8 c16 f2 f2 c8
f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f8 c8 c16 f4 f4 c8
f8 f8 f8 f8 f8 f8 f8 f8 f8 f8 f8 f8 f8 c16 c16 f8 f8 c16
c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c16 c8 c16 c8 c8 c8
c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16
i8* u1 u2 u4 u8 i1 i2 i4 i8 bf f2 f4 f8 c8 c16 i8* f8* c16*
f8* f8* f8* f8* f8* f8* f8* f8* f8* bf f2 f4 f8 c8 c16 f8* f8* c16*
c16* c16* c16* c16* c16* c16* c16* c16* c16* c8 c8 c8 c16 c8 c16 c16* c16* c16*
""",
    (True, 'strict'): """
b1 - - - - - - - - - - - - - - - - -
- u1 - - - - - - - - - - - - - u1 - -
- - u2 - - - - - - - - - - - - u2 - -
- - - u4 - - - - - - - - - - - u4 - -
- - - - u8 - - - - - - - - - - u8 - -
- - - - - i1 - - - - - - - - - i1 - -
- - - - - - i2 - - - - - - - - i2 - -
- - - - - - - i4 - - - - - - - i4 - -
- - - - - - - - i8 - - - - - - i8 - -
- - - - - - - - - bf - - - - - bf bf -
- - - - - - - - - - f2 - - - - f2 f2 -
- - - - - - - - - - - f4 - - - f4 f4 -
- - - - - - - - - - - - f8 - - f8 f8 -
- - - - - - - - - - - - - c8 - c8 c8 c8
- - - - - - - - - - - - - - c16 c16 c16 c16
- u1 u2 u4 u8 i1 i2 i4 i8 bf f2 f4 f8 c8 c16 i8* f8* c16*
- - - - - - - - - bf f2 f4 f8 c8 c16 f8* f8* c16*
- - - - - - - - - - - - - c8 c16 c16* c16* c16*
""",
}

# Row i: a weak value of STRONG[i] alone, then with each of COLUMNS, then with a weak value
# of each of STRONG (weak values are canonical, as xjax Arrays are).
WEAK_VALUE_TABLES = {
    (False, 'standard'): """
b1 b1 u1 u2 u4 u4 i1 i2 i4 i4 bf f2 f4 f4 c8 c8 i4* f4* c8* b1 u4* u4* u4* u4* i4* i4* i4* i4* f4* f4* f4* f4* c8* c8*
u4* i4* u1 u2 u4 u4 i1 i2 i4 i4 bf f2 f4 f4 c8 c8 i4* f4* c8* u4* u4* u4* u4* u4* i4* i4* i4* i4* f4* f4* f4* f4* c8* c8*
u4* i4* u1 u2 u4 u4 i1 i2 i4 i4 bf f2 f4 f4 c8 c8 i4* f4* c8* u4* u4* u4* u4* u4* i4* i4* i4* i4* f4* f4* f4* f4* c8* c8*
u4* i4* u1 u2 u4 u4 i1 i2 i4 i4 bf f2 f4 f4 c8 c8 i4* f4* c8* u4* u4* u4* u4* u4* i4* i4* i4* i4* f4* f4* f4* f4* c8* c8*
u4* i4* u1 u2 u4 u4 i1 i2 i4 i4 bf f2 f4 f4 c8 c8 i4* f4* c8* u4* u4* u4* u4* u4* i4* i4* i4* i4* f4* f4* f4* f4* c8* c8*
i4* i4* u1 u2 u4 u4 i1 i2 i4 i4 bf f2 f4 f4 c8 c8 i4* f4* c8* i4* i4* i4* i4* i4* i4* i4* i4* i4* f4* f4* f4* f4* c8* c8*
i4* i4* u1 u2 u4 u4 i1 i2 i4 i4 bf f2 f4 f4 c8 c8 i4* f4* c8* i4* i4* i4* i4* i4* i4* i4* i4* i4* f4* f4* f4* f4* c8* c8*
i4* i4* u1 u2 u4 u4 i1 i2 i4 i4 bf f2 f4 f4 c8 c8 i4* f4* c8* i4* i4* i4* i4* i4* i4* i4* i4* i4* f4* f4* f4* f4* c8* c8*
i4* i4* u1 u2 u4 u4 i1 i2 i4 i4 bf f2 f4 f4 c8 c8 i4* f4* c8* i4* i4* i4* i4* i4* i4* i4* i4* i4* f4* f4* f4* f4* c8* c8*
f4* f4* f4* f4* f4* f4* f4* f4* f4* f4* bf f2 f4 f4 c8 c8 f4* f4* c8* f4* f4* f4* f4* f4* f4* f4* f4* f4* f4* f4* f4* f4* c8* c8*
f4* f4* f4* f4* f4* f4* f4* f4* f4* f4* bf f2 f4 f4 c8 c8 f4* f4* c8* f4* f4* f4* f4* f4* f4* f4* f4* f4* f4* f4* f4* f4* c8* c8*
f4* f4* f4* f4* f4* f4* f4* f4* f4* f4* bf f2 f4 f4 c8 c8 f4* f4* c8* f4* f4* f4* f4* f4* f4* f4* f4* f4* f4* f4* f4* f4* c8* c8*
f4* f4* f4* f4* f4* f4* f4* f4* f4* f4* bf f2 f4 f4 c8 c8 f4* f4* c8* f4* f4* f4* f4* f4* f4* f4* f4* f4* f4* f4* f4* f4* c8* c8*
c8* c8* c8* c8* c8* c8* c8* c8* c8* c8* c8 c8 c8 c8 c8 c8 c8* c8* c8* c8* c8* c8* c8* c8* c8* c8* c8* c8* c8* c8* c8* c8* c8* c8*
c8* c8* c8* c8* c8* c8* c8* c8* c8* c8* c8 c8 c8 c8 c8 c8 c8* c8* c8* c8* c8* c8* c8* c8* c8* c8* c8* c8* c8* c8* c8* c8* c8* c8*
""",
    (False, 'strict'): """
b1 b1 - - - - - - - - - - - - - - - - - b1 - - - - - - - - - - - - - -
u4* - u1 u2 u4 u4 i1 i2 i4 i4 bf f2 f4 f4 c8 c8 i4* f4* c8* - i4* i4* i4* i4* i4* i4* i4* i4* f4* f4* f4* f4* c8* c8*
u4* - u1 u2 u4 u4 i1 i2 i4 i4 bf f2 f4 f4 c8 c8 i4* f4* c8* - i4* i4* i4* i4* i4* i4* i4* i4* f4* f4* f4* f4* c8* c8*
u4* - u1 u2 u4 u4 i1 i2 i4 i4 bf f2 f4 f4 c8 c8 i4* f4* c8* - i4* i4* i4* i4* i4* i4* i4* i4* f4* f4* f4* f4* c8* c8*
u4* - u1 u2 u4 u4 i1 i2 i4 i4 bf f2 f4 f4 c8 c8 i4* f4* c8* - i4* i4* i4* i4* i4* i4* i4* i4* f4* f4* f4* f4* c8* c8*
i4* - u1 u2 u4 u4 i1 i2 i4 i4 bf f2 f4 f4 c8 c8 i4* f4* c8* - i4* i4* i4* i4* i4* i4* i4* i4* f4* f4* f4* f4* c8* c8*
i4* - u1 u2 u4 u4 i1 i2 i4 i4 bf f2 f4 f4 c8 c8 i4* f4* c8* - i4* i4* i4* i4* i4* i4* i4* i4* f4* f4* f4* f4* c8* c8*
i4* - u1 u2 u4 u4 i1 i2 i4 i4 bf f2 f4 f4 c8 c8 i4* f4* c8* - i4* i4* i4* i4* i4* i4* i4* i4* f4* f4* f4* f4* c8* c8*
i4* - u1 u2 u4 u4 i1 i2 i4 i4 bf f2 f4 f4 c8 c8 i4* f4* c8* - i4* i4* i4* i4* i4* i4* i4* i4* f4* f4* f4* f4* c8* c8*
f4* - - - - - - - - - bf f2 f4 f4 c8 c8 f4* f4* c8* - f4* f4* f4* f4* f4* f4* f4* f4* f4* f4* f4* f4* c8* c8*
f4* - - - - - - - - - bf f2 f4 f4 c8 c8 f4* f4* c8* - f4* f4* f4* f4* f4* f4* f4* f4* f4* f4* f4* f4* c8* c8*
f4* - - - - - - - - - bf f2 f4 f4 c8 c8 f4* f4* c8* - f4* f4* f4* f4* f4* f4* f4* f4* f4* f4* f4* f4* c8* c8*
f4* - - - - - - - - - bf f2 f4 f4 c8 c8 f4* f4* c8* - f4* f4* f4* f4* f4* f4* f4* f4* f4* f4* f4* f4* c8* c8*
c8* - - - - - - - - - - - - - c8 c8 c8* c8* c8* - c8* c8* c8* c8* c8* c8* c8* c8* c8* c8* c8* c8* c8* c8*
c8* - - - - - - - - - - - - - c8 c8 c8* c8* c8* - c8* c8* c8* c8* c8* c8* c8* c8* c8* c8* c8* c8* c8* c8*
""",
    (True, 'standard'): """
b1 b1 u1 u2 u4 u8 i1 i2 i4 i8 bf f2 f4 f8 c8 c16 i8* f8* c16* b1 u8* u8* u8* u8* i8* i8* i8* i8* f8* f8* f8* f8* c16* c16*
u8* i8* u1 u2 u4 u8 i1 i2 i4 i8 bf f2 f4 f8 c8 c16 i8* f8* c16* u8* u8* u8* u8* u8* i8* i8* i8* i8* f8* f8* f8* f8* c16* c16*
u8* i8* u1 u2 u4 u8 i1 i2 i4 i8 bf f2 f4 f8 c8 c16 i8* f8* c16* u8* u8* u8* u8* u8* i8* i8* i8* i8* f8* f8* f8* f8* c16* c16*
u8* i8* u1 u2 u4 u8 i1 i2 i4 i8 bf f2 f4 f8 c8 c16 i8* f8* c16* u8* u8* u8* u8* u8* i8* i8* i8* i8* f8* f8* f8* f8* c16* c16*
u8* i8* u1 u2 u4 u8 i1 i2 i4 i8 bf f2 f4 f8 c8 c16 f8* f8* c16* u8* u8* u8* u8* u8* f8* f8* f8* f8* f8* f8* f8* f8* c16* c16*
i8* i8* u1 u2 u4 u8 i1 i2 i4 i8 bf f2 f4 f8 c8 c16 i8* f8* c16* i8* i8* i8* i8* f8* i8* i8* i8* i8* f8* f8* f8* f8* c16* c16*
i8* i8* u1 u2 u4 u8 i1 i2 i4 i8 bf f2 f4 f8 c8 c16 i8* f8* c16* i8* i8* i8* i8* f8* i8* i8* i8* i8* f8* f8* f8* f8* c16* c16*
i8* i8* u1 u2 u4 u8 i1 i2 i4 i8 bf f2 f4 f8 c8 c16 i8* f8* c16* i8* i8* i8* i8* f8* i8* i8* i8* i8* f8* f8* f8* f8* c16* c16*
i8* i8* u1 u2 u4 u8 i1 i2 i4 i8 bf f2 f4 f8 c8 c16 i8* f8* c16* i8* i8* i8* i8* f8* i8* i8* i8* i8* f8* f8* f8* f8* c16* c16*
f8* f8* f8* f8* f8* f8* f8* f8* f8* f8* bf f2 f4 f8 c8 c16 f8* f8* c16* f8* f8* f8* f8* f8* f8* f8* f8* f8* f8* f8* f8* f8* c16* c16*
f8* f8* f8* f8* f8* f8* f8* f8* f8* f8* bf f2 f4 f8 c8 c16 f8* f8* c16* f8* f8* f8* f8* f8* f8* f8* f8* f8* f8* f8* f8* f8* c16* c16*
f8* f8* f8* f8* f8* f8* f8* f8* f8* f8* bf f2 f4 f8 c8 c16 f8* f8* c16* f8* f8* f8* f8* f8* f8* f8* f8* f8* f8* f8* f8* f8* c16* c16*
f8* f8* f8* f8* f8* f8* f8* f8* f8* f8* bf f2 f4 f8 c8 c16 f8* f8* c16* f8* f8* f8* f8* f8* f8* f8* f8* f8* f8* f8* f8* f8* c16* c16*
c16* c16* c16* c16* c16* c16* c16* c16* c16* c16* c8 c8 c8 c16 c8 c16 c16* c16* c16* c16* c16* c16* c16* c16* c16* c16* c16* c16* c16* c16* c16* c16* c16* c16*
c16* c16* c16* c16* c16* c16* c16* c16* c16* c16* c8 c8 c8 c16 c8 c16 c16* c16* c16* c16* c16* c16* c16* c16* c16* c16* c16* c16* c16* c16* c16* c16* c16* c16*
""",
    (True, 'strict'): """
b1 b1 - - - - - - - - - - - - - - - - - b1 - - - - - - - - - - - - - -
u8* - u1 u2 u4 u8 i1 i2 i4 i8 bf f2 f4 f8 c8 c16 i8* f8* c16* - i8* i8* i8* i8* i8* i8* i8* i8* f8* f8* f8* f8* c16* c16*
u8* - u1 u2 u4 u8 i1 i2 i4 i8 bf f2 f4 f8 c8 c16 i8* f8* c16* - i8* i8* i8* i8* i8* i8* i8* i8* f8* f8* f8* f8* c16* c16*
u8* - u1 u2 u4 u8 i1 i2 i4 i8 bf f2 f4 f8 c8 c16 i8* f8* c16* - i8* i8* i8* i8* i8* i8* i8* i8* f8* f8* f8* f8* c16* c16*
u8* - u1 u2 u4 u8 i1 i2 i4 i8 bf f2 f4 f8 c8 c16 i8* f8* c16* - i8* i8* i8* i8* i8* i8* i8* i8* f8* f8* f8* f8* c16* c16*
i8* - u1 u2 u4 u8 i1 i2 i4 i8 bf f2 f4 f8 c8 c16 i8* f8* c16* - i8* i8* i8* i8* i8* i8* i8* i8* f8* f8* f8* f8* c16* c16*
i8* - u1 u2 u4 u8 i1 i2 i4 i8 bf f2 f4 f8 c8 c16 i8* f8* c16* - i8* i8* i8* i8* i8* i8* i8* i8* f8* f8* f8* f8* c16* c16*
i8* - u1 u2 u4 u8 i1 i2 i4 i8 bf f2 f4 f8 c8 c16 i8* f8* c16* - i8* i8* i8* i8* i8* i8* i8* i8* f8* f8* f8* f8* c16* c16*
i8* - u1 u2 u4 u8 i1 i2 i4 i8 bf f2 f4 f8 c8 c16 i8* f8* c16* - i8* i8* i8* i8* i8* i8* i8* i8* f8* f8* f8* f8* c16* c16*
f8* - - - - - - - - - bf f2 f4 f8 c8 c16 f8* f8* c16* - f8* f8* f8* f8* f8* f8* f8* f8* f8* f8* f8* f8* c16* c16*
f8* - - - - - - - - - bf f2 f4 f8 c8 c16 f8* f8* c16* - f8* f8* f8* f8* f8* f8* f8* f8* f8* f8* f8* f8* c16* c16*
f8* - - - - - - - - - bf f2 f4 f8 c8 c16 f8* f8* c16* - f8* f8* f8* f8* f8* f8* f8* f8* f8* f8* f8* f8* c16* c16*
f8* - - - - - - - - - bf f2 f4 f8 c8 c16 f8* f8* c16* - f8* f8* f8* f8* f8* f8* f8* f8* f8* f8* f8* f8* c16* c16*
c16* - - - - - - - - - - - - - c8 c16 c16* c16* c16* - c16* c16* c16* c16* c16* c16* c16* c16* c16* c16* c16* c16* c16* c16*
c16* - - - - - - - - - - - - - c8 c16 c16* c16* c16* - c16* c16* c16* c16* c16* c16* c16* c16* c16* c16* c16* c16* c16* c16*
""",
}


# Each narrow dtype promotes (to itself) with these columns and with itself; all else raises.
NARROW_PARTNERS = {
    ("standard", "int"): "b1 i*",
    ("standard", "float"): "b1 u1 u2 u4 u8 i1 i2 i4 i8 i* f*",
    ("strict", "int"): "i*",
    ("strict", "float"): "i* f*",
}


@pytest.mark.parametrize("x64,mode", CONFIGS)
def test_pairwise_promotion_table(x64, mode):
  expected = parse(PAIR_TABLES[(x64, mode)])
  with flags(x64, mode):
    got = [[outcome(a, b) for b in COLUMNS] for a in COLUMNS]
  assert got == expected


@pytest.mark.parametrize("x64,mode", CONFIGS)
def test_weak_value_table(x64, mode):
  # Row i: a weak value of STRONG[i] alone, with each of the 18 columns, then with a weak
  # value of each strong dtype.
  expected = parse(WEAK_VALUE_TABLES[(x64, mode)])
  with flags(x64, mode):
    got = [[outcome(Weak(a))] + [outcome(Weak(a), b) for b in COLUMNS]
           + [outcome(Weak(a), Weak(b)) for b in STRONG] for a in STRONG]
  assert got == expected


@pytest.mark.parametrize("x64,mode", CONFIGS)
@pytest.mark.parametrize("name", NARROW_INTS + NARROW_FLOATS)
def test_narrow_dtypes_never_promote_implicitly(x64, mode, name):
  narrow = np.dtype(getattr(ml_dtypes, name))
  kind = "int" if name in NARROW_INTS else "float"
  partners = NARROW_PARTNERS[(mode, kind)].split()
  with flags(x64, mode):
    for code, column in zip(COLUMN_CODES, COLUMNS):
      for args in [(narrow, column), (column, narrow)]:
        if code in partners:
          assert dtypes.result_type(*args, return_weak_type_flag=True) == (narrow, False)
        else:
          with pytest.raises(dtypes.TypePromotionError, match="no available implicit dtype promotion path"):
            dtypes.result_type(*args)
    for other in NARROW_INTS + NARROW_FLOATS:
      other_dt = np.dtype(getattr(ml_dtypes, other))
      if other == name:
        assert dtypes.result_type(narrow, other_dt) == narrow
      else:
        with pytest.raises(dtypes.TypePromotionError):
          dtypes.result_type(narrow, other_dt)


ARGS = st.sampled_from(COLUMNS)


@settings(max_examples=300, deadline=None)
@given(st.lists(ARGS, min_size=1, max_size=5), st.booleans())
def test_result_type_is_the_fold_of_the_pairwise_join(args, x64):
  # The lattice makes promotion associative: the n-ary result is the left fold of the
  # pairwise one (the accumulator carried as a value of the result dtype and weakness).
  with flags(x64):
    expected, weak = dtypes.result_type(args[0], return_weak_type_flag=True)
    for arg in args[1:]:
      acc = Weak(expected) if weak else expected
      expected, weak = dtypes.result_type(acc, arg, return_weak_type_flag=True)
    assert dtypes.result_type(*args, return_weak_type_flag=True) == (expected, weak)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(ARGS, st.sampled_from(STRONG).map(Weak)), min_size=1, max_size=4),
       st.randoms(), st.sampled_from(CONFIGS))
def test_result_type_ignores_argument_order(args, rng, config_):
  shuffled = list(args)
  rng.shuffle(shuffled)
  with flags(*config_):
    try:
      expected = dtypes.result_type(*args, return_weak_type_flag=True)
    except dtypes.TypePromotionError:
      with pytest.raises(dtypes.TypePromotionError):
        dtypes.result_type(*shuffled)
    else:
      assert dtypes.result_type(*shuffled, return_weak_type_flag=True) == expected


def test_result_type_examples():
  f32, i32 = np.dtype("float32"), np.dtype("int32")
  rt = lambda *a: dtypes.result_type(*a, return_weak_type_flag=True)
  with flags(x64=False):
    assert rt(np.int32, 1.0) == (f32, True)  # an int array meeting a Python float: weak float
    assert rt(np.zeros(3, np.int32), 1.0) == (f32, True)
    assert rt(1, 1.0) == (f32, True)
    assert rt(np.bool_, 1) == (i32, True)
    assert rt(True, True) == (np.dtype(bool), False)  # Python bool is not weak
    assert rt(np.uint8, np.int8) == (np.dtype("int16"), False)
    assert rt(np.uint32, np.int32) == (i32, False)  # int64, canonicalized
    assert rt(ml_dtypes.bfloat16, np.float16) == (f32, False)
    assert rt(np.float16, 2.0) == (np.dtype("float16"), False)
    assert rt(np.float64(1.0), 1) == (f32, False)  # NumPy scalars are strong
    assert rt(int) == (i32, True) and rt(float) == (f32, True) and rt(complex)[1]
    assert rt(bool) == (np.dtype(bool), False)
    assert rt(Weak("float16")) == (f32, True)  # weak values take their kind's default width
    assert rt(Weak("uint8"), Weak("uint16")) == (np.dtype("uint32"), True)
    assert rt(Weak("uint8"), np.bool_) == (i32, True)
    assert rt(None) == (f32, False)
    assert dtypes.result_type(np.float16, np.int32, 1j) == np.dtype("complex64")
  with flags(x64=True):
    assert rt(np.uint64, np.int64) == (np.dtype("float64"), True)  # the join is weak float
    assert rt(np.uint32, np.int32) == (np.dtype("int64"), False)
    assert rt(np.int8, 1.0) == (np.dtype("float64"), True)
    assert rt(np.int32, 1) == (i32, False)


def test_result_type_errors():
  with pytest.raises(ValueError, match="at least one"):
    dtypes.result_type()
  with pytest.raises(TypeError, match="Cannot determine dtype"):
    dtypes.result_type([1, 2])
  with pytest.raises(TypeError, match="not understood"):
    dtypes.result_type("foo")
  with pytest.raises(TypeError, match="Only arrays of numeric types are supported by JAX"):
    dtypes.result_type(np.array([object()]))
  with pytest.raises(TypeError, match="Only arrays of numeric types are supported by JAX"):
    dtypes.result_type(np.zeros(2, ">f4"))
  assert dtypes.result_type(dtypes.float0, dtypes.float0) == dtypes.float0
  with pytest.raises(ValueError, match="type promotion"):
    dtypes.result_type(dtypes.float0, np.float32)


def test_strict_mode():
  with flags(promotion="strict"):
    with pytest.raises(dtypes.TypePromotionError, match="strict") as info:
      dtypes.result_type(np.int32, np.float32)
    assert isinstance(info.value, ValueError)
    with pytest.raises(dtypes.TypePromotionError):
      dtypes.result_type(np.int32, 1.0)  # a weak float cannot meet a strong int either
    assert dtypes.result_type(np.float16, 1.0) == np.dtype("float16")
    assert dtypes.result_type(np.uint8, 1) == np.dtype("uint8")
    with pytest.raises(dtypes.TypePromotionError):
      dtypes.promote_types(np.int32, np.float32)
  assert dtypes.result_type(np.int32, np.float32) == np.dtype("float32")


def test_result_type_warns_for_unavailable_requested_dtypes():
  with flags(x64=False):
    for spec in (np.int64, "int64", np.dtype("int64")):
      with pytest.warns(UserWarning, match="Explicitly requested dtype int64"):
        assert dtypes.result_type(spec) == np.dtype("int32")
    with warnings.catch_warnings():
      warnings.simplefilter("error")
      dtypes.result_type(np.zeros(2, np.int64), 1, int, float)  # values and Python types: silent


def test_requested_64_bit_dtypes_warn_where_jax_warns_and_name_the_callers_line():
  """JAX 0.10.2 checks the dtypes users pass to these lax and jnp functions (its warning
  names the function); lax.full_like narrows silently. The warning points at the caller."""
  import xjax.numpy as jnp
  from xjax import lax
  x = jnp.ones((2, 2))
  cases = [
      ("convert_element_type", lambda: lax.convert_element_type(x, np.float64)),
      ("convert_element_type", lambda: lax.convert_element_type(x, "int64")),
      ("broadcasted_iota", lambda: lax.iota(np.int64, 3)),
      ("broadcasted_iota", lambda: lax.broadcasted_iota(np.int64, (2, 2), 0)),
      ("full", lambda: lax.full((2,), 1, np.float64)),
      ("dot", lambda: lax.dot(x, x, preferred_element_type=np.float64)),
      ("dot", lambda: lax.dot_general(x, x, (((1,), (0,)), ((), ())),
                                      preferred_element_type=np.float64)),
      ("conv_general_dilated", lambda: lax.conv(jnp.ones((1, 1, 3, 3)), jnp.ones((1, 1, 2, 2)),
                                                (1, 1), "VALID",
                                                preferred_element_type=np.float64)),
      ("matmul", lambda: jnp.matmul(x, x, preferred_element_type=np.float64)),
      ("dot", lambda: jnp.dot(x, x, preferred_element_type=np.float64)),
      ("einsum", lambda: jnp.einsum("ij,jk", x, x, preferred_element_type=np.float64))]
  with flags(x64=False):
    for name, run in cases:
      with pytest.warns(UserWarning, match=f"Explicitly requested dtype .*64 requested in "
                        f"{name} is not available") as record:
        out = run()
      assert out.dtype.itemsize == 4 and record[0].filename == __file__, name
    with warnings.catch_warnings():
      warnings.simplefilter("error")
      assert lax.full_like(x, 1, np.float64).dtype == np.float32
      assert lax.convert_element_type(x, float).dtype == np.float32


def test_python_scalar_subclasses_are_strong():
  class Color(enum.IntEnum):
    RED = 1

  with flags(x64=False):
    assert dtypes.result_type(Color.RED, np.int8, return_weak_type_flag=True) == (
        np.dtype("int32"), False)
  assert not dtypes.is_weakly_typed(Color.RED)


def test_promote_types():
  pt = dtypes.promote_types
  with flags(x64=False):
    assert pt(np.int64, np.int32) == np.dtype("int64")  # not canonicalized
    assert pt(np.uint64, np.int64) == np.dtype("float64")
    assert pt("uint8", int) == np.dtype("uint8")
    assert pt("float16", float) == np.dtype("float16")
    assert pt("bfloat16", float) == np.dtype(ml_dtypes.bfloat16)
    assert pt(int, int) == np.dtype("int64")
    assert pt(float, int) == np.dtype("float64")
    assert pt(bool, int) == np.dtype("int64")
    assert pt(complex, np.float16) == np.dtype("complex64")
    assert pt(np.int8, np.uint8) == np.dtype("int16")
    assert pt(np.dtype("int64"), np.int8) == np.dtype("int64")  # a dtype equal to int is strong
    assert pt(np.uint32, np.int32) == np.dtype("int32")  # without x64 they meet at int32
    with pytest.raises(TypeError):
      pt(1, 2.0)  # values are not dtypes
  with flags(x64=True):
    assert pt(np.uint32, np.int32) == np.dtype("int64")
  with flags(x64=False):
    with pytest.raises(dtypes.TypePromotionError):
      pt(ml_dtypes.float8_e4m3fn, np.float16)


def test_canonicalize_dtype():
  cases = {np.int64: "int32", np.uint64: "uint32", np.float64: "float32",
           np.complex128: "complex64", "float64": "float32", float: "float32", int: "int32",
           complex: "complex64", np.int8: "int8", ml_dtypes.bfloat16: "bfloat16",
           np.bool_: "bool", np.float16: "float16"}
  with flags(x64=False):
    for spec, expected in cases.items():
      assert dtypes.canonicalize_dtype(spec) == np.dtype(expected)
    assert dtypes.canonicalize_dtype(dtypes.float0) == dtypes.float0
  with flags(x64=True):
    assert dtypes.canonicalize_dtype(np.int64) == np.dtype("int64")
    assert dtypes.canonicalize_dtype(float) == np.dtype("float64")
  with pytest.raises(TypeError):
    dtypes.canonicalize_dtype("foo")


def test_defaults_follow_x64():
  with flags(x64=False):
    assert (dtypes.default_int_dtype(), dtypes.default_uint_dtype(), dtypes.default_float_dtype(),
            dtypes.default_complex_dtype()) == tuple(map(np.dtype, ("int32", "uint32", "float32",
                                                                    "complex64")))
  with flags(x64=True):
    assert (dtypes.default_int_dtype(), dtypes.default_uint_dtype(), dtypes.default_float_dtype(),
            dtypes.default_complex_dtype()) == tuple(map(np.dtype, ("int64", "uint64", "float64",
                                                                    "complex128")))


def test_dtype_of_values_and_specifiers():
  d = dtypes.dtype
  assert d(1) == np.dtype("int64") and d(1.0) == np.dtype("float64") and d(True) == np.dtype(bool)
  assert d(1j) == np.dtype("complex128")
  assert d(float) == np.dtype("float64") and d(int) == np.dtype("int64")
  assert d("bfloat16") == d(ml_dtypes.bfloat16) == np.dtype(ml_dtypes.bfloat16)
  assert d(np.float32) == d("float32") == d(np.dtype("float32")) == np.dtype("float32")
  assert d(np.zeros(2, np.uint8)) == np.dtype("uint8") and d(np.float16(1)) == np.dtype("float16")
  assert d(Weak("int8")) == np.dtype("int8")
  assert d(dtypes.float0) == dtypes.float0
  with flags(x64=False):
    assert d(1, canonicalize=True) == np.dtype("int32")
    assert d(np.zeros(2), canonicalize=True) == np.dtype("float32")
    with pytest.warns(UserWarning, match="Explicitly requested dtype float64"):
      assert d("float64", canonicalize=True) == np.dtype("float32")
    with warnings.catch_warnings():
      warnings.simplefilter("error")
      assert d(float, canonicalize=True) == np.dtype("float32")
  with flags(x64=True):
    assert d(1, canonicalize=True) == np.dtype("int64")


@pytest.mark.parametrize("bad,error,match", [
    (object(), TypeError, "Cannot determine dtype"),
    ([1, 2], TypeError, "Cannot determine dtype"),
    (None, ValueError, "Invalid argument"),
    ("foo", TypeError, "not understood"),
    (np.dtype("O"), TypeError, "Only arrays of numeric types are supported"),
    (np.array(["a"]), TypeError, "Only arrays of numeric types are supported"),
    ("U3", TypeError, "Only arrays of numeric types are supported"),
])
def test_dtype_rejects(bad, error, match):
  with pytest.raises(error, match=match):
    dtypes.dtype(bad)


def test_is_weakly_typed():
  assert dtypes.is_weakly_typed(1) and dtypes.is_weakly_typed(1.0) and dtypes.is_weakly_typed(1j)
  assert not dtypes.is_weakly_typed(True)
  assert not dtypes.is_weakly_typed(np.float32(1)) and not dtypes.is_weakly_typed(np.array(1.0))
  assert dtypes.is_weakly_typed(Weak("float32"))
  assert not dtypes.is_weakly_typed(float)


def test_python_scalar_dtypes():
  assert dtypes.python_scalar_dtypes == {bool: np.dtype(bool), int: np.dtype("int64"),
                                         float: np.dtype("float64"),
                                         complex: np.dtype("complex128")}


def test_scalar_type_of():
  for value, expected in [(1, int), (1.0, float), (1j, complex), (True, bool),
                          (np.float32(1), float), (np.zeros(2, np.uint8), int),
                          (np.zeros(2, ml_dtypes.bfloat16), float), (np.zeros(2, np.bool_), bool),
                          (np.zeros(2, ml_dtypes.int4), int), (Weak("complex64"), complex)]:
    assert dtypes.scalar_type_of(value) is expected
  with pytest.raises(TypeError):
    dtypes.scalar_type_of(np.zeros(2, dtypes.float0))


# Rows: issubdtype(a, b) for a in ISSUB_A, one character per b in ISSUB_B (from the reference).
ISSUB_A = [np.bool_, np.int8, np.uint32, np.float16, np.float32, np.float64, ml_dtypes.bfloat16,
           np.complex64, ml_dtypes.int4, ml_dtypes.uint4, ml_dtypes.float8_e4m3fn, dtypes.float0,
           int, float, complex, bool, "float32", "bfloat16", np.dtype("float32"), np.generic,
           np.floating, np.inexact, np.integer]
ISSUB_B = [np.generic, np.number, np.inexact, np.floating, np.complexfloating, np.integer,
           np.signedinteger, np.unsignedinteger, np.bool_, np.float32, np.float64,
           ml_dtypes.bfloat16, np.int8, ml_dtypes.int4, int, float, complex, bool, "float32",
           np.void, np.object_]
ISSUB_TABLE = """
T.......T........T...
TT...TT.....T........
TT...T.T.............
TTTT.................
TTTT.....T........T..
TTTT......T....T.....
TTTT.......T.........
TTT.T................
TT...TT......T.......
TT...T.T.............
TTTT.................
T..................T.
TT...TT.......T......
TTTT......T....T.....
TTT.T...........T....
T.......T........T...
TTTT.....T........T..
TTTT.......T.........
TTTT.....T........T..
T....................
TTTT.................
TTT..................
TT...T...............
"""


def test_issubdtype_table():
  got = ["".join("T" if dtypes.issubdtype(a, b) else "." for b in ISSUB_B) for a in ISSUB_A]
  assert got == ISSUB_TABLE.split()
  assert dtypes.issubdtype(Weak("bfloat16"), np.floating)


def test_iinfo_finfo():
  assert dtypes.finfo(ml_dtypes.bfloat16).bits == 16
  assert dtypes.finfo(ml_dtypes.bfloat16).eps == 2.0 ** -7
  assert float(dtypes.finfo(ml_dtypes.float8_e4m3fn).max) == 448.0
  assert dtypes.finfo(np.float32).eps == np.finfo(np.float32).eps
  assert (dtypes.iinfo(np.int8).min, dtypes.iinfo(np.int8).max) == (-128, 127)
  assert (dtypes.iinfo(ml_dtypes.int4).min, dtypes.iinfo(ml_dtypes.int4).max) == (-8, 7)
  assert dtypes.iinfo(np.uint32).max == 2 ** 32 - 1
  with pytest.raises(ValueError):
    dtypes.finfo(np.int32)


def test_itemsize_bits():
  for spec, bits in [(np.bool_, 8), (np.int8, 8), (ml_dtypes.int4, 4), (ml_dtypes.int2, 2),
                     (ml_dtypes.float4_e2m1fn, 4), (ml_dtypes.float6_e2m3fn, 6),
                     (np.complex128, 128), ("bfloat16", 16)]:
    assert dtypes.itemsize_bits(spec) == bits
  with pytest.raises(TypeError):
    dtypes.itemsize_bits(dtypes.float0)


def test_classification():
  kinds = {"bool": "bool", "int8": "int", "int64": "int", "uint8": "uint", "uint4": "uint",
           "int4": "int", "float16": "float", "bfloat16": "float", "float8_e5m2": "float",
           "float64": "float", "complex64": "complex", "complex128": "complex"}
  for name, kind in kinds.items():
    dt = np.dtype(getattr(ml_dtypes, name, None) or name)
    assert dtypes.is_bool(dt) == (kind == "bool")
    assert dtypes.is_integer(dt) == (kind in ("int", "uint"))
    assert dtypes.is_unsigned(dt) == (kind == "uint")
    assert dtypes.is_float(dt) == (kind == "float")
    assert dtypes.is_complex(dt) == (kind == "complex")
    assert dtypes.is_inexact(dt) == (kind in ("float", "complex"))
  assert dtypes.is_float("float32") and dtypes.is_integer(np.int16)
  assert not dtypes.is_float(dtypes.float0)


def test_dtype_conversions():
  names = ["bool", "int8", "int16", "uint8", "int32", "int64", "uint64", "float16", "bfloat16",
           "float32", "float64", "complex64", "complex128", "int4", "float8_e4m3fn"]
  expected = {
      dtypes.to_inexact_dtype: "f32 f32 f32 f32 f32 f64 f64 f16 bf16 f32 f64 c64 c128 f32 "
                               "f8_e4m3fn",
      dtypes.to_numeric_dtype: "i32 i8 i16 u8 i32 i64 u64 f16 bf16 f32 f64 c64 c128 i4 f8_e4m3fn",
      dtypes.to_floating_dtype: "f32 f32 f32 f32 f32 f64 f64 f16 bf16 f32 f64 f32 f64 f32 "
                                "f8_e4m3fn",
      dtypes.to_complex_dtype: "c64 c64 c64 c64 c64 c128 c128 c64 c64 c64 c128 c64 c128 c64 c64",
  }
  for x64 in (False, True):  # none of them depends on x64
    with flags(x64):
      for fn, want in expected.items():
        got = [dtypes.short_name(fn(getattr(ml_dtypes, n, None) or n)) for n in names]
        assert got == want.split(), fn.__name__


def test_short_names():
  # As the reference prints them in jaxprs.
  expected = {"float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16",
              "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8",
              "uint16": "u16", "uint32": "u32", "uint64": "u64", "bool": "bool",
              "complex64": "c64", "complex128": "c128", "float8_e4m3fn": "f8_e4m3fn",
              "float8_e5m2": "f8_e5m2", "float8_e4m3b11fnuz": "f8_e4m3b11fnuz",
              "float8_e8m0fnu": "f8_e8m0fnu", "float8_e3m4": "f8_e3m4",
              "float4_e2m1fn": "f4_e2m1fn", "int4": "i4", "uint4": "u4", "int2": "i2"}
  for name, short in expected.items():
    assert dtypes.short_name(np.dtype(getattr(ml_dtypes, name, None) or name)) == short
  assert dtypes.short_name("float32") == "f32"
  assert dtypes.short_name(dtypes.float0) == "float0"


def test_float0():
  assert dtypes.float0 == np.dtype([("float0", np.void, 0)])
  assert repr(dtypes.float0) == "dtype([('float0', 'V')])"
  assert dtypes.float0.itemsize == 0


def test_check_user_dtype_supported():
  check = dtypes.check_user_dtype_supported
  with flags(x64=False):
    with pytest.warns(UserWarning, match="Explicitly requested dtype float64 requested in "
                                         "zeros is not available.*truncated to dtype float32"):
      assert check(np.float64, "zeros") == np.dtype("float32")
    for spec, short in [("int64", "int32"), (np.uint64, "uint32"), (np.complex128, "complex64")]:
      with pytest.warns(UserWarning, match="jax_enable_x64"):
        assert check(spec, "zeros") == np.dtype(short)
    with pytest.warns(UserWarning, match=r"dtype float64 is not available"):
      check("float64")
    with warnings.catch_warnings():
      warnings.simplefilter("error")
      assert check(float, "zeros") == np.dtype("float32")
      assert check(int, "zeros") == np.dtype("int32")
      assert check(np.int8, "zeros") == np.dtype("int8")
      assert check(ml_dtypes.float8_e4m3fn) == np.dtype(ml_dtypes.float8_e4m3fn)
      assert check(ml_dtypes.int4) == np.dtype(ml_dtypes.int4)
      assert check(dtypes.float0) == dtypes.float0
      assert check(None, "zeros") is None
  with flags(x64=True):
    with warnings.catch_warnings():
      warnings.simplefilter("error")
      assert check(np.float64, "zeros") == np.dtype("float64")
  for bad in (object, "U3", np.longdouble, np.dtype("datetime64[s]"), ">f4",
              *[getattr(ml_dtypes, n) for n in ["complex32"] if hasattr(ml_dtypes, n)]):
    with pytest.raises(TypeError, match=r"only boolean and numeric dtypes.* in arange"):
      check(bad, "arange")
  with pytest.raises(TypeError, match="numeric dtypes, got dtype <class 'object'>$"):
    check(object)
  with pytest.raises(TypeError):
    check(1, "zeros")
  # a value with a dtype names that dtype, and does not stand for an equal value (1)
  assert check(np.float32(1)) == np.dtype("float32")
  with pytest.raises(TypeError, match="Cannot interpret '1' as a data type"):
    check(1, "zeros")


def test_public_module_mirrors_jax_dtypes():
  assert sorted(n for n in dir(xjax.dtypes) if not n.startswith("_")) == [
      "TypePromotionError", "bfloat16", "canonicalize_dtype", "extended", "finfo", "float0",
      "iinfo", "issubdtype", "itemsize_bits", "prng_key", "result_type", "scalar_type_of"]
  assert xjax.dtypes.bfloat16 is ml_dtypes.bfloat16
  assert issubclass(xjax.dtypes.TypePromotionError, ValueError)


def test_result_type_cache_respects_flag_changes():
  args = (np.zeros(2, np.int64), 1.5)
  with flags(x64=False):
    assert dtypes.result_type(*args) == np.dtype("float32")
  with flags(x64=True):
    assert dtypes.result_type(*args) == np.dtype("float64")
  with flags(x64=False, promotion="strict"):
    with pytest.raises(dtypes.TypePromotionError):
      dtypes.result_type(*args)


def test_scalar_types_compare_unequal():
  # optax compares dtypes with `!=`; values as JAX 0.10.2
  import xjax.numpy as jnp
  assert (jnp.float32 != jnp.float16) is True
  assert (jnp.float32 != jnp.float32) is False
  assert (jnp.float32 != np.float32) is False
  assert (jnp.float32 == "float32") is False


def test_issubdtype_of_none_is_numpys_default_dtype():
  # JAX 0.10.2 (as np.dtype(None)): None stands for float64
  assert dtypes.issubdtype(None, np.floating)
  assert not dtypes.issubdtype(None, np.integer)
  assert dtypes.issubdtype(None, np.float64)
  assert not dtypes.issubdtype(np.float32, None)


def test_narrow_storage_types_are_numpy_scalar_types():
  # jnp.float8_* / int4 / uint4 ... (ml_dtypes), as JAX: dtype specifiers and constructors.
  import xjax
  import xjax.numpy as jnp
  assert jnp.float8_e4m3fn.dtype == np.dtype(ml_dtypes.float8_e4m3fn)
  x = jnp.float8_e4m3fn(1.5)
  assert x.dtype == ml_dtypes.float8_e4m3fn and float(x) == 1.5
  assert jnp.zeros(2, jnp.float8_e5m2).dtype == ml_dtypes.float8_e5m2
  y = jnp.uint4(5) + jnp.uint4(2)
  assert y.dtype == ml_dtypes.uint4 and int(y) == 7
  assert int(xjax.jit(lambda v: v * 2)(jnp.int4(3))) == 6
