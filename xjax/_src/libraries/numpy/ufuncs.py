"""NumPy's elementwise functions over lax, with NumPy broadcasting and JAX promotion."""
from __future__ import annotations

import inspect
import operator

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.values import get_aval
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax import lax, rounding
from xjax._src.core.trace import Tracer as _Tracer
from xjax._src.libraries.numpy import arguments as _arguments
from xjax._src.libraries.numpy.arguments import is_traced
from xjax._src.libraries.numpy.creation import as_operand as _as_operand
from xjax._src.libraries.numpy.promotion import (promote_args, promote_args_inexact,
                                                 promote_args_numeric, promote_shapes)
from xjax._src.libraries.numpy.shaping import broadcast_arrays
from xjax._src.libraries.numpy.where import _where

# The public functions (what xjax.numpy takes from here).
__all__ = ["abs", "absolute", "add", "arccos", "arccosh", "arcsin", "arcsinh", "arctan",
           "arctan2", "arctanh", "bitwise_and", "bitwise_invert", "bitwise_not", "bitwise_or",
           "bitwise_xor", "cbrt", "cos", "cosh", "divide", "equal", "exp", "exp2", "expm1",
           "floor_divide", "greater", "greater_equal", "invert", "left_shift", "less",
           "less_equal", "log", "log1p", "logical_and", "logical_not", "logical_or",
           "logical_xor", "maximum", "minimum", "mod", "multiply", "negative", "not_equal",
           "positive", "power", "reciprocal", "remainder", "right_shift", "sign", "sin",
           "sinh", "sqrt", "square", "subtract", "tan", "tanh", "true_divide"]


def _inexact_unary(name, op):
  def fn(x, /):
    (x,) = promote_args_inexact(name, x)
    return op(x)
  fn.__name__ = fn.__qualname__ = name
  fn.__doc__ = f"Elementwise {name} (integers are promoted to float), as numpy.{name}."
  return compiled_when_eager(fn)


_NUMPY_NAMES = inspect.Signature([inspect.Parameter(name, inspect.Parameter.POSITIONAL_ONLY)
                                  for name in ("x1", "x2")])


def _binary(name, op, promote=promote_args, numpy_names=False):
  def fn(x, y, /):  # (JAX's names, or NumPy's where JAX's are: jit's errors use them)
    a, b = promote(name, x, y)
    return op(a, b)
  if numpy_names:
    fn.__signature__ = _NUMPY_NAMES
  fn.__name__ = fn.__qualname__ = name
  fn.__doc__ = f"Elementwise {name} with NumPy broadcasting, as numpy.{name}."
  return compiled_when_eager(fn)


add = _binary("add", lambda a, b: lax.bitwise_or(a, b) if get_aval(a).dtype == np.bool_
              else lax.add(a, b))
subtract = _binary("subtract", lax.sub)
multiply = _binary("multiply", lambda a, b: lax.bitwise_and(a, b)
                   if get_aval(a).dtype == np.bool_ else lax.mul(a, b))
true_divide = _binary("true_divide", lax.div, promote_args_inexact, numpy_names=True)
divide = true_divide
maximum = _binary("maximum", lax.max)
minimum = _binary("minimum", lax.min)
arctan2 = _binary("arctan2", lax.atan2, promote_args_inexact, numpy_names=True)
equal = _binary("equal", lax.eq)
not_equal = _binary("not_equal", lax.ne)


def _ordering(name, op, ties):
  """An order comparison; complex numbers compare lexicographically (real, then imag)."""
  def compare(a, b):
    if not dtypes.is_complex(get_aval(a).dtype):
      return ties(a, b)
    ra, rb = lax.real(a), lax.real(b)
    tie = lax.bitwise_and(lax.eq(ra, rb), ties(lax.imag(a), lax.imag(b)))
    return lax.bitwise_or(op(ra, rb), tie)
  return _binary(name, compare)


less = _ordering("less", lax.lt, lax.lt)
less_equal = _ordering("less_equal", lax.lt, lax.le)
greater = _ordering("greater", lax.gt, lax.gt)
greater_equal = _ordering("greater_equal", lax.gt, lax.ge)

sin = _inexact_unary("sin", lax.sin)
cos = _inexact_unary("cos", lax.cos)
tan = _inexact_unary("tan", lax.tan)
arcsin = _inexact_unary("arcsin", lax.asin)
arccos = _inexact_unary("arccos", lax.acos)
arctan = _inexact_unary("arctan", lax.atan)
sinh = _inexact_unary("sinh", lax.sinh)
cosh = _inexact_unary("cosh", lax.cosh)
tanh = _inexact_unary("tanh", lax.tanh)
arcsinh = _inexact_unary("arcsinh", lax.asinh)
arccosh = _inexact_unary("arccosh", lax.acosh)
arctanh = _inexact_unary("arctanh", lax.atanh)
exp = _inexact_unary("exp", lax.exp)
exp2 = _inexact_unary("exp2", lax.exp2)
expm1 = _inexact_unary("expm1", lax.expm1)
log = _inexact_unary("log", lax.log)
log1p = _inexact_unary("log1p", lax.log1p)
sqrt = _inexact_unary("sqrt", lax.sqrt)
cbrt = _inexact_unary("cbrt", lax.cbrt)


@compiled_when_eager
def negative(x, /):
  x, = _arguments.arraylike("negative", x)
  if get_aval(x).dtype == np.bool_:
    raise TypeError("neg does not accept dtype bool. Accepted dtypes are subtypes of integer, "
                    "floating, complexfloating.")
  (x,) = promote_args_numeric("negative", x)
  return lax.neg(x)


@compiled_when_eager
def positive(x, /):
  x, = _arguments.arraylike("positive", x)
  if isinstance(x, _Tracer):  # (forwarded, as JAX's jitted positive under linearize)
    return _as_operand(x)
  aval = get_aval(x)
  return lax.convert_element_type(x, aval.dtype, aval.weak_type)


@compiled_when_eager
def absolute(x, /):
  x, = _arguments.arraylike("absolute", x)
  aval = get_aval(x)
  if dtypes.is_unsigned(aval.dtype) or aval.dtype == np.bool_:
    return x if not isinstance(x, (int, float, bool)) else lax.convert_element_type(
        x, aval.dtype, aval.weak_type)
  return lax.abs(x)


abs = absolute


@compiled_when_eager
def sign(x, /):
  x, = _arguments.arraylike("sign", x)
  if dtypes.dtype(x) == np.bool_:
    raise TypeError("sign does not accept dtype bool. Accepted dtypes are subtypes of "
                    "integer, floating, complexfloating.")
  (x,) = promote_args_numeric("sign", x)
  return lax.sign(x)


@compiled_when_eager
def square(x, /):
  (x,) = promote_args_numeric("square", x)
  return lax.square(x)


@compiled_when_eager
def reciprocal(x, /):
  (x,) = promote_args_inexact("reciprocal", x)
  return lax.integer_pow(x, -1)


@compiled_when_eager(staged="floor_divide")
def floor_divide(x1, x2, /):
  a, b = promote_args_numeric("floor_divide", x1, x2)
  dtype = get_aval(a).dtype
  if dtypes.is_complex(dtype):
    raise TypeError("floor_divide does not support complex-valued inputs")
  if dtypes.is_integer(dtype):
    if dtypes.is_unsigned(dtype):
      return lax.div(a, b)
    q = lax.div(a, b)  # truncates; one less where the signs differ and it is inexact
    adjust = lax.bitwise_and(lax.ne(lax.sign(a), lax.sign(b)),
                             lax.ne(lax.rem(a, b), _zero(a)))
    return _where(adjust, lax.sub(q, _const(q, 1)), q)
  return float_divmod(a, b)[0]


def float_divmod(a, b):
  """(a // b, a mod b) for floats as JAX computes them: the quotient of ``a - a rem b``
  (exact where the remainder is), one less where the remainder's sign differs from b's,
  rounded to an integer."""
  r = lax.rem(a, b)
  q = lax.div(_where(lax.eq(b, _zero(b)), a, lax.sub(a, r)), b)
  fix = lax.bitwise_and(lax.ne(r, _zero(r)), lax.ne(lax.sign(b), lax.sign(r)))
  mod = lax.select_n(fix, r, lax.add(r, b))
  return rounding.round(lax.select_n(fix, q, lax.sub(q, _const(q, 1)))), mod


def complex_remainder_error(dtype) -> TypeError:
  """JAX's error for a remainder of complex numbers (its ``rem`` primitive's dtype check)."""
  return TypeError(f"rem does not accept dtype {dtype} at position 0. Accepted dtypes at "
                   "position 0 are subtypes of integer, floating.")


@compiled_when_eager(staged="remainder")
def remainder(x1, x2, /):
  a, b = promote_args_numeric("remainder", x1, x2)
  dtype = get_aval(a).dtype
  if dtypes.is_complex(dtype):
    raise complex_remainder_error(dtype)
  if dtypes.is_integer(dtype):  # x % 0 is 0 for integers
    b = _where(lax.eq(b, _zero(b)), _const(b, 1), b)
  r = lax.rem(a, b)
  zero = _zero(r)
  inexact = lax.ne(r, zero)
  fix = lax.bitwise_and(lax.ne(lax.lt(r, zero), lax.lt(b, zero)), inexact)
  return lax.select_n(fix, r, lax.add(r, b))


mod = remainder


def power(x1, x2, /):
  x1, x2 = _arguments.arraylike("power", x1, x2)
  if not is_traced(x2):
    try:
      exponent = operator.index(x2)
    except TypeError:
      pass
    else:
      (a,) = promote_args_numeric("power", x1)
      return lax.integer_pow(a, exponent)
  x1, x2 = promote_shapes("power", x1, x2)
  a, b = promote_args_numeric("power", x1, x2)
  dtype = get_aval(a).dtype
  if dtypes.is_integer(dtype) or dtype == np.bool_:
    return _integer_power(a, b)
  d1, d2 = get_aval(x1).dtype, get_aval(x2).dtype
  if dtypes.is_inexact(d1) and dtypes.is_integer(d2):
    # an integer exponent as it is (lax.pow takes it: its derivative at 0 is 0, as JAX's)
    (a,) = promote_args_numeric("power", x1)
    b = x2
  return lax.pow(a, b)


def _integer_power(a, b):
  """Integer ** integer by squaring over the exponent's low 6 bits (larger overflows)."""
  a, b = broadcast_arrays(a, b)   # the accumulator takes the broadcast shape
  dtype = get_aval(a).dtype
  one = np.ones((), dtype)[()]
  zero = np.zeros((), dtype)[()]
  acc = lax.convert_element_type(
      lax.bitwise_not(lax.bitwise_and(lax.eq(a, zero), lax.ne(b, zero))), dtype)
  base, e = a, b
  for _ in range(6):
    bit = lax.ne(lax.bitwise_and(e, one), zero)
    acc = lax.select_n(bit, acc, lax.mul(acc, base))
    base = lax.mul(base, base)
    e = lax.shift_right_logical(e, one)
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
  x, = _arguments.arraylike("logical_not", x)
  return lax.eq(x, _zero(x)) if get_aval(x).dtype != np.bool_ else lax.bitwise_not(x)


def _logical(name, op):
  def fn(x, y, /):
    # Promoted together first, then compared with zero (as JAX): the zero is weak for a
    # weak 0-d operand only, so a weak promotion against an array operand gives a strong
    # result (``logical_and(bool_array, 2.5)``) while ``logical_and(True, 2)`` stays weak.
    a, b = (lax.ne(v, _zero(v) if get_aval(v).ndim == 0 else np.zeros((), get_aval(v).dtype))
            if get_aval(v).dtype != np.bool_ else v for v in promote_args(name, x, y))
    return op(a, b)
  fn.__name__ = name
  return compiled_when_eager(fn)


logical_and = _logical("logical_and", lax.bitwise_and)
logical_or = _logical("logical_or", lax.bitwise_or)
logical_xor = _logical("logical_xor", lax.bitwise_xor)


def _bitwise(name, op):
  def fn(x, y, /):
    a, b = promote_args(name, x, y)
    return op(a, b)  # (lax's dtype check is JAX's error for other dtypes)
  fn.__name__ = name
  return compiled_when_eager(fn)


bitwise_and = _bitwise("bitwise_and", lax.bitwise_and)
bitwise_or = _bitwise("bitwise_or", lax.bitwise_or)
bitwise_xor = _bitwise("bitwise_xor", lax.bitwise_xor)


def _shift_args(name, x1, x2):
  """Promoted shift operands; booleans shift as int32."""
  a, b = promote_args(name, x1, x2)
  if get_aval(a).dtype == np.bool_:
    a, b = (lax.convert_element_type(v, np.int32) for v in (a, b))
  return a, b


@compiled_when_eager
def left_shift(x, y, /):
  a, b = _shift_args("left_shift", x, y)
  return lax.shift_left(a, b)


@compiled_when_eager
def right_shift(x1, x2, /):
  a, b = _shift_args("right_shift", x1, x2)
  if dtypes.is_unsigned(get_aval(a).dtype):
    return lax.shift_right_logical(a, b)
  return lax.shift_right_arithmetic(a, b)


@compiled_when_eager
def invert(x, /):
  x, = _arguments.arraylike("invert", x)
  return lax.bitwise_not(x)


bitwise_not = invert
bitwise_invert = invert
