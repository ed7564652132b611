"""NumPy's elementwise functions over lax, with NumPy broadcasting and JAX promotion."""
from __future__ import annotations

import operator

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.values import get_aval
from xjax._src.api.jit import compiled_when_eager
from xjax._src.primitives.lax import rounding
from xjax._src.primitives.lax.elementwise import (abs as lax_abs, acos, acosh, add as lax_add, asin,
                                                  asinh, atan, atan2, atanh,
                                                  bitwise_and as lax_bitwise_and,
                                                  bitwise_not as lax_bitwise_not,
                                                  bitwise_or as lax_bitwise_or,
                                                  bitwise_xor as lax_bitwise_xor, cbrt as lax_cbrt,
                                                  convert_element_type, cos as lax_cos,
                                                  cosh as lax_cosh, div, eq, exp as lax_exp,
                                                  exp2 as lax_exp2, expm1 as lax_expm1, ge, gt,
                                                  imag, integer_pow, le, log as lax_log,
                                                  log1p as lax_log1p, lt, max as lax_max,
                                                  min as lax_min, mul, ne, neg, pow as lax_pow,
                                                  real, rem, select_n, shift_left,
                                                  shift_right_arithmetic, shift_right_logical,
                                                  sign as lax_sign, sin as lax_sin,
                                                  sinh as lax_sinh, sqrt as lax_sqrt, sub,
                                                  tan as lax_tan, tanh as lax_tanh)
from xjax._src.primitives.lax.shapes import full_like
from xjax._src.libraries.numpy.arguments import check_arraylike, is_traced
from xjax._src.libraries.numpy.promotion import (promote_args, promote_args_inexact,
                                                 promote_args_numeric, promote_shapes)
from xjax._src.libraries.numpy.shaping import broadcast_arrays


def _inexact_unary(name, op):
  def fn(x, /):
    (x,) = promote_args_inexact(name, x)
    return op(x)
  fn.__name__ = fn.__qualname__ = name
  fn.__doc__ = f"Elementwise {name} (integers are promoted to float), as numpy.{name}."
  return compiled_when_eager(fn)


def _binary(name, op, promote=promote_args):
  def fn(x1, x2, /):
    a, b = promote(name, x1, x2)
    return op(a, b)
  fn.__name__ = fn.__qualname__ = name
  fn.__doc__ = f"Elementwise {name} with NumPy broadcasting, as numpy.{name}."
  return compiled_when_eager(fn)


add = _binary("add", lambda a, b: lax_bitwise_or(a, b) if get_aval(a).dtype == np.bool_
              else lax_add(a, b))
subtract = _binary("subtract", sub)
multiply = _binary("multiply", lambda a, b: lax_bitwise_and(a, b)
                   if get_aval(a).dtype == np.bool_ else mul(a, b))
true_divide = _binary("true_divide", div, promote_args_inexact)
divide = true_divide
maximum = _binary("maximum", lax_max)
minimum = _binary("minimum", lax_min)
arctan2 = _binary("arctan2", atan2, promote_args_inexact)
equal = _binary("equal", eq)
not_equal = _binary("not_equal", ne)


def _ordering(name, op, ties):
  """An order comparison; complex numbers compare lexicographically (real, then imag)."""
  def compare(a, b):
    if not dtypes.is_complex(get_aval(a).dtype):
      return ties(a, b)
    ra, rb = real(a), real(b)
    tie = lax_bitwise_and(eq(ra, rb), ties(imag(a), imag(b)))
    return lax_bitwise_or(op(ra, rb), tie)
  return _binary(name, compare)


less = _ordering("less", lt, lt)
less_equal = _ordering("less_equal", lt, le)
greater = _ordering("greater", gt, gt)
greater_equal = _ordering("greater_equal", gt, ge)

sin = _inexact_unary("sin", lax_sin)
cos = _inexact_unary("cos", lax_cos)
tan = _inexact_unary("tan", lax_tan)
arcsin = _inexact_unary("arcsin", asin)
arccos = _inexact_unary("arccos", acos)
arctan = _inexact_unary("arctan", atan)
sinh = _inexact_unary("sinh", lax_sinh)
cosh = _inexact_unary("cosh", lax_cosh)
tanh = _inexact_unary("tanh", lax_tanh)
arcsinh = _inexact_unary("arcsinh", asinh)
arccosh = _inexact_unary("arccosh", acosh)
arctanh = _inexact_unary("arctanh", atanh)
exp = _inexact_unary("exp", lax_exp)
exp2 = _inexact_unary("exp2", lax_exp2)
expm1 = _inexact_unary("expm1", lax_expm1)
log = _inexact_unary("log", lax_log)
log1p = _inexact_unary("log1p", lax_log1p)
sqrt = _inexact_unary("sqrt", lax_sqrt)
cbrt = _inexact_unary("cbrt", lax_cbrt)


@compiled_when_eager
def negative(x, /):
  check_arraylike("negative", x)
  if get_aval(x).dtype == np.bool_:
    raise TypeError("negative does not accept dtype bool.")
  (x,) = promote_args_numeric("negative", x)
  return neg(x)


@compiled_when_eager
def positive(x, /):
  check_arraylike("positive", x)
  aval = get_aval(x)
  return convert_element_type(x, aval.dtype, aval.weak_type)


@compiled_when_eager
def absolute(x, /):
  check_arraylike("absolute", x)
  aval = get_aval(x)
  if dtypes.is_unsigned(aval.dtype) or aval.dtype == np.bool_:
    return x if not isinstance(x, (int, float, bool)) else convert_element_type(
        x, aval.dtype, aval.weak_type)
  return lax_abs(x)


abs = absolute


@compiled_when_eager
def sign(x, /):
  check_arraylike("sign", x)
  if dtypes.dtype(x) == np.bool_:
    raise TypeError("sign does not accept booleans")
  (x,) = promote_args_numeric("sign", x)
  return lax_sign(x)


@compiled_when_eager
def square(x, /):
  (x,) = promote_args_numeric("square", x)
  return integer_pow(x, 2)


@compiled_when_eager
def reciprocal(x, /):
  (x,) = promote_args_inexact("reciprocal", x)
  return integer_pow(x, -1)


@compiled_when_eager(staged="floor_divide")
def floor_divide(x1, x2, /):
  a, b = promote_args_numeric("floor_divide", x1, x2)
  dtype = get_aval(a).dtype
  if dtypes.is_complex(dtype):
    raise TypeError("floor_divide does not support complex-valued inputs")
  if dtypes.is_integer(dtype):
    if dtypes.is_unsigned(dtype):
      return div(a, b)
    q = div(a, b)  # truncates; one less where the signs differ and it is inexact
    adjust = lax_bitwise_and(ne(rem(a, b), _zero(a)),
                             ne(lax_sign(a), lax_sign(b)))
    return select_n(adjust, q, sub(q, _const(q, 1)))
  return float_divmod(a, b)[0]


def float_divmod(a, b):
  """(a // b, a mod b) for floats as JAX computes them: the quotient of ``a - a rem b``
  (exact where the remainder is), one less where the remainder's sign differs from b's,
  rounded to an integer."""
  r = rem(a, b)  # before broadcasting: lax's rule reports mismatched shapes (TypeError)
  a, b = broadcast_arrays(a, b)
  q = div(select_n(eq(b, _zero(b)), sub(a, r), a), b)
  fix = lax_bitwise_and(ne(r, _zero(r)), ne(lax_sign(b), lax_sign(r)))
  return (rounding.round(select_n(fix, q, sub(q, _const(q, 1)))),
          select_n(fix, r, lax_add(r, b)))


@compiled_when_eager(staged="remainder")
def remainder(x1, x2, /):
  a, b = promote_args_numeric("remainder", x1, x2)
  dtype = get_aval(a).dtype
  if dtypes.is_complex(dtype):
    raise TypeError("remainder does not support complex-valued inputs")
  if dtypes.is_integer(dtype):  # x % 0 is 0 for integers
    b = select_n(eq(b, _zero(b)), b, full_like(b, 1))
  r = rem(a, b)
  if dtypes.is_unsigned(dtype):
    return r
  zero = _zero(r)
  fix = lax_bitwise_and(ne(r, zero), ne(lt(r, zero), lt(b, zero)))
  return select_n(fix, r, lax_add(r, b))


mod = remainder


def power(x1, x2, /):
  check_arraylike("power", x1, x2)
  if not is_traced(x2):
    try:
      exponent = operator.index(x2)
    except TypeError:
      pass
    else:
      (a,) = promote_args_numeric("power", x1)
      return integer_pow(a, exponent)
  x1, x2 = promote_shapes("power", x1, x2)
  a, b = promote_args_numeric("power", x1, x2)
  dtype = get_aval(a).dtype
  if dtypes.is_integer(dtype) or dtype == np.bool_:
    return _integer_power(a, b)
  d1, d2 = get_aval(x1).dtype, get_aval(x2).dtype
  if dtypes.is_inexact(d1) and dtypes.is_integer(d2):
    # An integer exponent keeps the base's dtype; weak only when both are.
    (a,) = promote_args_numeric("power", x1)
    b = convert_element_type(x2, d1, get_aval(x2).weak_type)
  return lax_pow(a, b)


def _integer_power(a, b):
  """Integer ** integer by squaring over the exponent's low 6 bits (larger overflows)."""
  dtype = get_aval(a).dtype
  one = np.ones((), dtype)[()]
  zero = np.zeros((), dtype)[()]
  acc = convert_element_type(
      lax_bitwise_not(lax_bitwise_and(eq(a, zero), ne(b, zero))), dtype)
  base, e = a, b
  for _ in range(6):
    bit = ne(lax_bitwise_and(e, one), zero)
    acc = select_n(bit, acc, mul(acc, base))
    base = mul(base, base)
    e = shift_right_logical(e, one)
  return acc


def _const(x, value):
  """``value`` as a scalar of x's dtype, weakly typed (a Python scalar) where x is."""
  aval = get_aval(x)
  c = np.asarray(value, aval.dtype)[()]
  return c.item() if aval.weak_type else c


def _zero(x):
  return _const(x, 0)


@compiled_when_eager
def logical_not(x, /):
  check_arraylike("logical_not", x)
  return eq(x, _zero(x)) if get_aval(x).dtype != np.bool_ else lax_bitwise_not(x)


def _logical(name, op):
  def fn(x1, x2, /):
    # promoted together first (as JAX), so Python scalars keep their weak type
    a, b = (ne(v, _zero(v)) if get_aval(v).dtype != np.bool_ else v
            for v in promote_args(name, x1, x2))
    return op(a, b)
  fn.__name__ = name
  return compiled_when_eager(fn)


logical_and = _logical("logical_and", lax_bitwise_and)
logical_or = _logical("logical_or", lax_bitwise_or)
logical_xor = _logical("logical_xor", lax_bitwise_xor)


def _bitwise(name, op):
  def fn(x1, x2, /):
    a, b = promote_args(name, x1, x2)
    dtype = get_aval(a).dtype
    if not (dtypes.is_integer(dtype) or dtype == np.bool_):
      raise TypeError(f"{name} requires integer or boolean arguments, got {dtype}")
    return op(a, b)
  fn.__name__ = name
  return compiled_when_eager(fn)


bitwise_and = _bitwise("bitwise_and", lax_bitwise_and)
bitwise_or = _bitwise("bitwise_or", lax_bitwise_or)
bitwise_xor = _bitwise("bitwise_xor", lax_bitwise_xor)


def _shift_args(name, x1, x2):
  """Promoted shift operands; booleans shift as int32."""
  a, b = promote_args(name, x1, x2)
  if get_aval(a).dtype == np.bool_:
    a, b = (convert_element_type(v, np.int32) for v in (a, b))
  return a, b


@compiled_when_eager
def left_shift(x1, x2, /):
  a, b = _shift_args("left_shift", x1, x2)
  return _bitwise("left_shift", shift_left)(a, b)


@compiled_when_eager
def right_shift(x1, x2, /):
  a, b = _shift_args("right_shift", x1, x2)
  if dtypes.is_unsigned(get_aval(a).dtype):
    return shift_right_logical(a, b)
  return shift_right_arithmetic(a, b)


@compiled_when_eager
def invert(x, /):
  check_arraylike("invert", x)
  return lax_bitwise_not(x)


bitwise_not = invert
bitwise_invert = invert
