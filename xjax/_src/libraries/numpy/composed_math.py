"""Elementwise functions composed of several lax operations: rounding, real/imag parts,
float classification, log/exp variants, clip, nan-aware max/min, gcd/lcm (the one-primitive
ufuncs are in ufuncs.py)."""
from __future__ import annotations

import functools
import operator

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.typed_ndarray import float0_zeros
from xjax._src.core.values import get_aval
from xjax._src.primitives.custom_derivatives import custom_jvp
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.api.transformations import jvp
from xjax._src.primitives.lax.bit_conversions import bitcast_convert_type
from xjax._src.primitives.lax.special import bessel_i0e
from xjax._src.primitives.lax.elementwise import (_const, abs as lax_abs, add, atan2,
                                                  bitwise_and, bitwise_or,
                                                  ceil as lax_ceil, complex as lax_complex,
                                                  conj as lax_conj, convert_element_type, div, eq,
                                                  exp as lax_exp, exp2, floor as lax_floor, ge, gt,
                                                  imag as lax_imag, integer_pow, is_finite, log,
                                                  lt, min as lax_min, mul, ne, neg, nextafter as lax_nextafter,
                                                  population_count, pow as lax_pow,
                                                  real as lax_real, rem, select_n,
                                                  sin, sqrt, square,
                                                  sub as lax_sub)
from xjax._src.primitives.lax.log_add import logaddexp as _logaddexp, logaddexp2 as _logaddexp2
from xjax._src.primitives.lax.shapes import full_like
from xjax._src.primitives.lax.rounding import round_half_even
from xjax._src.libraries.numpy import ufuncs
from xjax._src.libraries.numpy import arguments as _arguments  # (star-imported: private)
from xjax._src.libraries.numpy.creation import as_operand, asarray, zeros_like
from xjax._src.libraries.numpy.promotion import (promote_args, promote_args_inexact,
                                                 promote_args_numeric, promote_dtypes,
                                                 weak_if_all)
from xjax._src.libraries.numpy.reductions import any as _any
from xjax._src.libraries.numpy.shaping import broadcast_arrays
from xjax._src.libraries.numpy.where import where

__all__ = ["floor", "ceil", "trunc", "rint", "fabs", "fmod", "log2", "log10", "deg2rad",
    "rad2deg", "radians", "degrees", "hypot", "logaddexp", "logaddexp2", "sinc", "heaviside",
    "signbit", "copysign", "nextafter", "isnan", "isinf", "isfinite", "isposinf", "isneginf",
    "nan_to_num", "clip", "float_power", "ldexp", "frexp", "modf", "divmod", "i0", "gcd", "lcm",
    "iscomplex", "isreal", "bitwise_count", "fmax", "fmin", "spacing", "angle", "real", "imag",
    "conjugate", "conj", "round", "around"]


def _c(x, value):
  """``value`` as a (strongly typed) scalar of x's dtype."""
  return np.asarray(value, get_aval(x).dtype)[()]


def _wc(x, value):
  """``value`` as a scalar of x's dtype, weakly typed (a Python scalar) where x is."""
  c = _c(x, value)
  return c.item() if get_aval(x).weak_type else c


def _where(c, a, b):
  return where(c, a, b)


def _is_float(x) -> bool:
  return dtypes.is_inexact(get_aval(x).dtype)


def _rounding(name, op, staged=None):
  def fn(x, /):
    return _rounded(name, op, x)
  fn.__name__ = fn.__qualname__ = name
  fn.__doc__ = (f"Elementwise {name}; integers and booleans are returned unchanged, as "
                f"numpy.{name}.")
  return compiled_when_eager(fn, staged=staged)


floor = _rounding("floor", lax_floor)
ceil = _rounding("ceil", lax_ceil)


def _rounded(name, op, x):
  x, = _arguments.arraylike(name, x)
  x = asarray(x)
  return op(x) if _is_float(x) else x


def _trunc(x):
  return where(lt(x, _c(x, 0)), lax_ceil(x), lax_floor(x))


@compiled_when_eager(staged="trunc")
def trunc(x):
  """Elementwise trunc (toward zero); integers and booleans are returned unchanged, as
  numpy.trunc. (Unlike floor and ceil, ``x`` may be passed by name, as JAX's.)"""
  return _rounded("trunc", _trunc, x)


@compiled_when_eager(staged="rint")
def rint(x, /):
  """Round to the nearest integer, ties to even (integers become floats)."""
  x, = _arguments.arraylike("rint", x)
  if not dtypes.is_inexact(dtypes.dtype(x)):  # integers and booleans become strongly typed
    return convert_element_type(x, dtypes.default_float_dtype(), False)  # default floats
  if dtypes.is_complex(get_aval(x).dtype):
    return lax_complex(round_half_even(lax_real(x)), round_half_even(lax_imag(x)))
  return round_half_even(x)


@compiled_when_eager
def fabs(x, /):
  (x,) = promote_args_inexact("fabs", x)
  if dtypes.is_complex(get_aval(x).dtype):
    raise TypeError("ufunc 'fabs' does not support complex dtypes")
  return lax_abs(x)


@compiled_when_eager(staged="fmod")
def fmod(x1, x2, /):
  """Remainder with the sign of the dividend (C fmod)."""
  a, b = promote_args_numeric("fmod", x1, x2)
  if dtypes.is_integer(get_aval(b).dtype):  # x fmod 0 is 0 for integers
    b = select_n(eq(b, _c(b, 0)), b, full_like(b, 1))
  return rem(a, b)


def _log_base(name, scale):
  """log(x) in another base: ``scale(part)`` rescales the natural log's (real) parts."""
  def fn(x, /):
    (x,) = promote_args_inexact(name, x)
    out = log(x)
    if dtypes.is_complex(get_aval(x).dtype):
      return lax_complex(scale(lax_real(out)), scale(lax_imag(out)))
    return scale(out)
  fn.__name__ = fn.__qualname__ = name
  return compiled_when_eager(fn)


# as JAX: log2 divides by log(2) (computed in the program), log10 multiplies by 1 / log(10)
# written as JAX writes it (0.4342944819032518, one ulp above float64's 1 / np.log(10))
log2 = _log_base("log2", lambda r: div(r, log(_c(r, 2.0))))
log10 = _log_base("log10", lambda r: mul(r, _c(r, 0.4342944819032518)))


@compiled_when_eager
def deg2rad(x, /):
  (x,) = promote_args_inexact("deg2rad", x)
  return mul(x, _wc(x, np.pi / 180))


@compiled_when_eager
def rad2deg(x, /):
  (x,) = promote_args_inexact("rad2deg", x)
  return mul(x, _wc(x, 180 / np.pi))


radians, degrees = deg2rad, rad2deg


@compiled_when_eager(staged="hypot")
def hypot(x1, x2, /):
  """sqrt(x1**2 + x2**2) without undue overflow."""
  a, b = promote_args_inexact("hypot", x1, x2)
  if dtypes.is_complex(get_aval(a).dtype):
    raise ValueError("jnp.hypot is not well defined for complex-valued inputs. Please "
                     "convert to real values first, such as by using abs(x)")
  a, b = lax_abs(a), lax_abs(b)
  any_inf = bitwise_or(isposinf(a), isposinf(b))   # an infinite side wins over a NaN one
  hi, lo = ufuncs.maximum(a, b), ufuncs.minimum(a, b)
  at_zero = eq(hi, _c(hi, 0))
  safe = _where(eq(hi, _c(hi, 0)), full_like(hi, 1), hi)
  r = _where(at_zero, hi, mul(hi, sqrt(add(_wc(hi, 1), square(div(lo, safe))))))
  return _where(any_inf, _const(r, np.inf), r)


@compiled_when_eager  # (one program when eager, as JAX's ufunc)
def logaddexp(x1, x2, /):
  """log(exp(x1) + exp(x2)), computed stably."""
  a, b = promote_args_inexact("logaddexp", x1, x2)
  # JAX's real path keeps the promoted type's weakness; its complex path combines with
  # strong constants (weak only when both operands are)
  return weak_if_all(_logaddexp(a, b), *((x1, x2) if dtypes.is_complex(get_aval(a).dtype)
                                         else (a, b)), promoted=(a, b))


@compiled_when_eager  # (one program when eager, as JAX's ufunc)
def logaddexp2(x1, x2, /):
  """log2(2**x1 + 2**x2), computed stably."""
  a, b = promote_args_inexact("logaddexp2", x1, x2)
  return weak_if_all(_logaddexp2(a, b), x1, x2, promoted=(a, b))


@compiled_when_eager(staged="sinc")
def sinc(x, /):
  """sin(pi x) / (pi x), with sinc(0) = 1 and every derivative at 0 exact (the value at 0
  is the Maclaurin series' term, whose derivative rule gives the next term)."""
  (x,) = promote_args_inexact("sinc", x)
  eq_zero = eq(x, _wc(x, 0))
  pi_x = mul(_wc(x, np.pi), x)
  safe_pi_x = _where(eq_zero, _wc(x, 1), pi_x)
  return _where(eq_zero, _sinc_maclaurin(0, pi_x), div(sin(safe_pi_x), safe_pi_x))


@functools.partial(custom_jvp, nondiff_argnums=(0,))
def _sinc_maclaurin(k, x):
  """The k-th derivative of sin(x)/x at 0, in x's shape."""
  if k % 2:
    return x * 0
  return x * 0 + _wc(x, (-1) ** (k // 2) / (k + 1))


@_sinc_maclaurin.defjvp
def _sinc_maclaurin_jvp(k, primals, tangents):
  (x,), (t,) = primals, tangents
  return _sinc_maclaurin(k, x), _sinc_maclaurin(k + 1, x) * t


@compiled_when_eager(staged="heaviside")
def heaviside(x1, x2, /):
  a, b = promote_args_inexact("heaviside", x1, x2)
  zero = _const(a, 0)
  return _where(lt(a, zero), zero, _where(gt(a, zero), _const(a, 1), _where(ne(a, a), a, b)))


@compiled_when_eager(staged="signbit")
def signbit(x, /):
  """True where the sign bit is set (including -0.0)."""
  x, = _arguments.arraylike("signbit", x)
  dt = get_aval(x).dtype
  if dt == np.bool_ or dtypes.is_unsigned(dt):
    return full_like(x, False, np.bool_)
  if dtypes.is_integer(dt):
    return lt(x, _c(x, 0))
  if dtypes.is_complex(dt):
    raise ValueError(f"jax.numpy.signbit is not well defined for {dt}")
  # the sign bit itself, so -0.0 and negative NaNs count as in JAX
  bits = bitcast_convert_type(x, np.dtype(f"int{8 * np.dtype(dt).itemsize}"))
  return lt(bits, full_like(bits, 0))


@compiled_when_eager(staged="copysign")
def copysign(x1, x2, /):
  a, b = promote_args_inexact("copysign", x1, x2)
  if dtypes.is_complex(get_aval(a).dtype):
    raise TypeError("copysign does not support complex-valued inputs")
  a, b = broadcast_arrays(a, b)
  return select_n(signbit(b), lax_abs(a), neg(lax_abs(a)))


@compiled_when_eager
def nextafter(x, y, /):
  a, b = promote_args_inexact("nextafter", x, y)
  return lax_nextafter(a, b)


def _classify(name, float_fn, int_value, staged=None):
  def fn(x, /):
    x, = _arguments.arraylike(name, x)
    dt = get_aval(x).dtype
    if dtypes.is_complex(dt):
      return float_fn(lax_real(x), lax_imag(x))
    if not dtypes.is_inexact(dt) and int_value is not None:
      return full_like(x, int_value, np.bool_)
    return float_fn(x, None)
  fn.__name__ = fn.__qualname__ = name
  fn.__doc__ = f"Elementwise test, as numpy.{name}."
  return compiled_when_eager(fn, staged=staged)


def _or(f):
  return lambda re, im: f(re) if im is None else bitwise_or(f(re), f(im))


isnan = _classify("isnan", _or(lambda v: ne(v, v)), None)
isinf = _classify("isinf", _or(lambda v: eq(lax_abs(v), _c(v, np.inf))), False,
                  staged="isinf")
isfinite = _classify("isfinite", lambda re, im: is_finite(re) if im is None else
                     bitwise_and(is_finite(re), is_finite(im)), True)


def _is_inf_of_sign(name: str, inf: float):
  def fn(x, /, out=None):
    if out is not None:
      raise NotImplementedError("The 'out' argument to isneginf/isposinf is not supported.")
    x, = _arguments.arraylike(name, x)
    if dtypes.is_complex(get_aval(x).dtype):
      raise ValueError("isposinf/isneginf are not well defined for complex types")
    if not _is_float(x):
      return full_like(x, False, np.bool_)
    return eq(x, _c(x, inf))
  fn.__name__ = fn.__qualname__ = name
  fn.__doc__ = f"Elementwise x == {inf} (False for non-float inputs)."
  return fn


isposinf = _is_inf_of_sign("isposinf", np.inf)
isneginf = _is_inf_of_sign("isneginf", -np.inf)


@compiled_when_eager(staged="nan_to_num")
def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
  """Replaces NaN by ``nan`` and infinities by ``posinf``/``neginf`` (default: dtype max/min)."""
  _arguments.check_arraylike("nan_to_num", x)
  x = asarray(x)
  dt = get_aval(x).dtype
  if not dtypes.is_inexact(dt):
    return x
  if dtypes.is_complex(dt):
    re = nan_to_num(lax_real(x), nan=nan, posinf=posinf, neginf=neginf)
    im = nan_to_num(lax_imag(x), nan=nan, posinf=posinf, neginf=neginf)
    return lax_complex(re, im)
  info = dtypes.finfo(dt)
  posinf = info.max if posinf is None else posinf
  neginf = info.min if neginf is None else neginf
  # jnp.where, as JAX: the strongly typed fills make the result strong (and its
  # cotangent weak again through the conversion, for a weakly typed x)
  out = _where(isnan(x), asarray(nan, dt), x)
  out = _where(isposinf(out), asarray(posinf, dt), out)
  return _where(isneginf(out), asarray(neginf, dt), out)


@compiled_when_eager(staged="clip")
def clip(arr=None, /, min=None, max=None):
  """Limits values to [min, max] (either bound may be None)."""
  arr, = _arguments.arraylike("clip", arr)
  if any(v is not None and dtypes.is_complex(get_aval(asarray(v)).dtype)
         for v in (arr, min, max)):
    raise ValueError("Clip received a complex value either through the input or the "
                     "min/max keywords. Complex values have no ordering and cannot be clipped. "
                     "Please convert to a real value or array by taking the real or imaginary "
                     "components via jax.numpy.real/imag respectively.")
  if min is not None:
    arr = ufuncs.maximum(min, arr)
  if max is not None:
    arr = ufuncs.minimum(max, arr)
  return asarray(arr)


@compiled_when_eager
def float_power(x, y, /):
  a, b = promote_args_inexact("float_power", x, y)
  return lax_pow(a, b)


@compiled_when_eager(staged="ldexp")
def ldexp(x1, x2, /):
  """x1 * 2**x2 (x2 must be an integer), exact: x1's exponent is split off first (as JAX),
  so a small x1 times a large power of two does not overflow on the way."""
  x1, x2 = _arguments.arraylike("ldexp", x1, x2)
  t1, t2 = (dtypes.dtype(get_aval(x).dtype) for x in (x1, x2))
  if dtypes.is_complex(t1) or dtypes.is_inexact(t2):
    raise ValueError(f"ldexp not supported for input types {(t1, t2)}")
  (a,) = promote_args_inexact("ldexp", x1)
  dt = get_aval(a).dtype
  x2 = convert_element_type(x2, dt)  # (JAX's order of operations, as its jaxpr shows)
  m, e = frexp(a)
  e = add(convert_element_type(e, dt), x2)
  # the exponent may overflow by one with a finite result
  m = _where(gt(e, _c(e, 0)), mul(m, _wc(m, 2)), m)
  e = _where(gt(e, _c(e, 0)), lax_sub(e, _wc(e, 1)), e)
  x = mul(m, lax_pow(_wc(e, 2), e))
  return _where(bitwise_or(isinf(a), eq(a, _c(a, 0))), a, x)


@compiled_when_eager(staged="frexp")
def frexp(x, /):
  """(mantissa, exponent) with x == mantissa * 2**exponent and 0.5 <= |mantissa| < 1."""
  x, = _arguments.arraylike("frexp", x)
  (x,) = promote_args_inexact("frexp", x)
  dt = get_aval(x).dtype
  if dtypes.is_complex(dt):
    raise TypeError("frexp does not support complex-valued inputs")
  return _frexp(x)


_INT_OF_BITS = {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}


@custom_jvp
def _frexp(x):
  # JAX's operations, in its order (signed integers, an arithmetic shift, subnormals scaled
  # up first), so that XLA computes JAX's bits: a subnormal that XLA flushes compares equal
  # to zero and comes back as it is, with exponent 0.
  dt = get_aval(x).dtype
  info = dtypes.finfo(dt)
  int_type = _INT_OF_BITS[info.bits]
  mask, bias = (1 << info.nexp) - 1, 1 - info.minexp
  small = lax_abs(x) < info.tiny
  x1 = _where(small, x * _c(x, 1 << info.nmant), x)
  x2 = _where(small, int_type(-info.nmant), int_type(0))
  x1 = bitcast_convert_type(x1, int_type)
  x2 += ((x1 >> info.nmant) & mask) - bias + 1
  x1 &= ~(mask << info.nmant)
  x1 |= (bias - 1) << info.nmant
  x1 = bitcast_convert_type(x1, dt)
  special = isinf(x) | isnan(x) | (x == 0)
  x2 = _where(special, zeros_like(x2), x2)
  return _where(special, x, x1), convert_element_type(x2, np.int32)


@_frexp.defjvp
def _frexp_jvp(primals, tangents):
  """The mantissa's tangent is the input's scaled by 2**-exponent (as JAX); the exponent
  has none."""
  (x,), (t,) = primals, tangents
  m, e = _frexp(x)
  dt = get_aval(t).dtype   # (the tangent strongly typed, as JAX's multiply by a strong scale)
  scale = exp2(neg(convert_element_type(e, dt)))
  return (m, e), (mul(convert_element_type(t, dt, False), scale),
                  float0_zeros(get_aval(e).shape))


@compiled_when_eager(staged="modf")
def modf(x, /, out=None):
  """(fractional part, integral part), both with x's sign."""
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.modf is not supported.")
  (x,) = promote_args_inexact("modf", x)
  whole = _where(ge(x, _c(x, 0)), lax_floor(x), lax_ceil(x))
  return lax_sub(x, whole), whole


@compiled_when_eager(staged="divmod")
def divmod(x1, x2, /):
  a, b = promote_args_numeric("divmod", x1, x2)
  if dtypes.is_integer(get_aval(a).dtype):
    return ufuncs.floor_divide(a, b), ufuncs.remainder(a, b)
  if dtypes.is_complex(get_aval(a).dtype):
    raise ufuncs.complex_remainder_error(get_aval(a).dtype)
  return ufuncs.float_divmod(a, b)


@compiled_when_eager(staged="i0")
def i0(x):
  """Modified Bessel function of the first kind, order 0."""
  (x,) = promote_args_inexact("i0", x)
  if not dtypes.is_float(get_aval(x).dtype):
    raise ValueError(f"Unsupported input type to jax.numpy.i0: {get_aval(x).dtype}")
  return _i0(x)


@custom_jvp
def _i0(x):
  ax = lax_abs(x)
  return mul(lax_exp(ax), bessel_i0e(ax))


@_i0.defjvp
def _i0_jvp(primals, tangents):
  """The expansion's own tangent, zero at 0 (where |x| has none), as JAX's."""
  out, t = jvp(_i0.fun, primals, tangents)
  return out, where(eq(primals[0], _c(primals[0], 0)), 0.0, t)


def _integer_operands(name: str, x1, x2):
  """``|x1|``, ``|x2|`` promoted to a common integer dtype (ValueError for others and
  bool), not yet broadcast."""
  x1, x2 = _arguments.arraylike(name, x1, x2)
  a, b = promote_dtypes(x1, x2)
  if not dtypes.is_integer(get_aval(a).dtype):  # bool with an int is fine (JAX)
    raise ValueError(f"Arguments to jax.numpy.{name} must be integers.")
  return ufuncs.absolute(a), ufuncs.absolute(b)


@compiled_when_eager(staged="gcd")
def gcd(x1, x2):
  """Greatest common divisor (Euclid's algorithm, looping until every remainder is 0)."""
  from xjax._src.primitives.lax.control_flow import while_loop
  a, b = broadcast_arrays(*_integer_operands("gcd", x1, x2))
  zero, one = _c(a, 0), _c(a, 1)

  def step(ab):
    a, b = ab
    done = eq(b, zero)
    r = rem(a, select_n(done, b, full_like(b, one)))
    return select_n(done, b, a), select_n(done, r, b)
  return weak_if_all(while_loop(lambda ab: _any(ne(ab[1], zero)), step, (a, b))[0], x1, x2,
                     promoted=(a, b))


@compiled_when_eager(staged="lcm")
def lcm(x1, x2):
  """Least common multiple (0 where either operand is 0)."""
  a, b = _integer_operands("lcm", x1, x2)
  g = gcd(a, b)
  zero = eq(g, _c(g, 0))
  out = ufuncs.multiply(a, ufuncs.floor_divide(b, g))  # x // 0 is 0 for integers
  return weak_if_all(select_n(zero, out, full_like(out, 0)), x1, x2, promoted=(a, b))


@compiled_when_eager(staged="iscomplex")
def iscomplex(x):
  _arguments.check_arraylike("iscomplex", x)
  i = imag(x)
  return ne(i, _wc(i, 0))


@compiled_when_eager(staged="isreal")
def isreal(x):
  _arguments.check_arraylike("isreal", x)
  i = imag(x)
  return eq(i, _wc(i, 0))


@compiled_when_eager(staged="bitwise_count")
def bitwise_count(x, /):
  """Number of 1 bits in ``|x|``, as uint8."""
  (x,) = promote_args_numeric("bitwise_count", x)  # booleans count as integers
  if not dtypes.is_integer(get_aval(x).dtype):
    raise TypeError(f"bitwise_count requires integer or boolean input, got "
                    f"{get_aval(x).dtype}.")
  return convert_element_type(population_count(ufuncs.abs(x)), np.uint8)


def _nan_pick(name, op, better):
  def fn(x1, x2):
    # ties pick x2 (which decides where the gradient goes, as in JAX)
    return where(ufuncs.bitwise_or(better(x1, x2), isnan(x2)), x1, x2)
  fn.__name__ = fn.__qualname__ = name
  fn.__doc__ = f"Elementwise {op} ignoring NaNs (NaN only where both are)."
  return compiled_when_eager(fn, staged=name)


fmax = _nan_pick("fmax", "maximum", ufuncs.greater)
fmin = _nan_pick("fmin", "minimum", ufuncs.less)


@compiled_when_eager
def spacing(x, /):
  """Distance from ``x`` to the next representable number away from zero (the smallest
  subnormal, signed, where that difference flushes to zero)."""
  (x,) = promote_args_inexact("spacing", x)
  if dtypes.is_complex(get_aval(x).dtype):
    raise ValueError("jnp.spacing is not defined for complex inputs.")
  dt = get_aval(x).dtype
  if dt == np.float16:  # as JAX: toward +inf
    return lax_sub(lax_nextafter(x, full_like(x, np.inf)), x)
  sign = signbit(x)
  signed = lambda v: where(sign, np.asarray(-v, dt)[()], np.asarray(v, dt)[()])
  out = lax_sub(lax_nextafter(x, signed(np.inf)), x)
  return where(eq(out, _c(out, 0)), signed(dtypes.finfo(dt).smallest_subnormal), out)


@compiled_when_eager(staged="angle", static_argnames=("deg",))
def angle(z, deg=False):
  """Argument of complex ``z`` (radians, or degrees with ``deg``)."""
  (z,) = _arguments.arraylike("angle", z)
  aval = get_aval(z)
  if not dtypes.is_inexact(aval.dtype) or (aval.ndim == 0 and dtypes.is_float(aval.dtype)):
    z = convert_element_type(z, dtypes.default_float_dtype())  # as JAX (and NumPy)
  if dtypes.is_complex(get_aval(z).dtype):
    out = atan2(lax_imag(z), lax_real(z))
  else:
    out = atan2(zeros_like(z, get_aval(z).dtype), z)
  return rad2deg(out) if deg else out


@compiled_when_eager
def real(val, /):
  _arguments.check_arraylike("real", val)
  x = as_operand(val)
  return lax_real(x) if dtypes.is_complex(get_aval(x).dtype) else x


@compiled_when_eager
def imag(val, /):
  _arguments.check_arraylike("imag", val)
  x = asarray(val)
  return lax_imag(x) if dtypes.is_complex(get_aval(x).dtype) else zeros_like(x)


@compiled_when_eager
def conjugate(x, /):
  _arguments.check_arraylike("conjugate", x)
  x = as_operand(x)
  return lax_conj(x) if dtypes.is_complex(get_aval(x).dtype) else x


def conj(x, /):
  """Alias of ``conjugate``."""
  return conjugate(x)


@compiled_when_eager(staged="round", static_argnames=("decimals",),
                     hashable_statics=True)
def round(a, decimals=0, out=None):
  a, = _arguments.arraylike("round", a)
  decimals = operator.index(decimals)
  a = asarray(a)
  dt = get_aval(a).dtype
  if dt == np.bool_:
    raise ValueError("round does not accept boolean inputs")
  if not dtypes.is_inexact(dt):
    if decimals < 0:
      raise NotImplementedError("integer np.round not implemented for decimals < 0")
    return a
  if dtypes.is_complex(dt):  # as JAX: real and imaginary parts rounded separately
    return lax_complex(round(lax_real(a), decimals), round(lax_imag(a), decimals))
  if decimals == 0:
    return round_half_even(a)
  if decimals > np.log10(float(dtypes.finfo(dt).max)):  # every value is already exact
    return a
  x = convert_element_type(a, np.float32) if dt == np.float16 else a  # as JAX
  factor = _wc(x, 10.0 ** decimals)
  out = div(round_half_even(mul(x, factor)), factor)
  return convert_element_type(out, dt) if dt == np.float16 else out


@compiled_when_eager(staged="around", static_argnames=("decimals",), hashable_statics=True)
def around(a, decimals=0, out=None):
  """``round`` (JAX's alias, jitted around it: jaxprs show both calls)."""
  return round(a, decimals, out)
