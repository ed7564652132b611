"""Cumulative reductions along one axis: cumsum, cumprod, cummax, cummin, cumlogsumexp.

Each lowers to a ``stablehlo.reduce_window`` whose window spans the whole axis, padded
by ``n - 1`` on the low side (high side when reversed); an empty axis lowers to the operand.
"""
from __future__ import annotations

import numpy as np

from xjax._src.backend.lowering import compare_attributes
from xjax._src.foundations import dtypes
from xjax._src.core.avals import ShapedArray, spec_of
from xjax._src.foundations.sharding import ShardingTypeError
from xjax._src.core.values import get_aval
from xjax._src.interpreters import ad
from xjax._src.interpreters.ad import Zero
from xjax._src.primitives.lax import elementwise as ew
from xjax._src.primitives.lax.control_flow.associative import associative_scan
from xjax._src.primitives.lax.log_add import log_add_complex, logaddexp
from xjax._src.primitives.traced_lowering import inline_traced
from xjax._src.primitives.lax.reductions import _HLO_OPS, _identity
from xjax._src.primitives.lax.operand_checks import dtype_checker
from xjax._src.primitives.lax.primitive_builders import standard_primitive
from xjax._src.primitives.lax.windowed import lower_reduce_window


def _abstract_eval(name, check):
  def rule(x, *, axis, reverse):
    check(name, x.dtype)
    if not 0 <= axis < max(x.ndim, 1) or x.ndim == 0:
      raise ValueError(f"{name}: axis {axis} is out of bounds for array of shape {x.shape}")
    return ShapedArray(x.shape, x.dtype, x.weak_type)
  return rule


def _logaddexp_body(sub, a, b):
  """``log(exp(a) + exp(b))`` on scalars, stable, with ``-inf`` handled."""
  aval = sub.aval_of(a)
  m = sub.op("stablehlo.maximum", [a, b], aval)
  lo = sub.op("stablehlo.minimum", [a, b], aval)
  d = sub.op("stablehlo.subtract", [lo, m], aval)
  e = sub.op("stablehlo.exponential", [d], aval)
  r = sub.op("stablehlo.add", [m, sub.op("stablehlo.log_plus_one", [e], aval)], aval)
  b_ = ShapedArray((), np.bool_)
  ninf = sub.constant(np.array(-np.inf, aval.dtype), aval)
  is_ninf = sub.op("stablehlo.compare", [m, ninf], b_, compare_attributes("EQ"),
                   in_avals=[aval, aval])
  return sub.op("stablehlo.select", [is_ninf, m, r], aval, in_avals=[b_, aval, aval])


def _lowering(op):
  def lower(ctx, x, *, axis, reverse):
    aval = ctx.avals_out[0]
    n = aval.shape[axis]
    if n == 0:  # StableHLO rejects a zero-sized window; the empty operand is the result
      return x
    scalar = ShapedArray((), aval.dtype)
    ident = (np.array(-np.inf, aval.dtype) if op == "logaddexp"
             else _identity(op, aval.dtype))
    init = ctx.constant(ident, scalar)

    def body(sub, accs, xs):
      if op == "logaddexp" and dtypes.is_complex(aval.dtype):  # (traced from lax, as JAX)
        return inline_traced(sub, lambda a, b: [log_add_complex(a, b)], [scalar, scalar],
                             [accs[0], xs[0]])
      if op == "logaddexp":
        return [_logaddexp_body(sub, accs[0], xs[0])]
      if op in ("max", "min") and dtypes.is_complex(aval.dtype):  # (real, imag) order
        return [ew.lower_complex_minmax(sub, accs[0], xs[0], scalar,
                                        "GT" if op == "max" else "LT")]
      return [sub.op(_HLO_OPS[op], [accs[0], xs[0]], scalar)]
    window = [1] * aval.ndim
    window[axis] = n
    padding = [(0, 0)] * aval.ndim
    padding[axis] = (0, n - 1) if reverse else (n - 1, 0)
    return lower_reduce_window(ctx, [x], [init], body, [aval], window, [1] * aval.ndim,
                               padding)[0]
  return lower


def _batch(prim):
  def batch(ax, args, dims, *, axis, reverse):
    (x,), (d,) = args, dims
    return prim.bind(x, axis=axis + (axis >= d), reverse=reverse), d
  return batch


def _scan_jvp(combine):
  """Primal and tangent both from ``associative_scan`` (as JAX: reduce_window is not
  differentiable), so both carry its types (a weak operand's result is strong)."""
  def jvp(primals, tangents, *, axis, reverse):
    (x,), (t,) = primals, tangents
    out, (t_out,) = ad.jvp_flat(
        lambda y: [associative_scan(combine, y, reverse=reverse, axis=axis)],
        [x], [ad.instantiate(t)])
    return out[0], t_out
  return jvp


def _sharding_rule(x, *, axis, reverse):
  """The operand's split, which must leave whole the axis scanned along (as JAX's)."""
  if spec_of(x)[axis] is not None:
    raise ShardingTypeError("Input should be unsharded over the axis being reduced. Got input "
                            f"type={x.str_short(short_dtypes=False)} and axis={axis}")
  return x._sharding


def _cumprim(name, op, check):
  prim = standard_primitive(name, _abstract_eval(name, check), _lowering(op))
  prim.batch = _batch(prim)
  prim.sharding_rule = _sharding_rule
  return prim


_number = dtype_checker("number")
cumsum_p = _cumprim("cumsum", "add", _number)
cumprod_p = _cumprim("cumprod", "mul", _number)
cummax_p = _cumprim("cummax", "max", _number)
cummin_p = _cumprim("cummin", "min", _number)
cumlogsumexp_p = _cumprim("cumlogsumexp", "logaddexp", dtype_checker("inexact"))


def _cumsum_transpose(ct, x, *, axis, reverse):
  if type(ct) is Zero:
    return [Zero(x.aval)]
  return [cumsum_p.bind(ct, axis=axis, reverse=not reverse)]


ad.deflinear(cumsum_p, _cumsum_transpose)
cumprod_p.jvp = _scan_jvp(ew.mul)
cummax_p.jvp = _scan_jvp(ew.max)
cummin_p.jvp = _scan_jvp(ew.min)


cumlogsumexp_p.jvp = _scan_jvp(logaddexp)


def _bind(prim):
  def fn(operand, axis: int = 0, reverse: bool = False):
    shape = get_aval(operand).shape
    if axis < 0:  # lax is strict (as JAX); jnp normalises negative axes
      raise ValueError("XLA operations do not allow negative axes")
    if not axis < len(shape):
      raise ValueError(f"axis {axis} is out of bounds for array of shape {shape}")
    return prim.bind(operand, axis=int(axis), reverse=bool(reverse))
  fn.__name__ = prim.name
  fn.__doc__ = f"Cumulative ``{prim.name[3:]}`` along ``axis`` (from the end if ``reverse``)."
  return fn


cumsum = _bind(cumsum_p)
cumprod = _bind(cumprod_p)
cummax = _bind(cummax_p)
cummin = _bind(cummin_p)
cumlogsumexp = _bind(cumlogsumexp_p)


