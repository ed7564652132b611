"""Reduction primitives: reduce_sum/max/min/prod/and/or/xor, argmax/argmin."""
from __future__ import annotations

import builtins
import math
from typing import Sequence

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.foundations.config import config
from xjax._src.foundations.sharding import NamedSharding, PartitionSpec, out_sharding_param
from xjax._src.backend.lowering import compare_attributes, i64_array
from xjax._src.core.avals import ShapedArray, mesh_of, spec_of, tangent_aval
from xjax._src.core.values import get_aval
from xjax._src.interpreters import ad
from xjax._src.interpreters.ad import Zero
from xjax._src.primitives.lax import elementwise as ew
from xjax._src.primitives.lax import shapes
from xjax._src.primitives.lax.operand_checks import dtype_checker
from xjax._src.primitives.lax.primitive_builders import standard_primitive


def _reduced_shape(name, x, axes):
  for a in axes:
    if not 0 <= a < x.ndim:
      raise ValueError(f"{name}: axis {a} is out of bounds for array of dimension {x.ndim}")
  if len(set(axes)) != len(axes):
    raise ValueError(f"{name}: duplicate value in 'axes': {axes}")
  return tuple(d for i, d in enumerate(x.shape) if i not in axes)


def _reduce_abstract_eval(name, check):
  def rule(x, *, axes, out_sharding=None):
    check(name, x.dtype)
    if (name == "reduce_sum" and x.dtype in _HALF_FLOATS
        and not config._read("jax_allow_f16_reductions")
        and builtins.any(x.shape[a] != 1 for a in axes)):
      raise ValueError(f"reduce_sum on operand {x.str_short(short_dtypes=True)} is not "
                       "allowed when jax_allow_f16_reductions=False.")
    return ShapedArray(_reduced_shape(name, x, axes), x.dtype, x.weak_type)
  return rule


_HALF_FLOATS = (np.dtype(np.float16), np.dtype(dtypes.bfloat16))


def _identity(op, dtype):
  dtype = np.dtype(dtype)
  if op in ("add", "or", "xor"):
    return np.zeros((), dtype)
  if op == "mul":
    return np.ones((), dtype)
  if op == "and":
    return np.array(True) if dtype == np.bool_ else np.array(-1).astype(dtype)
  if op == "max":
    if dtype == np.bool_:
      return np.array(False)
    return np.array(-np.inf, dtype) if dtypes.is_inexact(dtype) else np.array(
        dtypes.iinfo(dtype).min, dtype)
  if op == "min":
    if dtype == np.bool_:
      return np.array(True)
    return np.array(np.inf, dtype) if dtypes.is_inexact(dtype) else np.array(
        dtypes.iinfo(dtype).max, dtype)
  raise ValueError(op)


_HLO_OPS = {"add": "stablehlo.add", "mul": "stablehlo.multiply", "max": "stablehlo.maximum",
            "min": "stablehlo.minimum", "and": "stablehlo.and", "or": "stablehlo.or",
            "xor": "stablehlo.xor"}


def lower_reduce(ctx, operands, inits, axes, body, out_avals):
  """Emits ``stablehlo.reduce`` with a region built by ``body(sub_ctx, accs, xs)``."""
  scalar_avals = [ShapedArray((), a.dtype) for a in out_avals]
  n = len(operands)

  def region(sub, args):
    return body(sub, args[:n], args[n:])
  reg = ctx.region(scalar_avals + scalar_avals, region)
  in_avals = [ctx.aval_of(o) for o in operands] + scalar_avals
  return ctx.op("stablehlo.reduce", list(operands) + list(inits), out_avals,
                {"dimensions": i64_array(axes)}, regions=[reg], in_avals=in_avals)


def _monoid_lowering(op):
  def lower(ctx, x, *, axes, out_sharding=None):
    out = ctx.avals_out[0]
    scalar = ShapedArray((), out.dtype)
    init = ctx.constant(_identity(op, out.dtype), scalar)
    hlo = _HLO_OPS[op]

    def body(sub, accs, xs):
      if op in ("max", "min") and dtypes.is_complex(out.dtype):
        return [ew.lower_complex_minmax(sub, accs[0], xs[0], scalar,
                                        "GT" if op == "max" else "LT")]
      return [sub.op(hlo, [accs[0], xs[0]], scalar)]
    return lower_reduce(ctx, [x], [init], axes, body, [out])[0]
  return lower


def _reduce_batch(prim):
  def rule(axis, args, dims, *, axes, **params):
    (x,), (d,) = args, dims
    # (NumPy integers, as JAX's rule makes them: its jaxprs print them so)
    new_axes = tuple(np.where(np.less(axes, d), axes, np.add(axes, 1))) if axes else ()
    out_dim = d - sum(a < d for a in axes)
    return prim.bind(x, axes=new_axes, **params), out_dim
  return rule


def reduced_sharding_rule(x, *, axes, out_sharding=None, **params):
  """A reduction's result is split as its operand along the dimensions it keeps."""
  if out_sharding is not None:
    return out_sharding
  spec = [p for d, p in enumerate(spec_of(x)) if d not in axes]
  return NamedSharding(mesh_of([x]), PartitionSpec(*spec)) if builtins.any(spec) else None


def _reduction(name, op, check):
  prim = standard_primitive(name, _reduce_abstract_eval(name, check), _monoid_lowering(op))
  prim.batch = _reduce_batch(prim)
  prim.sharding_rule = reduced_sharding_rule
  prim.host_kernel = _exact_host_reduction(_HOST_UFUNCS[op], op in ("max", "min"))
  return prim


_HOST_UFUNCS = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum,
                "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}


def _exact_host_reduction(ufunc, needs_values: bool):
  """The host kernel of a reduction of integers or booleans, exact in any order (two's
  complement sums and products wrap alike), so equal to XLA's whatever order it picks; none
  for floats, whose order XLA chooses, nor for a max/min over no values (NumPy has no
  identity for them)."""
  def rule(avals, out_avals, *, axes, out_sharding=None):
    (aval,) = avals
    if aval.dtype.kind not in "iub" or (needs_values and 0 in [aval.shape[a] for a in axes]):
      return None
    dtype, axes = aval.dtype, tuple(axes)
    return lambda x: ufunc.reduce(x, axis=axes, dtype=dtype)
  return rule


_number = dtype_checker("number")
reduce_sum_p = _reduction("reduce_sum", "add", _number)
reduce_prod_p = _reduction("reduce_prod", "mul", _number)


def _reduce_prod_jvp(primals, tangents, *, axes, out_sharding=None):
  """JAX's: the reduced axes moved to the front and flattened, then multiplied as a tree
  (halves padded with 1), primal and tangent both forward-differentiated from it (so zeros
  are safe, and the values round as JAX's)."""
  (x,), (t,) = primals, tangents
  if type(t) is Zero:
    out = reduce_prod_p.bind(x, axes=axes)
    return out, Zero(tangent_aval(get_aval(out)))
  aval = get_aval(x)
  kept = tuple(i for i in range(aval.ndim) if i not in axes)
  n = math.prod([aval.shape[a] for a in axes])
  kept_shape = tuple(aval.shape[i] for i in kept)
  perm = tuple(axes) + kept
  xs = shapes.reshape(x, (n,) + kept_shape, perm)
  ts = shapes.reshape(ad.instantiate(t), (n,) + kept_shape, perm)
  one = np.ones((), aval.dtype)

  def tree(v):
    while get_aval(v).shape[0] > 1:
      m = get_aval(v).shape[0]
      half = (m + 1) // 2
      first, second = shapes.slice_in_dim(v, 0, half), shapes.slice_in_dim(v, half, m)
      if m - half != half:
        second = shapes.pad(second, one, [(0, 1, 0)] + [(0, 0, 0)] * len(kept_shape))
      v = ew.mul(first, second)
    if get_aval(v).shape[0] == 0:
      return shapes.full(kept_shape, 1, aval.dtype)
    return shapes.squeeze(v, (0,))
  outs, out_tangents = ad.jvp_flat(lambda v: [tree(v)], [xs], [ts])
  return outs[0], out_tangents[0]


reduce_prod_p.jvp = _reduce_prod_jvp

_ordered = dtype_checker("int", "inexact", "bool")
reduce_max_p = _reduction("reduce_max", "max", _ordered)
reduce_min_p = _reduction("reduce_min", "min", _ordered)


def _logical(name, dtype):
  if not (dtype == np.bool_ or dtypes.is_integer(dtype)):
    raise TypeError(f"logical reduction requires operand dtype bool or int, got {dtype}.")


reduce_and_p = _reduction("reduce_and", "and", _logical)
reduce_or_p = _reduction("reduce_or", "or", _logical)
reduce_xor_p = _reduction("reduce_xor", "xor", _logical)


def _reduce_sum_transpose(ct, x, *, axes, out_sharding=None):
  if type(ct) is Zero:
    return [Zero(x.aval)]
  shape = x.aval.shape
  kept = tuple(np.delete(np.arange(len(shape)), axes))  # (NumPy integers, as JAX's rule)
  return [shapes.broadcast_in_dim(ct, shape, kept, out_sharding=x.aval._sharding)]


ad.deflinear(reduce_sum_p, _reduce_sum_transpose)
for _p in (reduce_and_p, reduce_or_p, reduce_xor_p):
  ad.zero_jvp(_p)


def _chooser_jvp(prim):
  """Gradient of max/min reductions: split equally among the tied locations (as JAX)."""
  def jvp(primals, tangents, *, axes, out_sharding=None):
    (x,), (t,) = primals, tangents
    out = prim.bind(x, axes=axes)
    if type(t) is Zero:
      return out, Zero(tangent_aval(get_aval(out)))
    shape = [1 if i in axes else d for i, d in enumerate(get_aval(x).shape)]
    location = ew.eq(x, shapes.reshape(out, shape))  # (size-1 axes broadcast, as JAX)
    mask = ew.convert_element_type(location, get_aval(t).dtype)
    counts = reduce_sum(mask, axes)
    return out, ew.div(reduce_sum(ew.mul(t, mask), axes), counts)
  return jvp


reduce_max_p.jvp = _chooser_jvp(reduce_max_p)
reduce_min_p.jvp = _chooser_jvp(reduce_min_p)


def _axes(operand, axes) -> tuple:
  """``axes`` as ints; lax is strict (as JAX): negative axes are out of bounds too."""
  aval = get_aval(operand)
  axes = tuple(int(a) for a in axes)
  if not all(0 <= a < aval.ndim for a in axes):
    raise ValueError(f"reduction axes {axes} contains out-of-bounds indices for "
                     f"{aval.str_short(False)}.")
  return axes


def reduce_sum(operand, axes: Sequence[int], *, out_sharding=None):
  return reduce_sum_p.bind(operand, axes=_axes(operand, axes),
                           out_sharding=out_sharding_param(out_sharding))


def reduce_prod(operand, axes: Sequence[int]):
  return reduce_prod_p.bind(operand, axes=_axes(operand, axes))


def reduce_max(operand, axes: Sequence[int]):
  return reduce_max_p.bind(operand, axes=_axes(operand, axes))


def reduce_min(operand, axes: Sequence[int]):
  return reduce_min_p.bind(operand, axes=_axes(operand, axes))


def reduce_and(operand, axes: Sequence[int]):
  return reduce_and_p.bind(operand, axes=_axes(operand, axes))


def reduce_or(operand, axes: Sequence[int]):
  return reduce_or_p.bind(operand, axes=_axes(operand, axes))


def reduce_xor(operand, axes: Sequence[int]):
  return reduce_xor_p.bind(operand, axes=_axes(operand, axes))


# ---------------------------------------------------------------------------------------
# argmax / argmin: a variadic reduce over (value, index); NaN wins, first index on ties.

def _arg_abstract_eval(name):
  def rule(x, *, axes, index_dtype):
    if not dtypes.is_integer(index_dtype):
      raise TypeError(f"{name} index_dtype must be an integer type, got {index_dtype}")
    if len(axes) != 1:
      raise ValueError(f"{name} takes exactly one axis, got {axes}")
    if not 0 <= axes[0] < x.ndim:
      raise ValueError(f"Invalid axis {axes[0]} for operand shape {x.shape}")
    if x.shape[axes[0]] == 0:
      raise ValueError(f"{name} of an empty dimension: axis {axes[0]} of shape {x.shape} "
                       "has size 0.")
    if dtypes.is_complex(x.dtype):  # (JAX's error: its comparison refuses the operand)
      raise TypeError(f"{'gt' if name == 'argmax' else 'lt'} does not accept dtype "
                      f"{x.dtype.name} at position 0. Accepted dtypes at position 0 are "
                      "subtypes of integer, floating, bool.")
    return ShapedArray(_reduced_shape(name, x, axes), index_dtype, False)
  return rule


def _arg_lowering(is_max):
  def lower(ctx, x, *, axes, index_dtype):
    x_aval = ctx.avals_in[0]
    out = ctx.avals_out[0]
    axis = axes[0]
    idx_aval = ShapedArray(x_aval.shape, index_dtype)
    idx = ctx.op("stablehlo.iota", [], idx_aval, {"iota_dimension": f"{axis} : i64"},
                 in_avals=[])
    vs = ShapedArray((), x_aval.dtype)
    is_ = ShapedArray((), index_dtype)
    init_v = ctx.constant(_identity("max" if is_max else "min", x_aval.dtype), vs)
    init_i = ctx.constant(np.zeros((), index_dtype), is_)
    b = ShapedArray((), np.bool_)

    def cmp(sub, a, c, direction, dtype=x_aval.dtype, aval=vs):
      return sub.op("stablehlo.compare", [a, c], b, compare_attributes(direction, dtype),
                    in_avals=[aval, aval])

    def body(sub, accs, xs):
      # JAX's reducer, op for op (XLA may share it with a max/min of the same operand, so
      # the value it keeps matters too): the first value wins when it compares greater
      # (less) or is NaN; the first index also wins a tie of equal values.
      av, ai = accs
      xv, xi = xs
      pick_v = sub.op("stablehlo.or", [cmp(sub, av, xv, "GT" if is_max else "LT"),
                                       cmp(sub, av, av, "NE")], b)
      tie = sub.op("stablehlo.and", [cmp(sub, av, xv, "EQ"),
                                     cmp(sub, ai, xi, "LT", index_dtype, is_)], b)
      pick_i = sub.op("stablehlo.or", [pick_v, tie], b)
      v = sub.op("stablehlo.select", [pick_v, av, xv], vs, in_avals=[b, vs, vs])
      i = sub.op("stablehlo.select", [pick_i, ai, xi], is_, in_avals=[b, is_, is_])
      return [v, i]

    outs = lower_reduce(ctx, [x, idx], [init_v, init_i], axes, body,
                        [ShapedArray(out.shape, x_aval.dtype), out])
    return outs[1]
  return lower


def _arg_batch(prim):
  def rule(axis, args, dims, *, axes, index_dtype):
    (x,), (d,) = args, dims
    # (NumPy integers, as JAX's rule makes them: its jaxprs print them so)
    new_axes = tuple(np.where(np.less(axes, d), axes, np.add(axes, 1))) if axes else ()
    out_dim = d - sum(a < d for a in axes)
    return prim.bind(x, axes=new_axes, index_dtype=index_dtype), out_dim
  return rule


def _arg_host(np_arg):
  """The host kernel of argmax/argmin: NumPy's picks the first of equal values and the first
  NaN, as XLA's comparisons do (found by testing, signed zeros and NaNs included)."""
  def rule(avals, out_avals, *, axes, index_dtype):
    axis = axes[0]  # (never empty: the shape rule refuses that)
    return lambda x: np_arg(x, axis=axis).astype(index_dtype)
  return rule


argmax_p = standard_primitive("argmax", _arg_abstract_eval("argmax"), _arg_lowering(True))
argmin_p = standard_primitive("argmin", _arg_abstract_eval("argmin"), _arg_lowering(False))
for _p, _np_arg in ((argmax_p, np.argmax), (argmin_p, np.argmin)):
  _p.batch = _arg_batch(_p)
  _p.sharding_rule = reduced_sharding_rule
  _p.host_kernel = _arg_host(_np_arg)
  ad.zero_jvp(_p)


def argmax(operand, axis: int, index_dtype):
  dt = dtypes.canonicalize_dtype(dtypes.dtype(index_dtype))
  return argmax_p.bind(operand, axes=(int(axis),), index_dtype=dt)


def argmin(operand, axis: int, index_dtype):
  dt = dtypes.canonicalize_dtype(dtypes.dtype(index_dtype))
  return argmin_p.bind(operand, axes=(int(axis),), index_dtype=dt)
