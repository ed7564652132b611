"""``scaled_dot``: ``(lhs * lhs_scale) @ (rhs * rhs_scale)`` (a dot_general), each scale
element covering a block of consecutive entries along the contracting dimensions (block
scaling of narrow floats, e.g. float8 values with float8_e8m0fnu scales). As JAX on CPU:
operands and scales are converted to bfloat16 and multiplied, then contracted in
``preferred_element_type`` (bfloat16 by default). Not differentiable, as in JAX."""
from __future__ import annotations

import ml_dtypes
import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.avals import ShapedArray
from xjax._src.core.values import get_aval
from xjax._src.interpreters import batching
from xjax._src.primitives.lax import dot, elementwise as ew, shapes
from xjax._src.primitives.lax.primitive_builders import lowering_from, standard_primitive

_BF16 = np.dtype(dtypes.bfloat16)


def _check_scale(side, operand, scale, contracting):
  for i, size in enumerate(operand.shape):
    if i in contracting:
      if size % scale.shape[i]:
        raise TypeError(f"{side} contracting dim {i} of size {size} must be divisible by its "
                        f"scale's dim size {scale.shape[i]}.")
      if size // scale.shape[i] < 2:
        raise TypeError(f"The ratio of {side} contracting dim {i} to its scale's dim size "
                        f"({size // scale.shape[i]}) must be at least 2.")
    elif scale.shape[i] != size:
      raise TypeError(f"{side} dim {i} of size {size} does not match scale dim size "
                      f"{scale.shape[i]}.")


def _abstract_eval(lhs, rhs, lhs_scale, rhs_scale, *, dimension_numbers,
                   preferred_element_type):
  (lc, rc), (lb, rb) = dimension_numbers
  if len({lhs.ndim, rhs.ndim, lhs_scale.ndim, rhs_scale.ndim}) != 1:
    raise TypeError(f"All input tensors must have the same rank. Got lhs rank: {lhs.ndim} "
                    f"rhs rank: {rhs.ndim} lhs_scale rank: {lhs_scale.ndim} rhs_scale rank: "
                    f"{rhs_scale.ndim}.")
  if len(lb) != len(rb) or len(lc) != len(rc):
    raise TypeError("LHS and RHS must have the same numbers of batch and contracting "
                    f"dimensions, got {dimension_numbers}.")
  for i, j in zip(lb, rb):
    if len({lhs.shape[i], rhs.shape[j], lhs_scale.shape[i], rhs_scale.shape[j]}) != 1:
      raise TypeError("All input tensors must have the same batch dimension size for batch "
                      f"dims ({i}, {j}).")
  for i, j in zip(lc, rc):
    if lhs.shape[i] != rhs.shape[j]:
      raise TypeError(f"LHS contracting dim {i} of size {lhs.shape[i]} does not match RHS "
                      f"contracting dim {j} of size {rhs.shape[j]}.")
  _check_scale("LHS", lhs, lhs_scale, lc)
  _check_scale("RHS", rhs, rhs_scale, rc)
  kept = lambda a, c, b: [a.shape[i] for i in range(a.ndim) if i not in c and i not in b]
  shape = [lhs.shape[i] for i in lb] + kept(lhs, lc, lb) + kept(rhs, rc, rb)
  return ShapedArray(shape, preferred_element_type)


def _expanded(scale, shape, contracting):
  """``scale`` repeated along each contracting dimension to the operand's ``shape``."""
  for i in contracting:
    s = get_aval(scale).shape
    if s[i] != shape[i]:
      wide = s[:i + 1] + (shape[i] // s[i],) + s[i + 1:]
      dims = tuple(d for d in range(len(wide)) if d != i + 1)
      scale = shapes.reshape(shapes.broadcast_in_dim(scale, wide, dims),
                             s[:i] + (shape[i],) + s[i + 1:])
  return scale


def _scaled(x, scale, contracting):
  scale = _expanded(scale, get_aval(x).shape, contracting)
  return ew.mul(ew.convert_element_type(x, _BF16), ew.convert_element_type(scale, _BF16))


def _impl(lhs, rhs, lhs_scale, rhs_scale, *, dimension_numbers, preferred_element_type):
  (lc, rc), _ = dimension_numbers
  return dot.dot_general_p.bind(
      _scaled(lhs, lhs_scale, lc), _scaled(rhs, rhs_scale, rc),
      dimension_numbers=dot._canon(dimension_numbers), precision=None,
      preferred_element_type=preferred_element_type, out_sharding=None)


def _batch(axis, args, dims, *, dimension_numbers, preferred_element_type):
  args = [batching.bdim_to_front(x, d, axis.size) for x, d in zip(args, dims)]
  (lc, rc), (lb, rb) = dimension_numbers
  inc = lambda ds: tuple(d + 1 for d in ds)
  dn = ((inc(lc), inc(rc)), ((0,) + inc(lb), (0,) + inc(rb)))
  return scaled_dot_p.bind(*args, dimension_numbers=dn,
                           preferred_element_type=preferred_element_type), 0


scaled_dot_p = standard_primitive("scaled_dot", _abstract_eval, lowering_from(_impl))
scaled_dot_p.batch = _batch


def _unit_scale(operand, contracting):
  shape = tuple(1 if i in contracting else d for i, d in enumerate(get_aval(operand).shape))
  return np.ones(shape, ml_dtypes.float8_e8m0fnu)


def scaled_dot(lhs, rhs, *, lhs_scale=None, rhs_scale=None, dimension_numbers=None,
               preferred_element_type=None):
  """``dot_general(lhs * lhs_scale, rhs * rhs_scale)`` with block scales (see the module)."""
  if dimension_numbers is None:
    n = get_aval(lhs).ndim
    if n < 2:
      raise TypeError("scaled_dot does not support 0-rank and 1-rank operands.")
    dimension_numbers = (((n - 1,), (n - 2,)), (tuple(range(n - 2)), tuple(range(n - 2))))
  dimension_numbers = dot._canon(dimension_numbers)
  (lc, rc), _ = dimension_numbers
  lhs_scale = _unit_scale(lhs, lc) if lhs_scale is None else lhs_scale
  rhs_scale = _unit_scale(rhs, rc) if rhs_scale is None else rhs_scale
  out_type = dtypes.check_user_dtype_supported(
      _BF16 if preferred_element_type is None else preferred_element_type, "scaled_dot")
  return scaled_dot_p.bind(lhs, rhs, lhs_scale, rhs_scale,
                           dimension_numbers=dimension_numbers,
                           preferred_element_type=out_type)
