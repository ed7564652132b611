"""Elementwise primitives: arithmetic, math functions, comparisons, bitwise, selection,
conversion.  Each row of a table below is one primitive with its whole story.

lax is strict: operands must share a dtype.  Shapes must be equal, except that rank-0
operands and size-1 dimensions broadcast (as in JAX's lax).
"""
from __future__ import annotations

import builtins
import functools
import operator

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.foundations.sharding import ShardingTypeError, typed_sharding
from xjax._src.execution.array import Array, scalar_array
from xjax._src.execution.host_eval import (declining_subnormals, divide_rule,
                                           flush_subnormals, identity, input_cast, quiet,
                                           rounding, ufunc_kernel)
from xjax._src.backend.lowering import compare_attributes, i64_array
from xjax._src.core.avals import (ShapedArray, mesh_of, physical_aval, result_sharding,
                                  spec_of, tangent_aval)
from xjax._src.core.trace import current_trace
from xjax._src.core.values import get_aval
from xjax._src.interpreters import ad, batching
from xjax._src.interpreters.ad import Zero
from xjax._src.interpreters.staging import (DynamicJaxprTrace, DynamicJaxprTracer, staged_constant,
                                            staged_literal)
from xjax._src.primitives.lax.accuracy import accuracy_attrs, check_accuracy
from xjax._src.primitives.lax.shapes import (broadcast_in_dim, broadcast_to_aval, expand_dims, full,
                                             reshape)
from xjax._src.primitives.lax.operand_checks import (any_dtype, broadcasting_shape,
                                                     check_same_dtypes, dtype_checker, dtype_name)
from xjax._src.primitives.lax.primitive_builders import lowering_from, standard_primitive

_float = dtype_checker("float")
_inexact = dtype_checker("inexact")
_number = dtype_checker("int", "inexact")
_int = dtype_checker("int")
_int_or_bool = dtype_checker("int", "bool")
_complex = dtype_checker("complex")
_ordered = dtype_checker("int", "float", "bool")


# ---------------------------------------------------------------------------------------
# Shared rules

def broadcasting_sharding_rule(name: str):
  """The sharding of an elementwise result (JAX's broadcasting rule): dimension by
  dimension, the Explicit axes its operands are split over, which must agree where given
  (an unsharded or broadcast operand takes the others' layout)."""
  def rule(*avals, **params):
    sharding, shape = None, None  # the common case: one type sharding over operands of
    for a in avals:               # one shape, and scalars
      s = getattr(a, "_sharding", None)
      if s is not None and (sharding is None or s is sharding or s == sharding):
        sharding, shape = s, a.shape
      elif s is not None:
        break
    else:
      if builtins.all(a.shape == shape or not a.shape for a in avals):
        return sharding
    ndim = builtins.max(a.ndim for a in avals)
    specs = [spec_of(a) for a in avals]
    out = []
    for d in range(ndim):
      parts = {s[d - ndim + len(s)] for s, a in zip(specs, avals)
               if a.ndim > ndim - 1 - d and a.shape[d - ndim + a.ndim] != 1} - {None}
      if len(parts) > 1:
        raise ShardingTypeError(f"{name} got incompatible shardings for broadcasting: "
                                + ", ".join(str(s) for s in specs if builtins.any(s)) + ".")
      out.append(next(iter(parts), None))
    shape = broadcasting_shape(name, [a.shape for a in avals])
    return result_sharding(name, avals, shape, avals[0].dtype, out)
  return rule


def elementwise_primitive(name: str, abstract_eval, lowering):
  """A primitive computing element by element (over broadcast operands): its results are
  sharded as ``broadcasting_sharding_rule`` says."""
  prim = standard_primitive(name, abstract_eval, lowering)
  prim.sharding_rule = broadcasting_sharding_rule(name)
  return prim


def _nary_abstract_eval(name, check, result_dtype=None):
  def rule(*avals, **params):
    check_same_dtypes(name, avals)
    check(name, avals[0].dtype, 0 if len(avals) > 1 else None)
    shape = broadcasting_shape(name, [a.shape for a in avals])
    dtype = avals[0].dtype if result_dtype is None else result_dtype(avals[0].dtype)
    return ShapedArray(shape, dtype, all(a.weak_type for a in avals))
  return rule


def _lower_nary(op_name, attrs=None):
  def lower(ctx, *operands, **params):
    out = ctx.avals_out[0]
    ops = [broadcast_operand(ctx, o, a, out.shape) for o, a in zip(operands, ctx.avals_in)]
    in_avals = [a.update(shape=out.shape) for a in ctx.avals_in]
    return ctx.op(op_name, ops, out, attrs(ctx, **params) if attrs else None, in_avals=in_avals)
  return lower


def broadcast_operand(ctx, operand, aval, shape):
  """Lowers lax's implicit rank-0 / size-1 broadcasting as JAX does: one broadcast_in_dim
  onto the trailing dimensions for each use (size-1 ones stretched by it). Another program
  (a reshape first, or one broadcast shared by several uses) is one XLA may optimise, and
  so round, differently."""
  if aval.shape == tuple(shape):
    return operand
  if aval.ndim and (aval.ndim != len(shape)
                    or any(d not in (1, n) for d, n in zip(aval.shape, shape))):
    raise AssertionError(f"lowering of '{ctx.primitive}': an operand of shape {aval.shape} "
                         f"cannot be broadcast to {tuple(shape)} (an xjax bug: its shape "
                         "rule accepted operands its lowering cannot combine)")
  out = ShapedArray(tuple(shape), aval.dtype)
  dims = list(range(len(shape) - aval.ndim, len(shape)))
  return ctx.op("stablehlo.broadcast_in_dim", [operand], out,
                {"broadcast_dimensions": i64_array(dims)}, in_avals=[aval])


def elementwise_batch(prim):
  def rule(axis, args, dims, **params):
    vals, out_dim = broadcast_batched_args(args, dims)
    outs = prim.bind(*vals, **params)
    return outs, ([out_dim] * len(outs) if prim.multiple_results else out_dim)
  return rule


def broadcast_batched_args(args, dims):
  """Aligns batch dims of elementwise operands as JAX does; returns (args, out_dim).

  Operands of one shape batched at one dim (beside unbatched scalars) pass as they are.
  Otherwise each batched operand gets its batch dim in front, each unbatched one a leading
  1, and a batched lower-rank value trailing 1s; the result is batched at 0.  (Where the
  batch dim sits decides the layout, hence XLA's summation order in later reductions.)"""
  avals = [get_aval(x) for x in args]
  shape, dim = next((a.shape, d) for a, d in zip(avals, dims) if d is not None)
  if all(a.shape == shape and d == dim for a, d in zip(avals, dims) if a.ndim):
    return list(args), dim
  out = [x if a.ndim == 0 else batching.bdim_to_front(x, d, 1)
         for x, a, d in zip(args, avals, dims)]
  rank = builtins.max(get_aval(x).ndim for x in out)
  out = [x if d is None or get_aval(x).ndim == rank
         else expand_dims(x, tuple(range(get_aval(x).ndim, rank))) for x, d in zip(out, dims)]
  return out, 0


def unbroadcast(ct, aval: ShapedArray):
  """Sums a cotangent down to ``aval``'s shape (undoing implicit broadcasting), split over
  Explicit mesh axes as ``aval`` is (as JAX's: the cotangent takes its operand's type)."""
  if type(ct) is Zero:
    return Zero(aval)
  ct_aval = get_aval(ct)
  if ct_aval.shape == aval.shape and ct_aval._sharding == aval._sharding:
    return ct
  # reductions builds on elementwise: a transpose sums broadcast cotangents with it
  from xjax._src.primitives.lax import reductions
  if aval.ndim == 0:
    return reductions.reduce_sum(ct, tuple(range(ct_aval.ndim)))
  axes = tuple(i for i, (a, b) in enumerate(zip(aval.shape, ct_aval.shape)) if a != b)
  return reshape(reductions.reduce_sum(ct, axes) if axes else ct, aval.shape,
                 out_sharding=aval._sharding)


def unary_primitive(name, hlo, check=_inexact, jvp=None, jvp2=None, transpose=None, lowering=None,
           abstract_eval=None, host=None):
  """A unary primitive; the transcendental ones also take an ``accuracy`` parameter
  (lowered as the op's ``result_accuracy``; derivatives ignore it, as in JAX).
  ``jvp(t, x)`` or ``jvp2(t, y, x)`` (y: the output) give the tangent, none a zero one;
  ``lowering`` and ``abstract_eval`` replace the defaults (``hlo`` on the operand, the
  operand's type after ``check``); ``host`` is its host kernel rule, if it has one."""
  prim = elementwise_primitive(name, abstract_eval or _nary_abstract_eval(name, check),
                            lowering or _lower_nary(hlo, accuracy_attrs))
  prim.host_kernel = host
  prim.batch = elementwise_batch(prim)
  if jvp is not None:
    ad.defjvp(prim, lambda t, x, **_: jvp(t, x))
  elif jvp2 is not None:
    ad.defjvp2(prim, lambda t, y, x, **_: jvp2(t, y, x))
  else:
    ad.zero_jvp(prim)
  if transpose is not None:
    prim.transpose = transpose
  return prim


def binary_primitive(name, hlo, check, jvps=None, result_dtype=None, transpose=None, lowering=None,
            bilinear=None, jvp_of=None, differentiable=True, host=None, abstract_eval=None):
  """A binary primitive: ``jvps`` per operand (broadcast to the output), or ``bilinear``,
  the (lhs, rhs) transpose rules of a product (``ad.defbilinear``), or the whole JVP rule
  ``jvp_of(prim)``, or a zero JVP; none where it is not ``differentiable`` (as JAX's).
  ``host`` is its host kernel rule, if it has one; ``abstract_eval`` replaces the rule of
  operands of one dtype ``check`` accepts."""
  prim = elementwise_primitive(name, abstract_eval or _nary_abstract_eval(name, check,
                                                                          result_dtype),
                            lowering or _lower_nary(hlo))
  prim.host_kernel = host
  prim.batch = elementwise_batch(prim)
  if bilinear is not None:
    ad.defbilinear(prim, *bilinear)
  elif jvps is not None:
    ad.defjvp(prim, *[None if r is None else _broadcasting_jvp(r) for r in jvps])
  elif jvp_of is not None:
    prim.jvp = jvp_of(prim)
  elif differentiable:
    ad.zero_jvp(prim)
  if transpose is not None:
    prim.transpose = transpose
  return prim


def _broadcasting_jvp(rule):
  def jvp(t, *primals, **params):
    shape = broadcasting_shape("jvp", [get_aval(p).shape for p in primals])
    return broadcast_to_aval(rule(t, *primals, **params), shape)
  return jvp


# ---------------------------------------------------------------------------------------
# Arithmetic

def _add_transpose(ct, x, y):
  return [unbroadcast(ct, x.aval) if ad.is_undefined(x) else None,
          unbroadcast(ct, y.aval) if ad.is_undefined(y) else None]


def _sub_transpose(ct, x, y):
  if type(ct) is Zero:
    return [None, None]
  return [unbroadcast(ct, x.aval) if ad.is_undefined(x) else None,
          unbroadcast(neg(ct), y.aval) if ad.is_undefined(y) else None]


def _add_sub_jvp(negate):
  """Two tangents combine with the primitive itself (its weak-type rule, not a tangent
  sum's), a lone one is broadcast to the output (``negate`` applied to ``y``'s), as JAX."""
  def jvp_of(prim):
    return lambda primals, tangents: _add_sub_tangents(prim, negate, primals, tangents)
  return jvp_of


def _add_sub_tangents(prim, negate, primals, tangents):
  (tx, ty), out = tangents, prim.bind(*primals)
  shape = get_aval(out).shape
  if type(tx) is Zero and type(ty) is Zero:
    return out, Zero(tangent_aval(get_aval(out)))
  if type(ty) is Zero:
    return out, broadcast_to_aval(tx, shape)
  if type(tx) is Zero:
    return out, broadcast_to_aval(negate(ty), shape)
  return out, prim.bind(tx, ty)


add_p = binary_primitive("add", "stablehlo.add", _number, transpose=_add_transpose,
                jvp_of=_add_sub_jvp(lambda t: t), host=ufunc_kernel(np.add, "fiu", arithmetic=True))
sub_p = binary_primitive("sub", "stablehlo.subtract", _number, transpose=_sub_transpose,
                jvp_of=_add_sub_jvp(lambda t: neg(t)),
                host=ufunc_kernel(np.subtract, "fiu", arithmetic=True))
def _mul_abstract_eval(x, y, *, out_dtype=None):
  """With ``out_dtype`` (JAX's parameter, present only when given) the operands, numbers
  of any dtypes, are cast to it and multiplied in it."""
  if out_dtype is None:
    return _same_type_mul(x, y)
  for i, a in enumerate((x, y)):
    _number("mul", a.dtype, i)
  shape = broadcasting_shape("mul", [x.shape, y.shape])
  return ShapedArray(shape, dtypes.canonicalize_dtype(dtypes.dtype(out_dtype)),
                     x.weak_type and y.weak_type)


def _mul_lowering(ctx, x, y, *, out_dtype=None):
  if out_dtype is None:
    return _multiply(ctx, x, y)
  out = ctx.avals_out[0]
  cast = [a.update(dtype=out.dtype, weak_type=False) for a in ctx.avals_in]
  ops = [o if a.dtype == out.dtype else ctx.op("stablehlo.convert", [o], c, in_avals=[a])
         for o, a, c in zip((x, y), ctx.avals_in, cast)]
  ops = [broadcast_operand(ctx, o, c, out.shape) for o, c in zip(ops, cast)]
  return ctx.op("stablehlo.multiply", ops, out, in_avals=[c.update(shape=out.shape)
                                                          for c in cast])


_same_type_mul = _nary_abstract_eval("mul", _number)
_multiply = _lower_nary("stablehlo.multiply")
# (a cotangent of a product in ``out_dtype`` is cast back to its operand's dtype, as JAX)
mul_p = binary_primitive("mul", "stablehlo.multiply", _number, abstract_eval=_mul_abstract_eval,
                lowering=_mul_lowering,
                bilinear=(lambda ct, x, y, out_dtype=None: unbroadcast(
                              mul(ct, y, out_dtype=None if out_dtype is None else x.aval.dtype),
                              x.aval),
                          lambda ct, x, y, out_dtype=None: unbroadcast(
                              mul(x, ct, out_dtype=None if out_dtype is None else y.aval.dtype),
                              y.aval)),
                host=ufunc_kernel(np.multiply, "fiu", arithmetic=True))
# (integer division and remainder round, and treat zero divisors, as NumPy does not; a
# float remainder is exact, and XLA leaves it subnormal)
div_p = binary_primitive("div", "stablehlo.divide", _number,
                [lambda t, x, y: div(t, y),
                 lambda t, x, y: mul(mul(neg(t), x), integer_pow(y, -2))],
                transpose=lambda ct, x, y: [unbroadcast(div(ct, y), x.aval), None],
                host=divide_rule)
rem_p = binary_primitive("rem", "stablehlo.remainder", dtype_checker("int", "float"),
                [lambda t, x, y: t,
                 lambda t, x, y: mul(neg(t), _trunc_div(x, y))],
                host=declining_subnormals(ufunc_kernel(np.fmod, "f")))


def lower_complex_minmax(ctx, x, y, aval, direction):
  """Complex max ("GT") / min ("LT") ordered by (real, imag), as in JAX (XLA's own
  complex maximum looks at the real part only)."""
  full = ShapedArray(aval.shape, aval.dtype)
  part = ShapedArray(aval.shape, dtypes.finfo(aval.dtype).dtype)
  pred = ShapedArray(aval.shape, np.dtype(np.bool_))
  re = [ctx.op("stablehlo.real", [v], part, in_avals=[full]) for v in (x, y)]
  im = [ctx.op("stablehlo.imag", [v], part, in_avals=[full]) for v in (x, y)]

  def cmp(a, b, d):
    return ctx.op("stablehlo.compare", [a, b], pred, compare_attributes(d),
                  in_avals=[part, part])
  pick = ctx.op("stablehlo.select", [cmp(*re, "EQ"), cmp(*im, direction),
                                     cmp(*re, direction)], pred, in_avals=[pred] * 3)
  return ctx.op("stablehlo.select", [pick, x, y], full, in_avals=[pred, full, full])


def _minmax_lowering(hlo, direction):
  default = _lower_nary(hlo)

  def lower(ctx, x, y):
    out = ctx.avals_out[0]
    if not dtypes.is_complex(out.dtype):
      return default(ctx, x, y)
    x, y = [broadcast_operand(ctx, o, a, out.shape) for o, a in zip((x, y), ctx.avals_in)]
    return lower_complex_minmax(ctx, x, y, out, direction)
  return lower


# the tangent of the chosen operand, halved at ties (as JAX)
_minmax_jvp = functools.partial(ad.standard_jvp, rules=(
    _broadcasting_jvp(lambda t, z, x, y: mul(t, _balanced_eq(x, z, y))),
    _broadcasting_jvp(lambda t, z, x, y: mul(t, _balanced_eq(y, z, x)))), with_output=True)
max_p = binary_primitive("max", "stablehlo.maximum", dtype_checker("int", "inexact", "bool"),
                jvp_of=_minmax_jvp, lowering=_minmax_lowering("stablehlo.maximum", "GT"),
                host=ufunc_kernel(np.maximum, "iub"))
min_p = binary_primitive("min", "stablehlo.minimum", dtype_checker("int", "inexact", "bool"),
                jvp_of=_minmax_jvp, lowering=_minmax_lowering("stablehlo.minimum", "LT"),
                host=ufunc_kernel(np.minimum, "iub"))
def _pow_abstract_eval(x, y):
  """An inexact base; an exponent of the same dtype or any integer dtype (JAX's rule)."""
  _inexact("pow", x.dtype, 0)
  if not (dtypes.is_integer(y.dtype) or y.dtype == x.dtype):
    raise TypeError("the first argument to pow must have an inexact dtype (float or complex), "
                    "and the second argument must have an inexact or integer dtype, and two "
                    f"inexact dtypes must match, but got {x.dtype} and {y.dtype}.")
  shape = broadcasting_shape("pow", [x.shape, y.shape])
  return ShapedArray(shape, x.dtype, x.weak_type and y.weak_type)


def _pow_lowering(ctx, x, y):
  """An integer exponent converted to the base's dtype, then broadcast, as JAX lowers it."""
  xa, ya = ctx.avals_in
  if ya.dtype != xa.dtype:
    converted = ya.update(dtype=xa.dtype, weak_type=False)
    y = ctx.op("stablehlo.convert", [y], converted, in_avals=[ya])
    ya = converted
  out = ctx.avals_out[0]
  ops = [broadcast_operand(ctx, x, xa, out.shape), broadcast_operand(ctx, y, ya, out.shape)]
  return ctx.op("stablehlo.power", ops, out,
                in_avals=[xa.update(shape=out.shape), ya.update(shape=out.shape)])


pow_p = binary_primitive("pow", "stablehlo.power", _inexact, lowering=_pow_lowering,
                abstract_eval=_pow_abstract_eval,
                jvps=[lambda t, x, y: mul(t, _pow_jac_base(x, y)),
                 # converted to the exponent's dtype: strong, as JAX
                 lambda t, x, y: convert_element_type(mul(t, mul(log(_safe_base(x)), pow(x, y))),
                                                      get_aval(y).dtype)])
atan2_p = binary_primitive("atan2", "stablehlo.atan2", _inexact,
                  [lambda t, x, y: mul(t, div(y, add(mul(x, x), mul(y, y)))),
                   lambda t, x, y: mul(t, div(neg(x), add(mul(x, x), mul(y, y))))])
nextafter_p = binary_primitive("nextafter", "chlo.next_after", _float, differentiable=False)

neg_p = unary_primitive("neg", "stablehlo.negate", _number, jvp=lambda t, x: neg(t),
               transpose=lambda ct, x: [neg(ct)], host=ufunc_kernel(np.negative, "fiu"))
_sign_unsigned = lowering_from(lambda x: convert_element_type(ne(x, _const(x, 0)), x.dtype))


def _lower_sign(ctx, x):
  """stablehlo.sign takes no unsigned integers: those lower to ``x != 0``."""
  if dtypes.is_unsigned(ctx.avals_in[0].dtype):
    return _sign_unsigned(ctx, x)
  return _lower_nary("stablehlo.sign")(ctx, x)


sign_p = unary_primitive("sign", "stablehlo.sign", _number, lowering=_lower_sign,
                host=ufunc_kernel(lambda x: np.where(x == 0, x, np.sign(x)), "fi"))  # (±0 kept)
floor_p = unary_primitive("floor", "stablehlo.floor", _float, host=ufunc_kernel(np.floor, "f"))
ceil_p = unary_primitive("ceil", "stablehlo.ceil", _float, host=ufunc_kernel(np.ceil, "f"))
is_finite_p = elementwise_primitive(
    "is_finite", lambda a: ShapedArray(a.shape, np.bool_, a.weak_type) if _float("is_finite", a.dtype)
    is None else None, _lower_nary("stablehlo.is_finite"))
is_finite_p.host_kernel = ufunc_kernel(np.isfinite, "f")
is_finite_p.batch = elementwise_batch(is_finite_p)
ad.zero_jvp(is_finite_p)

exp_p = unary_primitive("exp", "stablehlo.exponential", jvp2=lambda t, y, x: mul(t, y))
exp2_p = unary_primitive("exp2", "stablehlo.exponential",
                jvp2=lambda t, y, x: mul(log(_const(y, 2)), mul(t, y)),
                lowering=lowering_from(lambda x, accuracy=None: exp(
                    mul(x, _const(x, np.log(2))), accuracy=accuracy)))
log_p = unary_primitive("log", "stablehlo.log", jvp=lambda t, x: div(t, x))
expm1_p = unary_primitive("expm1", "stablehlo.exponential_minus_one",
                 jvp2=lambda t, y, x: mul(t, add(y, _one(y))))
log1p_p = unary_primitive("log1p", "stablehlo.log_plus_one", jvp=lambda t, x: div(t, add(x, _one(x))))
tanh_p = unary_primitive("tanh", "stablehlo.tanh",
                 jvp2=lambda t, y, x: mul(add(t, mul(t, y)), sub(_one(y), y)))
# (lowered as 1 / (1 + exp(-x)), as JAX lowers it: XLA's logistic rounds otherwise in bfloat16)
logistic_p = unary_primitive("logistic", "stablehlo.logistic",
                    jvp2=lambda t, y, x: mul(t, mul(y, sub(_one(y), y))),
                    lowering=lowering_from(lambda x, accuracy=None: div(
                        _one(x), add(_one(x), exp(neg(x))))))
def _sin_cos_of_complex(x, cosine: bool):
  """sin or cos of complex ``x`` from the real functions, as JAX lowers them (XLA's complex
  sine and cosine give other signs of zero parts): sinh and cosh of the imaginary part as
  (expm1(b) -/+ expm1(-b)) / 2 (+ 1), without cancellation for small b; a zero real part
  gives an exact zero imaginary (cos) or real (sin) part, and no NaN from inf * 0."""
  a, b = real(x), imag(x)
  zero_re, zero, two = eq(a, _const(a, 0)), _const(a, 0), _const(a, 2)
  sn, cs = sin(a), cos(a)
  e1m, e2m = expm1(b), expm1(neg(b))
  snh, csh = div(sub(e1m, e2m), two), div(add(add(e1m, e2m), two), two)
  if cosine:
    re, im = mul(cs, csh), mul(neg(sn), snh)
    return select_n(zero_re, complex(re, im), complex(re, zero))
  re, im = mul(sn, csh), mul(cs, snh)
  return select_n(zero_re, complex(re, im), complex(zero, im))


def _complex_lowered_as(fn, hlo):
  """``hlo`` on real operands; ``fn`` (lax functions) traced for complex ones."""
  on_real = _lower_nary(hlo, accuracy_attrs)
  on_complex = lowering_from(lambda x, accuracy=None: fn(x))
  return lambda ctx, x, **params: (on_complex if dtypes.is_complex(ctx.avals_in[0].dtype)
                                   else on_real)(ctx, x, **params)


sin_p = unary_primitive("sin", "stablehlo.sine", jvp=lambda t, x: mul(t, cos(x)),
               lowering=_complex_lowered_as(lambda x: _sin_cos_of_complex(x, False),
                                            "stablehlo.sine"))
cos_p = unary_primitive("cos", "stablehlo.cosine", jvp=lambda t, x: neg(mul(t, sin(x))),
               lowering=_complex_lowered_as(lambda x: _sin_cos_of_complex(x, True),
                                            "stablehlo.cosine"))
tan_p = unary_primitive("tan", "stablehlo.tan", jvp2=lambda t, y, x: mul(t, add(_const(y, 1), square(y))))
asin_p = unary_primitive("asin", "chlo.asin", jvp=lambda t, x: mul(t, rsqrt(sub(_const(x, 1), square(x)))))
acos_p = unary_primitive("acos", "chlo.acos",
                jvp=lambda t, x: mul(t, neg(rsqrt(sub(_const(x, 1), square(x))))))
atan_p = unary_primitive("atan", "chlo.atan", jvp=lambda t, x: div(t, add(_const(x, 1), square(x))))
sinh_p = unary_primitive("sinh", "chlo.sinh", jvp=lambda t, x: mul(t, cosh(x)))
cosh_p = unary_primitive("cosh", "chlo.cosh", jvp=lambda t, x: mul(t, sinh(x)))
asinh_p = unary_primitive("asinh", "chlo.asinh", jvp=lambda t, x: mul(t, rsqrt(add(square(x), _one(x)))))
acosh_p = unary_primitive("acosh", "chlo.acosh",
                 jvp=lambda t, x: mul(t, rsqrt(sub(square(x), _one(x)))))
atanh_p = unary_primitive("atanh", "chlo.atanh", jvp=lambda t, x: mul(
    integer_pow(add(_one(x), x), -1), div(t, sub(_one(x), x))))
sqrt_p = unary_primitive("sqrt", "stablehlo.sqrt", jvp2=lambda t, y, x: mul(t, div(_const(y, 0.5), y)),
                host=ufunc_kernel(np.sqrt, "f", rounds=True))
rsqrt_p = unary_primitive("rsqrt", "stablehlo.rsqrt",
                 jvp2=lambda t, y, x: mul(t, mul(_const(y, -0.5), div(y, x))))
cbrt_p = unary_primitive("cbrt", "stablehlo.cbrt", _float,
                jvp2=lambda t, y, x: mul(t, mul(_const(y, 1 / 3), integer_pow(y, -2))))
erf_p = unary_primitive("erf", "chlo.erf", _float, jvp=lambda t, x: mul(
    _const(x, 2 / np.sqrt(np.pi)), mul(t, exp(neg(square(x))))))
erfc_p = unary_primitive("erfc", "chlo.erfc", _float, jvp=lambda t, x: mul(
    _const(x, -2 / np.sqrt(np.pi)), mul(t, exp(neg(square(x))))))
erf_inv_p = unary_primitive("erf_inv", "chlo.erf_inv", _float, jvp2=lambda t, y, x: mul(
    _const(y, np.sqrt(np.pi) / 2), mul(t, exp(square(y)))))
lgamma_p = unary_primitive("lgamma", "chlo.lgamma", _float, jvp=lambda t, x: mul(t, digamma(x)))
digamma_p = unary_primitive("digamma", "chlo.digamma", _float,
                   jvp=lambda t, x: mul(t, polygamma(_const(x, 1), x)))
polygamma_p = binary_primitive("polygamma", "chlo.polygamma", _float,
                      [None, lambda t, m, x: mul(t, polygamma(add(m, _const(m, 1)), x))])


def _real_dtype(dtype):
  return np.dtype(np.float64) if np.dtype(dtype) == np.complex128 else np.dtype(np.float32)


def _real_valued(name, check):
  """The shape rule of abs, real and imag: the result of a complex operand is real."""
  def rule(a):
    check(name, a.dtype)
    return ShapedArray(a.shape, _real_dtype(a.dtype) if dtypes.is_complex(a.dtype)
                       else a.dtype, a.weak_type)
  return rule


# (strong zeros: the cotangent of a complex input is strongly typed, as in JAX)
real_p = unary_primitive("real", "stablehlo.real", jvp=lambda t, x: real(t),
                transpose=lambda ct, x: [complex(ct, _strong_zeros(ct))],
                abstract_eval=_real_valued("real", _complex))
imag_p = unary_primitive("imag", "stablehlo.imag", jvp=lambda t, x: imag(t),
                transpose=lambda ct, x: [complex(_strong_zeros(ct), neg(ct))],
                abstract_eval=_real_valued("imag", _complex))
def _conj_abstract_eval(x, *, input_dtype):
  if x.dtype not in (np.float32, np.float64) and not dtypes.is_complex(x.dtype):
    raise TypeError(f"conj does not accept dtype {dtype_name(x.dtype)}. Accepted dtypes are "
                    "subtypes of float32, complexfloating, float64.")
  return ShapedArray(x.shape, _complex_dtype_of(x.dtype), x.weak_type)


def _conj_lowering(ctx, x, *, input_dtype):
  """chlo.conj of a complex operand; a real one becomes ``x + 0j``."""
  out, aval = ctx.avals_out[0], ctx.avals_in[0]
  if dtypes.is_complex(input_dtype):
    return ctx.op("chlo.conj", [x], out)
  zeros = ctx.constant(np.zeros(aval.shape, aval.dtype), aval.update(weak_type=False))
  return ctx.op("stablehlo.complex", [x, zeros], out, in_avals=[aval, aval])


# linear, as JAX's: the transpose conjugates back, or takes the real part of a real input's
conj_p = elementwise_primitive("conj", _conj_abstract_eval, _conj_lowering)
conj_p.batch = elementwise_batch(conj_p)
ad.deflinear(conj_p, lambda ct, x, *, input_dtype: [
    conj(ct) if dtypes.is_complex(input_dtype) else real(ct)])
# (abs takes no unsigned or bool input)
abs_p = unary_primitive("abs", "stablehlo.abs", jvp2=lambda t, y, x: _abs_jvp(t, y, x),
               abstract_eval=_real_valued("abs", dtype_checker("signed", "inexact")),
               host=ufunc_kernel(np.abs, "fi"))
population_count_p = unary_primitive("population_count", "stablehlo.popcnt", _int)
clz_p = unary_primitive("clz", "stablehlo.count_leading_zeros", _int)
not_p = unary_primitive("not", "stablehlo.not", _int_or_bool, host=ufunc_kernel(np.invert, "iub"))
and_p = binary_primitive("and", "stablehlo.and", _int_or_bool, host=ufunc_kernel(np.bitwise_and, "iub"))
or_p = binary_primitive("or", "stablehlo.or", _int_or_bool, host=ufunc_kernel(np.bitwise_or, "iub"))
xor_p = binary_primitive("xor", "stablehlo.xor", _int_or_bool, host=ufunc_kernel(np.bitwise_xor, "iub"))
shift_left_p = binary_primitive("shift_left", "stablehlo.shift_left", _int)
shift_right_arithmetic_p = binary_primitive("shift_right_arithmetic", "stablehlo.shift_right_arithmetic",
                                   _int)
shift_right_logical_p = binary_primitive("shift_right_logical", "stablehlo.shift_right_logical", _int)

complex_p = binary_primitive("complex", "stablehlo.complex", _float, None,
                    result_dtype=lambda d: np.dtype(np.complex128 if d == np.float64
                                                    else np.complex64),
                    differentiable=False)  # (its JVP is deflinear's, below)
# linear in both parts (as JAX's): the transpose gives real(ct) and imag(-ct), both strong
ad.deflinear(complex_p, lambda ct, x, y: [
    unbroadcast(real(ct), x.aval) if ad.is_undefined(x) else None,
    unbroadcast(imag(neg(ct)), y.aval) if ad.is_undefined(y) else None])


def _complex_dtype_of(dtype):
  """The complex dtype of a float32/float64 (a complex dtype is its own)."""
  if dtypes.is_complex(dtype):
    return np.dtype(dtype)
  return np.dtype(np.complex128 if dtype == np.float64 else np.complex64)


# ---------------------------------------------------------------------------------------
# Comparisons

def _compare_lowering(direction, total_order):
  return lambda ctx, **params: compare_attributes(direction, ctx.avals_in[0].dtype,
                                                  total_order)


def _comparison(name, direction, check=any_dtype, total_order=False, host=None):
  def abstract_eval(*avals):
    check_same_dtypes(name, avals)
    check(name, avals[0].dtype, 0)
    return ShapedArray(broadcasting_shape(name, [a.shape for a in avals]), np.bool_,
                       all(a.weak_type for a in avals))
  prim = elementwise_primitive(name, abstract_eval, _lower_nary(
      "stablehlo.compare", _compare_lowering(direction, total_order)))
  prim.batch = elementwise_batch(prim)
  prim.host_kernel = host
  ad.zero_jvp(prim)
  return prim


def _stored_keys_compare(prim, any_word: bool):
  """Comparing PRNG keys: compare their stored words, then combine over each key's words
  (equal keys agree in every word; unequal keys differ in some word)."""
  def compare_words(x, y):
    # reductions builds on elementwise: the key comparison combines words with it
    from xjax._src.primitives.lax.reductions import reduce_and, reduce_or
    shape = np.broadcast_shapes(get_aval(x).shape, get_aval(y).shape)
    x, y = (_broadcast_stored(v, shape) for v in (x, y))
    return (reduce_or if any_word else reduce_and)(prim.bind(x, y), (len(shape) - 1,))
  return lowering_from(compare_words)


def _broadcast_stored(x, shape):
  aval = get_aval(x)
  if aval.shape == shape:
    return x
  return broadcast_in_dim(x, shape, tuple(range(len(shape) - aval.ndim, len(shape))))


_no_complex = _ordered
eq_p = _comparison("eq", "EQ", host=ufunc_kernel(np.equal, "fiub"))
ne_p = _comparison("ne", "NE", host=ufunc_kernel(np.not_equal, "fiub"))
eq_p.physical_lowering = _stored_keys_compare(eq_p, any_word=False)
ne_p.physical_lowering = _stored_keys_compare(ne_p, any_word=True)
lt_p = _comparison("lt", "LT", _no_complex, host=ufunc_kernel(np.less, "fiub"))
le_p = _comparison("le", "LE", _no_complex, host=ufunc_kernel(np.less_equal, "fiub"))
gt_p = _comparison("gt", "GT", _no_complex, host=ufunc_kernel(np.greater, "fiub"))
ge_p = _comparison("ge", "GE", _no_complex, host=ufunc_kernel(np.greater_equal, "fiub"))
# Floats compared in IEEE total order: -NaN < -inf < ... < -0.0 < 0.0 < ... < inf < NaN.
eq_to_p = _comparison("eq_to", "EQ", _no_complex, total_order=True)
le_to_p = _comparison("le_to", "LE", _no_complex, total_order=True)
lt_to_p = _comparison("lt_to", "LT", _no_complex, total_order=True)


# ---------------------------------------------------------------------------------------
# Linear helpers for autodiff: add_any (tangent accumulation) and transposes

def _add_any_abstract_eval(x, y):
  """Tangent sums: operands of one dtype; a scalar, or shapes broadcast as lax's."""
  check_same_dtypes("add_any", [x, y])
  if x.ndim != y.ndim:
    return x if x.ndim > y.ndim else y
  shape = broadcasting_shape("add_any", [x.shape, y.shape])
  if x.shape == shape:
    return x
  return y if y.shape == shape else y.update(shape=shape)


add_any_p = elementwise_primitive("add_any", _add_any_abstract_eval, _lower_nary("stablehlo.add"))
add_any_p.host_kernel = add_p.host_kernel


def _add_any_batch(axis, args, dims):
  """add_any does not broadcast size-1 dimensions: an unbatched operand (other than a
  scalar) is broadcast along the other's batch dimension, two batch dimensions aligned."""
  (x, y), (dx, dy) = args, dims
  if dx is None or dy is None:
    (b, db), (u, _) = ((y, dy), (x, dx)) if dx is None else ((x, dx), (y, dy))
    if get_aval(u).ndim:
      u = batching.matchaxis(u, None, db, axis.size)
    x, y = (u, b) if dx is None else (b, u)
    return add_any_p.bind(x, y), db
  return add_any_p.bind(batching.moveaxis(x, dx, dy), y), dy


add_any_p.batch = _add_any_batch
ad.deflinear(add_any_p, _add_transpose)
# Traced, a tangent sum has its first operand's type; evaluated eagerly it is an ``add``
# (weak only when both operands are), as JAX.
add_any_p.impl = lambda x, y: add(x, y)


# ---------------------------------------------------------------------------------------
# select_n, convert_element_type, integer_pow, clamp, copy

def _select_n_abstract_eval(which, *cases):
  if not cases:
    raise TypeError("select_n must have at least one case")
  if len({c.dtype for c in cases}) > 1:
    got = ", ".join(c.dtype.name for c in cases)
    raise TypeError(f"select_n cases must have the same dtypes, got [{got}].")
  if len({c.shape for c in cases}) > 1:
    got = ", ".join(str(c.shape) for c in cases)
    raise TypeError(f"select_n cases must have the same shapes, got [{got}].")
  if which.shape and which.shape != cases[0].shape:
    raise TypeError("select_n `which` must be scalar or have the same shape as cases, got "
                    f"`which` shape {which.shape} but case shape {cases[0].shape}.")
  if which.dtype != np.bool_ and not dtypes.is_integer(which.dtype):
    raise TypeError(f"select_n `which` must be boolean or integer type, got {which.dtype}.")
  if which.dtype == np.bool_ and len(cases) > 2:
    raise TypeError("select_n with boolean `which` cannot have more than two cases.")
  return ShapedArray(cases[0].shape, cases[0].dtype, all(c.weak_type for c in cases))


def _select_n_lowering(ctx, which, *cases):
  which_aval = ctx.avals_in[0]
  out = ctx.avals_out[0]

  def select(lo, hi_cases):
    # Bisect on the case index so n cases take log2(n) levels of selects.
    if len(hi_cases) == 1:
      return hi_cases[0]
    mid = len(hi_cases) // 2
    if which_aval.dtype == np.bool_:
      pred = which
    else:
      pred_aval = ShapedArray(which_aval.shape, np.bool_)
      bound = ctx.constant(np.asarray(lo + mid, which_aval.dtype),
                           ShapedArray((), which_aval.dtype))
      bound = broadcast_operand(ctx, bound, ShapedArray((), which_aval.dtype),
                                which_aval.shape)
      pred = ctx.op("stablehlo.compare", [which, bound], pred_aval,
                    compare_attributes("LT", which_aval.dtype),
                    in_avals=[which_aval, which_aval])
    low = select(lo, hi_cases[:mid])
    high = select(lo + mid, hi_cases[mid:])
    if which_aval.dtype == np.bool_:
      return ctx.op("stablehlo.select", [pred, high, low], out,
                    in_avals=[ShapedArray(which_aval.shape, np.bool_), out, out])
    return ctx.op("stablehlo.select", [pred, low, high], out,
                  in_avals=[ShapedArray(which_aval.shape, np.bool_), out, out])

  return select(0, list(cases))


def _select_n_physical_lowering(ctx, which, *cases):
  """Selecting PRNG keys: an array predicate is broadcast over the keys' stored dims."""
  which_aval = ctx.avals_in[0]
  if which_aval.ndim:  # over the leading dims (the keys' own), the rest the stored ones
    stored = ShapedArray(physical_aval(ctx.avals_out[0]).shape, which_aval.dtype)
    which = ctx.op("stablehlo.broadcast_in_dim", [which], stored,
                   {"broadcast_dimensions": i64_array(range(which_aval.ndim))},
                   in_avals=[which_aval])
    ctx.avals_in = [stored, *ctx.avals_in[1:]]
  return _select_n_lowering(ctx, which, *cases)


def _select_n_jvp(primals, tangents):
  which, *cases = primals
  out = select_n(which, *cases)
  case_tangents = tangents[1:]
  if all(type(t) is Zero for t in case_tangents):
    return out, Zero(tangent_aval(get_aval(out)))
  ts = [ad.zeros_of(get_aval(c)) if type(t) is Zero else t for c, t in
        zip(cases, case_tangents)]
  return out, select_n(which, *ts)


def _select_n_transpose(ct, which, *cases):
  if ad.is_undefined(which):
    raise ValueError("select_n is not linear in its predicate")
  if type(ct) is Zero:
    return [None] + [None] * len(cases)
  zeros = _zeros_like_value(ct)
  outs = [None]
  for i, c in enumerate(cases):
    if ad.is_undefined(c):
      branches = [zeros] * len(cases)
      branches[i] = ct
      outs.append(select_n(which, *branches))
    else:
      outs.append(None)
  return outs


def _select_n_batch(axis, args, dims):
  """JAX's rule: operands batched alike (or a scalar ``which`` over cases batched alike)
  stay where they are; otherwise every case goes batch-first, unbatched ones broadcast
  (JAX's jaxprs), and a vmapped scalar ``which`` is broadcast to the cases' shape."""
  which, *cases = args
  which_dim, *case_dims = dims
  case_aval = get_aval(cases[0])
  if all(d == which_dim for d in case_dims):
    if get_aval(which).shape != case_aval.shape:  # a scalar which, vmapped
      which = broadcast_in_dim(which, case_aval.shape, (which_dim,), case_aval._sharding)
    return select_n(which, *cases), which_dim
  if get_aval(which).ndim == 0 and all(d is not None for d in case_dims):
    if all(d == case_dims[0] for d in case_dims[1:]):
      return select_n(which, *cases), case_dims[0]
    if all(get_aval(c).shape == case_aval.shape for c in cases):
      moved = [batching.moveaxis(c, d, case_dims[0]) for c, d in zip(cases[1:], case_dims[1:])]
      return select_n(which, cases[0], *moved), case_dims[0]
  mesh_axis = axis.explicit_mesh_axis
  if get_aval(which).ndim:
    which = batching.bdim_to_front(which, which_dim, axis.size, mesh_axis)
  if not all(get_aval(c).ndim == 0 for c in cases):
    cases = [batching.bdim_to_front(c, d, axis.size, mesh_axis)
             for c, d in zip(cases, case_dims)]
  case_aval = get_aval(cases[0])
  if 0 < get_aval(which).ndim < case_aval.ndim:  # a scalar which, vmapped
    which = broadcast_in_dim(which, case_aval.shape, (0,), case_aval._sharding)
  if get_aval(which).ndim > case_aval.ndim:  # scalar cases
    cases = [broadcast_in_dim(c, get_aval(which).shape, (), get_aval(which)._sharding)
             for c in cases]
  return select_n(which, *cases), 0


def _broadcast_full(v, shape):
  return v if get_aval(v).shape == tuple(shape) else broadcast_to_aval(v, shape)


select_n_p = standard_primitive("select_n", _select_n_abstract_eval, _select_n_lowering)
select_n_p.physical_lowering = _select_n_physical_lowering
select_n_p.jvp = _select_n_jvp
select_n_p.transpose = _select_n_transpose
select_n_p.batch = _select_n_batch


def _select_n_sharding(which, *cases):
  """JAX's rule: the cases' common split, which ``which`` (unless a scalar) must share."""
  first = spec_of(cases[0])
  mesh = mesh_of([which, *cases])
  named = lambda a: a._sharding or typed_sharding(mesh, [None] * a.ndim)
  if builtins.any(spec_of(c) != first for c in cases[1:]):
    raise ShardingTypeError("select cases must have the same shardings, got ["
                            + ", ".join(str(named(c)) for c in cases) + "].")
  if which.shape and spec_of(which) != first:
    raise ShardingTypeError(
        "select `which` must be scalar or have the same sharding as cases, got `which` "
        f"sharding {named(which)} but case sharding {named(cases[0])}.")
  return cases[0]._sharding


select_n_p.sharding_rule = _select_n_sharding


def _select_n_host(avals, out_avals):
  """``np.where`` on a boolean ``which``; on an integer one, ``np.choose`` clipping the
  index into range, as the lowering's bisection of selects does."""
  if len(avals) == 2:
    return lambda which, case: case
  if avals[0].dtype == np.bool_:
    return lambda which, false, true: np.where(which, true, false)
  return lambda which, *cases: np.choose(which, cases, mode="clip")


select_n_p.host_kernel = _select_n_host


def _convert_abstract_eval(operand, *, new_dtype, weak_type, sharding=None, retype=False):
  if operand.dtype != new_dtype and (dtypes.is_extended(operand.dtype)
                                     or dtypes.is_extended(new_dtype)):
    raise ValueError(f"Cannot convert_element_type from {operand.dtype} to {new_dtype}"
                     " (PRNG keys are not numbers: use random.key_data / wrap_key_data)")
  return ShapedArray(operand.shape, new_dtype, weak_type)


def _convert_lowering(ctx, x, *, new_dtype, weak_type, sharding=None, retype=False):
  src, out = ctx.avals_in[0], ctx.avals_out[0]
  if src.dtype == out.dtype:
    return x
  if out.dtype == np.bool_ and src.dtype != np.bool_:
    # (a float0 operand has no zero to compare with: NumPy refuses it, as in JAX)
    zero = ctx.constant(np.array(0, src.dtype), ShapedArray((), src.dtype))
    zero = broadcast_operand(ctx, zero, ShapedArray((), src.dtype), src.shape)
    return ctx.op("stablehlo.compare", [x, zero], out, compare_attributes("NE", src.dtype),
                  in_avals=[src, src])
  if dtypes.is_complex(src.dtype) and not dtypes.is_complex(out.dtype):
    real_aval = ShapedArray(src.shape, _real_dtype(src.dtype))
    x = ctx.op("stablehlo.real", [x], real_aval, in_avals=[src])
    src = real_aval
    if src.dtype == out.dtype:
      return x
  return ctx.op("stablehlo.convert", [x], out, in_avals=[src])


def _convert_jvp(primals, tangents, **params):
  (x,), (t,) = primals, tangents
  out = convert_element_type_p.bind(x, **params)
  out_aval = get_aval(out)
  if type(t) is Zero or not dtypes.is_inexact(params["new_dtype"]) or not dtypes.is_inexact(
      get_aval(x).dtype):
    return out, Zero(ad.tangent_aval(out_aval))
  return out, convert_element_type_p.bind(t, **params)


def _convert_transpose(ct, x, **params):
  """The cotangent back in the operand's dtype, weak type and (for a conversion that typed
  its result) sharding; a ``retype`` passes it on as it is."""
  if type(ct) is Zero:
    return [Zero(x.aval)]
  if params.get("retype"):
    return [ct]
  back = dict(new_dtype=x.aval.dtype, weak_type=x.aval.weak_type)
  if "sharding" in params:
    sharding = x.aval._sharding
    back["sharding"] = (typed_sharding(params["sharding"].mesh, [None] * x.aval.ndim)
                        if sharding is None else sharding)
  return [convert_element_type_p.bind(ct, **back)]


def _convert_batch(axis, args, dims, **params):
  (x,), (d,) = args, dims
  sharding = params.get("sharding")
  if sharding is None:
    return convert_element_type_p.bind(x, **params), d
  x = batching.moveaxis(x, d, 0)  # the batch dimension split as the operand's
  sharding = typed_sharding(sharding.mesh, (spec_of(get_aval(x))[0], *sharding.spec))
  return convert_element_type_p.bind(x, **dict(params, sharding=sharding)), 0


def _convert_sharding(x, *, new_dtype, weak_type, sharding=None, retype=False):
  """The result's type sharding: the parameter when given (JAX's jacobians type their
  blocks so; one that splits nothing: unsharded), else the operand's."""
  if sharding is None:
    return x._sharding
  return sharding if builtins.any(sharding.spec) else None


_forward_same_type = [True]  # (False while ``convert_to_type`` binds)


def convert_to_type(x, new_dtype, weak_type: bool, sharding=None):
  """``convert_element_type_p`` bound so that a staged conversion to the operand's own type
  stays an equation (as JAX keeps those of its Jacobians' blocks), its result typed by
  ``sharding`` (a type sharding; None: the operand's), a hidden parameter as in JAX."""
  params = dict(new_dtype=new_dtype, weak_type=weak_type)
  if sharding is not None:
    params["sharding"] = sharding
  _forward_same_type[0] = False
  try:
    return convert_element_type_p.bind(x, **params)
  finally:
    _forward_same_type[0] = True


def _convert_staging(trace, args, params):
  """A host scalar is converted now, staying a literal (JAX folds these conversions); a
  conversion to the operand's own type is the operand (JAX forwards it)."""
  x, = args
  if _is_host_scalar(x):
    return trace.to_tracer(convert_element_type(x, **params))
  aval = get_aval(x)
  if (aval.dtype == params["new_dtype"] and aval.weak_type == params["weak_type"]
      and not dtypes.is_extended(aval.dtype) and _forward_same_type[0]
      and "sharding" not in params):
    return trace.to_tracer(x)
  return trace.record(convert_element_type_p, args, params)


convert_element_type_p = standard_primitive("convert_element_type", _convert_abstract_eval,
                                            _convert_lowering)
convert_element_type_p.jvp = _convert_jvp
convert_element_type_p.transpose = _convert_transpose
convert_element_type_p.batch = _convert_batch
convert_element_type_p.staging = _convert_staging
convert_element_type_p.sharding_rule = _convert_sharding
convert_element_type_p.hidden_params = frozenset({"sharding", "retype"})


def retype_tangent(t, weak_type: bool):
  """The tangent ``t`` typed weak or strong, as JAX's jit types the tangents it takes from
  their primals: a ``convert_element_type`` with the hidden ``retype`` parameter, whose
  transpose leaves the cotangent's type as the call's inside made it (JAX's jit gives the
  cotangent of an input the type of that input's primal)."""
  return convert_element_type_p.bind(t, new_dtype=get_aval(t).dtype, weak_type=weak_type,
                                     retype=True)


def _convert_host(avals, out_avals, *, new_dtype, weak_type, sharding=None, retype=False):
  """Casts NumPy makes as XLA does: all but floats to integers (XLA saturates them and
  takes NaN to zero); a float narrowed can land among the subnormals, which XLA flushes."""
  source, target = avals[0].dtype, out_avals[0].dtype
  if source == target:
    return identity
  if source.kind == "f" and target.kind in "iu":
    return None
  if source.kind == "f" and target.kind == "f" and target.itemsize < source.itemsize:
    return rounding(quiet(lambda x: flush_subnormals(x.astype(target))))
  return input_cast(lambda x: x.astype(target))


convert_element_type_p.host_kernel = _convert_host


def _integer_pow_abstract_eval(x, *, y):
  _number("integer_pow", x.dtype)
  if y < 0 and dtypes.is_integer(x.dtype):
    raise TypeError("Integers cannot be raised to negative powers, got "
                    f"integer_pow({x.dtype.name}[{','.join(map(str, x.shape))}], {y})")
  return x


def square_and_multiply(base, n: int, multiply):
  """``base`` to the power ``n`` >= 1 as the products ``multiply(a, b)`` of repeated
  squaring, in the order integer_pow's lowering makes them (JAX's: a cube is (x x) x,
  which rounds differently from x (x x) for complex x)."""
  if n == 3:
    return multiply(multiply(base, base), base)
  acc = None
  while n:
    if n & 1:
      acc = base if acc is None else multiply(acc, base)
    n >>= 1
    if n:
      base = multiply(base, base)
  return acc


def _integer_pow_lowering(ctx, x, *, y):
  aval = ctx.avals_in[0]
  if y == 0:
    one = ctx.constant(np.ones((), aval.dtype), ShapedArray((), aval.dtype))
    return broadcast_operand(ctx, one, ShapedArray((), aval.dtype), aval.shape)
  acc = square_and_multiply(x, builtins.abs(y),
                            lambda a, b: ctx.op("stablehlo.multiply", [a, b], aval))
  if y < 0:
    one = ctx.constant(np.ones((), aval.dtype), ShapedArray((), aval.dtype))
    one = broadcast_operand(ctx, one, ShapedArray((), aval.dtype), aval.shape)
    acc = ctx.op("stablehlo.divide", [one, acc], aval)
  return acc


integer_pow_p = elementwise_primitive("integer_pow", _integer_pow_abstract_eval,
                                   _integer_pow_lowering)


def _integer_pow_host(avals, out_avals, *, y):
  """The lowering's square-and-multiply, each product rounded (and flushed) as XLA's."""
  aval = avals[0]
  if aval.dtype.kind not in "fiu" or (y < 0 and aval.dtype.kind != "f"):
    return None
  multiply = mul_p.host_kernel([aval, aval], [aval])
  divide = div_p.host_kernel([aval, aval], [aval]) if y < 0 else None

  def kernel(x):
    if y == 0:
      return np.ones(x.shape, x.dtype)
    acc = square_and_multiply(x, builtins.abs(y), multiply)
    return acc if divide is None else divide(np.ones_like(acc), acc)
  return rounding(kernel)


integer_pow_p.host_kernel = _integer_pow_host
integer_pow_p.batch = lambda axis, args, dims, y: (integer_pow(args[0], y), dims[0])
ad.defjvp(integer_pow_p, lambda t, x, y: _zeros_like_value(t) if y == 0 else mul(
    t, mul(_const(x, y), x if y == 2 else integer_pow(x, y - 1))))


def _clamp_abstract_eval(lo, x, hi):
  check_same_dtypes("clamp", [lo, x, hi])
  for b, n in ((lo, "min"), (hi, "max")):
    if b.shape and b.shape != x.shape:
      raise TypeError(f"clamp requires {n}.shape == operand.shape or {n}.shape == (), got "
                      f"{n}.shape={b.shape}, operand.shape={x.shape}.")
  return x.update(weak_type=lo.weak_type and x.weak_type and hi.weak_type)


clamp_p = elementwise_primitive("clamp", _clamp_abstract_eval, _lower_nary("stablehlo.clamp"))


def _clamp_jvp(active):
  """Tangent of one clamp argument: ``t`` (broadcast to the operand's shape) where
  ``active(lo, x, hi)``, else a zero like the operand (its weak type too, as JAX)."""
  def jvp(t, lo, x, hi):
    t = broadcast_to_aval(t, get_aval(x).shape)
    return select_n(active(lo, x, hi), _zeros_like_value(x), t)
  return jvp


# the lower bound is the result only where it is below the upper bound
ad.defjvp(clamp_p, _clamp_jvp(lambda lo, x, hi: bitwise_and(gt(lo, x), lt(lo, hi))),
          _clamp_jvp(lambda lo, x, hi: bitwise_and(gt(x, lo), lt(x, hi))),
          _clamp_jvp(lambda lo, x, hi: lt(hi, x)))


def _clamp_batch(axis, args, dims):
  """JAX's rule: the special cases keep the operands as they are; otherwise batch
  dimensions go first and scalar or 1-D bounds are broadcast to the operand."""
  lo, x, hi = args
  ld, xd, hd = dims
  nd = lambda v: get_aval(v).ndim
  if ld == xd == hd:
    if get_aval(lo).shape == get_aval(x).shape == get_aval(hi).shape or nd(lo) == nd(hi) == 0:
      return clamp(lo, x, hi), xd
    if nd(lo) == nd(hi) == 1:
      shape = get_aval(x).shape
      return clamp(broadcast_in_dim(lo, shape, (ld,)), x, broadcast_in_dim(hi, shape, (hd,))), xd
  elif nd(lo) == 0 and nd(hi) == 0 and xd is not None:
    return clamp(lo, x, hi), xd
  front = lambda v, d: batching.bdim_to_front(v, d, axis.size) if nd(v) else v
  lo, hi, x = front(lo, ld), front(hi, hd), front(x, xd)
  shape = get_aval(x).shape
  lo = broadcast_in_dim(lo, shape, ()) if nd(lo) == 0 < len(shape) else lo
  hi = broadcast_in_dim(hi, shape, ()) if nd(hi) == 0 < len(shape) else hi
  lo = broadcast_in_dim(lo, shape, (0,)) if 0 < nd(lo) < len(shape) else lo
  hi = broadcast_in_dim(hi, shape, (0,)) if 0 < nd(hi) < len(shape) else hi
  if nd(lo) > nd(x):
    x = broadcast_in_dim(x, get_aval(lo).shape, ())
  return clamp(lo, x, hi), 0


clamp_p.batch = _clamp_batch

copy_p = elementwise_primitive("copy", lambda x: x, lambda ctx, x: x)
copy_p.host_kernel = lambda avals, out_avals: identity
copy_p.batch = lambda axis, args, dims: (copy_p.bind(args[0]), dims[0])
ad.deflinear(copy_p, lambda ct, x: [ct])


# ---------------------------------------------------------------------------------------
# User-facing functions

def _unary(prim, name=None):
  """The user function ``f(x)`` of a one-operand primitive (JAX's parameter name), named
  ``name`` (the primitive's name by default)."""
  def fn(x):
    return prim.bind(x)
  return _named(fn, prim, name)


def _bind(prim, name=None):
  """The user function ``f(x, y)`` of a two-operand primitive (JAX's parameter names)."""
  def fn(x, y):
    return prim.bind(x, y)
  return _named(fn, prim, name)


def _named(fn, prim, name=None):
  fn.__name__ = fn.__qualname__ = name or prim.name
  fn.__doc__ = f"Elementwise ``{prim.name}`` (lax: operands must share a dtype)."
  return fn


add = _bind(add_p)
sub = _bind(sub_p)


def mul(x, y, *, out_dtype=None):
  """Elementwise ``x * y``: operands of one dtype, or with ``out_dtype``, operands of any
  numeric dtypes multiplied in that dtype."""
  return mul_p.bind(x, y) if out_dtype is None else mul_p.bind(x, y, out_dtype=out_dtype)


div = _bind(div_p)
rem = _bind(rem_p)
max = _bind(max_p)
min = _bind(min_p)


def pow(x, y):
  """Elementwise ``x ** y``: an inexact ``x``, ``y`` of its dtype or an integer dtype."""
  return pow_p.bind(x, y)


atan2 = _bind(atan2_p)


def nextafter(x1, x2):
  """The next representable value after ``x1`` towards ``x2``, elementwise."""
  return nextafter_p.bind(x1, x2)


neg = _unary(neg_p)
sign = _unary(sign_p)
floor = _unary(floor_p)
ceil = _unary(ceil_p)
is_finite = _unary(is_finite_p)


def _bind_accurate(prim):
  """The user function of a transcendental primitive: ``f(x, *, accuracy=None)``."""
  def fn(x, *, accuracy=None):
    if accuracy is None:
      return prim.bind(x)
    return prim.bind(x, accuracy=check_accuracy(accuracy))
  fn.__name__ = fn.__qualname__ = prim.name
  fn.__doc__ = (f"Elementwise ``{prim.name}``; ``accuracy`` (a lax.Tolerance or "
                "lax.AccuracyMode) selects the implementation.")
  return fn


exp = _bind_accurate(exp_p)
exp2 = _bind_accurate(exp2_p)
log = _bind_accurate(log_p)
expm1 = _bind_accurate(expm1_p)
log1p = _bind_accurate(log1p_p)
tanh = _bind_accurate(tanh_p)
logistic = _bind_accurate(logistic_p)
sin = _bind_accurate(sin_p)
cos = _bind_accurate(cos_p)
tan = _bind_accurate(tan_p)
asin = _unary(asin_p)
acos = _unary(acos_p)
atan = _unary(atan_p)
sinh = _unary(sinh_p)
cosh = _unary(cosh_p)
asinh = _unary(asinh_p)
acosh = _unary(acosh_p)
atanh = _unary(atanh_p)
sqrt = _bind_accurate(sqrt_p)
rsqrt = _bind_accurate(rsqrt_p)
cbrt = _bind_accurate(cbrt_p)
erf = _unary(erf_p)
erfc = _unary(erfc_p)
erf_inv = _unary(erf_inv_p)
lgamma = _unary(lgamma_p)
digamma = _unary(digamma_p)


def polygamma(m, x):
  """The ``m``-th derivative of the digamma function at ``x``, elementwise."""
  return polygamma_p.bind(m, x)


real = _unary(real_p)
imag = _unary(imag_p)


def conj(x):
  """Elementwise complex conjugate; a float32/float64 input gives ``x + 0j`` (as JAX)."""
  return conj_p.bind(x, input_dtype=get_aval(x).dtype)


complex = _bind(complex_p)
abs = _unary(abs_p)
population_count = _unary(population_count_p)
clz = _unary(clz_p)
bitwise_not = _unary(not_p, "bitwise_not")
bitwise_and = _bind(and_p, "bitwise_and")
bitwise_or = _bind(or_p, "bitwise_or")
bitwise_xor = _bind(xor_p, "bitwise_xor")
shift_left = _bind(shift_left_p)
shift_right_arithmetic = _bind(shift_right_arithmetic_p)
shift_right_logical = _bind(shift_right_logical_p)
eq = _bind(eq_p)
ne = _bind(ne_p)
lt = _bind(lt_p)
le = _bind(le_p)
gt = _bind(gt_p)
ge = _bind(ge_p)
add_any = _bind(add_any_p)


def clamp(min, x, max):
  """``x`` limited to [``min``, ``max``] elementwise (bounds may be scalars)."""
  return clamp_p.bind(min, x, max)


logical_and = bitwise_and


def select_n(which, *cases):
  """``cases[which]`` elementwise; a boolean ``which`` picks cases[1] where True."""
  if not cases:
    raise ValueError("select_n() must have at least one case")
  return select_n_p.bind(which, *cases)


def convert_element_type(operand, new_dtype, weak_type: bool = False):
  """Casts ``operand`` to ``new_dtype`` (float->int truncates; NaN->int is 0 as in XLA).

  Host scalars are converted on the host (they stay literals in jaxprs, as in JAX).
  """
  if type(operand) in _PYTHON_SCALARS and isinstance(new_dtype, np.dtype):  # (promotion's case)
    new_dtype = dtypes.canonicalize_dtype(new_dtype)
    if type(operand) is float and new_dtype.kind in "iu":
      operand = _float_to_int(operand, new_dtype)
    return staged_constant(scalar_array(operand, new_dtype, bool(weak_type)))
  if isinstance(new_dtype, dtypes.ExtendedDType) or isinstance(
      getattr(operand, "dtype", None), dtypes.ExtendedDType):
    return _convert_extended(operand, new_dtype)
  if type(new_dtype) is not np.dtype:
    dtypes.reject_array_dtype(new_dtype)
    new_dtype = dtypes.dtype(new_dtype)
  new_dtype = dtypes.canonicalize_dtype(new_dtype)
  weak_type = bool(weak_type)
  if (_is_host_scalar(operand) or _staged_scalar_constant(operand)) and \
      getattr(operand, "dtype", None) != dtypes.float0:
    if type(operand) is DynamicJaxprTracer:
      operand = staged_literal(operand)
    if (type(operand) is float or np.asarray(operand).dtype.kind == "f") and (
        dtypes.is_integer(new_dtype)):
      operand = _float_to_int(operand, new_dtype)
    # (inside jit a tracer of the converted literal, as JAX's conversion gives)
    return staged_constant(scalar_array(operand, new_dtype, weak_type))
  aval = get_aval(operand)
  if aval.dtype == new_dtype and aval.weak_type == weak_type:
    if type(operand) is Array:
      return staged_constant(operand, made=False)
    if type(operand) is not ad.JVPTracer or not ad.concrete_primal(operand):
      return operand
    # (a tracer of eager differentiation is converted, as JAX's: its primal becomes an
    # Array where it was a Python scalar)
  return convert_element_type_p.bind(operand, new_dtype=new_dtype, weak_type=weak_type)


def user_convert_element_type(operand, new_dtype):
  """``lax.convert_element_type`` as users call it: ``new_dtype`` is checked as a requested
  dtype first (a 64-bit one without x64 warns that it is truncated, as JAX's public function
  does; xjax's own conversions skip the check)."""
  return convert_element_type(
      operand, dtypes.check_user_dtype_supported(new_dtype, "convert_element_type"))


user_convert_element_type.__name__ = user_convert_element_type.__qualname__ = (
    "convert_element_type")   # (lax.convert_element_type's own)


_HOST_SCALARS = (bool, int, float, type(1j), np.generic)  # `complex` is lax.complex here
_PYTHON_SCALARS = frozenset(_HOST_SCALARS[:4])


def _is_host_scalar(x) -> bool:
  return isinstance(x, _HOST_SCALARS) or (isinstance(x, np.ndarray) and x.ndim == 0)


def _staged_scalar_constant(x) -> bool:
  """A staged literal: converted as a literal, as JAX folds it. (A concrete Array closed
  over is a constant of the jaxpr, whose conversion is staged, as in JAX.)"""
  return staged_literal(x) is not None


def _convert_extended(operand, new_dtype):
  """Typed keys convert only to their own dtype (a no-op), as in JAX; convertible extended
  dtypes (``primal_tangent_dtype``) to and from their physical dtype."""
  src = get_aval(operand).dtype
  dst = new_dtype if isinstance(new_dtype, dtypes.ExtendedDType) else dtypes.dtype(new_dtype)
  if getattr(src, "allow_conversion", False) or getattr(dst, "allow_conversion", False):
    # extended_arrays builds on elementwise: convert_element_type defers to it for extended dtypes
    from xjax._src.primitives.lax import extended_arrays
    return extended_arrays.convert(operand, dst)
  if src != dst:
    raise ValueError(f"Cannot convert_element_type from {src} to {dst}")
  return operand


def _float_to_int(v, dtype):
  """A host float constant converted to an integer dtype as JAX converts it: eagerly as XLA
  does (``_saturating_int``); staged by jit, folded with NumPy's cast, as JAX's jaxpr
  folding does (NaN and out-of-range values become what the C cast gives, with NumPy's
  RuntimeWarning)."""
  trace = current_trace()
  while isinstance(trace, (ad.JVPTrace, ad.PartialEvalTrace, batching.BatchTrace)):
    trace = trace.parent   # (they compute on constants with their parent trace)
  if type(trace) is DynamicJaxprTrace:
    return np.asarray(v).astype(dtype)[()]
  return _saturating_int(float(v), dtype)


def _saturating_int(v: float, dtype) -> int:
  """A float converted to an integer dtype as XLA does: truncated, saturated, NaN -> 0."""
  info = np.iinfo(dtype)
  if np.isnan(v):
    return 0
  return info.max if v >= info.max else info.min if v <= info.min else int(v)


def integer_pow(x, y: int):
  try:
    y = operator.index(y)
  except TypeError:
    raise TypeError(f"lax.integer_pow: the exponent y must be a Python integer, got {y!r} of "
                    f"type {type(y).__name__}; use lax.pow for non-integer powers.") from None
  return integer_pow_p.bind(x, y=y)


# ---------------------------------------------------------------------------------------
# square: x * x

square_p = elementwise_primitive(
    "square", _nary_abstract_eval("square", dtype_checker("int", "inexact")),
    lambda ctx, x: ctx.op("stablehlo.multiply", [x, x], ctx.avals_out[0]))
square_p.batch = elementwise_batch(square_p)


def _square_host(avals, out_avals):
  multiply = mul_p.host_kernel([*avals, *avals], out_avals)
  return None if multiply is None else rounding(lambda x: multiply(x, x))


square_p.host_kernel = _square_host
ad.defjvp(square_p, lambda t, x: mul(t, mul(_const(x, 2), x)))


def square(x):
  """Elementwise ``x * x``."""
  return square_p.bind(x)


# ---------------------------------------------------------------------------------------
# mulhi: the high half of the double-width integer product

mulhi_p = elementwise_primitive("mulhi", _nary_abstract_eval("mulhi", dtype_checker("int")),
                             _lower_nary("chlo.mulhi"))  # as JAX; XLA expands it
mulhi_p.batch = elementwise_batch(mulhi_p)
ad.zero_jvp(mulhi_p)


def mulhi(x, y, /):
  """The high half of the double-width product of integers ``x`` and ``y``."""
  return mulhi_p.bind(x, y)


# ---------------------------------------------------------------------------------------
# Private helpers used by the rules above

def _const(like, value):
  """``value`` as a scalar of ``like``'s dtype: a (weak) Python scalar where ``like`` is a weakly
  typed scalar whose dtype a Python scalar takes, else a strong NumPy scalar -- as JAX's rule
  constants, so a rule applied to a weak array (a batched one under ``grad(vmap)``) is strong."""
  aval = get_aval(like)
  c = np.asarray(value, dtype=aval.dtype)[()]
  if aval.weak_type and not aval.shape:
    py = c.item()
    if dtypes.canonicalize_dtype(dtypes.python_scalar_dtypes[type(py)]) == aval.dtype:
      return py
  return c


def _const_dtype(value, dtype):
  return np.asarray(value, dtype=dtype)[()]


def _one(like):
  """1 of ``like``'s dtype and weak type, whatever its rank (as JAX's rules' ``_one``)."""
  aval = get_aval(like)
  c = np.asarray(1, dtype=aval.dtype)[()]
  return c.item() if aval.weak_type else c


def _zeros_like_value(x):
  return _full_like_value(x, 0)


def _trunc_div(x, y):
  q = div(x, y)
  if dtypes.is_integer(get_aval(q).dtype):
    return q
  return select_n(lt(q, _const(q, 0)), floor(q), ceil(q))


def _pow_jac_base(x, y):
  """d pow(x, y) / dx on strongly typed operands (JAX's rule converts them, so the
  derivative of a weakly typed base is strong). An integer exponent 0 has derivative 0,
  also at x = 0 (where y * x**(y - 1) is NaN), as in JAX."""
  integer = dtypes.is_integer(get_aval(y).dtype)
  dt = get_aval(x).dtype
  x, y = convert_element_type(x, dt), convert_element_type(y, dt)
  if not integer:
    return mul(y, pow(x, sub(y, _one(y))))
  shape = np.broadcast_shapes(get_aval(x).shape, get_aval(y).shape)
  x, y = _broadcast_full(x, shape), _broadcast_full(y, shape)
  zero = eq(y, _const(y, 0))
  nonzero_y = select_n(zero, y, _full_like_value(y, 1))
  return select_n(zero, mul(nonzero_y, pow(x, sub(y, _full_like_value(y, 1)))),
                  _full_like_value(y, 0))


def _strong_zeros(x):
  aval = get_aval(x)
  return full(aval.shape, 0, aval.dtype)


def _full_like_value(x, value):
  """``full_like``: the weak type of ``x`` included (a scalar stays a literal in jaxprs)."""
  aval = get_aval(x)
  return full(aval.shape, convert_element_type(value, aval.dtype, aval.weak_type),
              sharding=aval._sharding)


def _safe_base(x):
  return select_n(eq(x, _const(x, 0)), x, _full_like_value(x, 1))


def _balanced_eq(x, z, y):
  """1 where ``x`` is the chosen value ``z`` of max/min(x, y), 1/2 where ``y`` ties it."""
  def select(pred, on_true, on_false):  # (made in this order, as JAX's jaxprs show them)
    return select_n(pred, on_false, on_true)
  chosen = _eq_meet(x, z)
  chosen = select(chosen, _full_like_value(z, 1), _full_like_value(z, 0))
  tied = _eq_meet(y, z)
  return div(chosen, select(tied, _full_like_value(z, 2), _full_like_value(z, 1)))


def _eq_meet(a, b):
  """``a == b`` in their promoted dtype."""
  a_dtype, b_dtype = get_aval(a).dtype, get_aval(b).dtype
  if a_dtype != b_dtype:
    dtype = dtypes.promote_types(a_dtype, b_dtype)
    a, b = convert_element_type(a, dtype), convert_element_type(b, dtype)
  return eq(a, b)


def _abs_jvp(t, y, x):
  """JAX's: ``t`` or ``-t`` by the sign of real ``x``; Re(t conj(x) / |x|) for complex
  ``x`` (|x| = 0 taken as 1)."""
  if dtypes.is_complex(get_aval(x).dtype):
    conj_x = conj(x)
    y = convert_element_type(y, get_aval(x).dtype)
    return real(mul(t, div(conj_x, select_n(eq(y, _const(y, 0)), y, _full_like_value(y, 1)))))
  return select_n(ge(x, _const(x, 0)), neg(t), t)


def reciprocal(x):
  """Elementwise ``1 / x``."""
  return integer_pow(x, -1)


def select(pred, on_true, on_false):
  """``on_true`` where ``pred`` else ``on_false`` (boolean ``pred``)."""
  return select_n(pred, on_false, on_true)


def dtype(x):
  """The canonical dtype of a value or dtype specifier."""
  return dtypes.dtype(x, canonicalize=True)

