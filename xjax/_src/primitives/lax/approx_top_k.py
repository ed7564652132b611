"""``approx_max_k`` / ``approx_min_k``: the ``k`` largest (smallest) values of a floating
array along one dimension and their indices, through XLA's ``ApproxTopK`` custom call (as
JAX; on CPU XLA computes it with a sort). With ``aggregate_to_topk=False`` the results are
XLA's unaggregated candidates, more than ``k`` of them and unsorted."""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.backend import lowering, mlir_modules
from xjax._src.backend.lowering import compare_attributes, element_type, tensor_type
from xjax._src.foundations.sharding import ShardingTypeError
from xjax._src.core.avals import ShapedArray, spec_of, tangent_aval
from xjax._src.core.values import get_aval
from xjax._src.interpreters.ad import Zero
from xjax._src.primitives.lax.sorting import permute_along
from xjax._src.primitives.lax.primitive_builders import standard_primitive

_I32 = ShapedArray((), np.int32)


def _abstract_eval(x, *, k, reduction_dimension, recall_target, is_max_k,
                   reduction_input_size_override, aggregate_to_topk):
  if k <= 0:
    raise ValueError(f"k must be positive, got {k}")
  if x.ndim == 0:
    raise TypeError(f"approx_top_k operand must have >= 1 dimension, got {x.shape}")
  if not -x.ndim <= reduction_dimension < x.ndim:
    raise ValueError(f"approx_top_k: reduction_dimension {reduction_dimension} is out of "
                     f"bounds for an operand of rank {x.ndim}")
  dims = list(x.shape)
  size = dims[reduction_dimension]
  if size < k:
    raise ValueError(f"k must be smaller than the size of reduction_dim {size}, got {k}")
  if not dtypes.is_float(x.dtype):
    raise ValueError("operand must be a floating type")
  if not 0 < recall_target <= 1:
    raise ValueError(f"approx_top_k: recall_target must be in (0, 1], got {recall_target}")
  dims[reduction_dimension] = k if aggregate_to_topk else mlir_modules.approx_top_k_output_size(
      size, len(dims), k, recall_target, reduction_input_size_override)
  return [ShapedArray(dims, x.dtype, x.weak_type), ShapedArray(dims, np.int32)]


def _comparator(ctx, dtype, is_max_k) -> str:
  """The module's comparator function of (value, value, index, index) pairs."""
  table = ctx.module.__dict__.setdefault("_approx_top_k_comparators", {})
  key = (np.dtype(dtype), is_max_k)
  if key not in table:
    direction = "GT" if is_max_k else "LT"
    name = lowering._unique(f"top_k_{direction.lower()}_{element_type(dtype)}_comparator",
                            ctx.module._taken)
    t = tensor_type(ShapedArray((), dtype))
    attrs = compare_attributes(direction)
    cmp_attrs = ", ".join(f"{k} = {v}" for k, v in attrs.items())
    ctx.module.functions.append(
        f"  func.func private @{name}(%a: {t}, %b: {t}, %i: tensor<i32>, %j: tensor<i32>) "
        "-> tensor<i1> {\n"
        f'    %0 = "stablehlo.compare"(%a, %b) {{{cmp_attrs}}} : ({t}, {t}) -> tensor<i1>\n'
        '    "stablehlo.return"(%0) : (tensor<i1>) -> ()\n  }')
    table[key] = name
  return table[key]


def _lowering(ctx, x, *, k, reduction_dimension, recall_target, is_max_k,
              reduction_input_size_override, aggregate_to_topk):
  aval = ctx.avals_in[0]
  dim = reduction_dimension % aval.ndim
  iota = ctx.op("stablehlo.iota", [], aval.update(dtype=np.int32),
                {"iota_dimension": f"{dim} : i64"}, in_avals=[])
  worst = np.array(-np.inf if is_max_k else np.inf, aval.dtype)
  init = ctx.constant(worst, ShapedArray((), aval.dtype))
  no_index = ctx.constant(np.array(-1, np.int32), _I32)
  config = (f"{{aggregate_to_topk = {str(bool(aggregate_to_topk)).lower()}, "
            f"is_fallback = true, recall_target = {float(recall_target)!r} : f32, "
            f"reduction_dim = {dim} : i64, "
            f"reduction_input_size_override = {int(reduction_input_size_override)} : i64, "
            f"top_k = {int(k)} : i64}}")
  attrs = {"call_target_name": '"ApproxTopK"', "backend_config": '""',
           "called_computations": f"[@{_comparator(ctx, aval.dtype, is_max_k)}]",
           "mhlo.backend_config": config}
  return ctx.op("stablehlo.custom_call", [x, iota, init, no_index], list(ctx.avals_out), attrs)


def _jvp(primals, tangents, **params):
  (x,), (t,) = primals, tangents
  vals, idx = approx_top_k_p.bind(x, **params)
  dim = params["reduction_dimension"] % get_aval(x).ndim
  out_t = Zero(tangent_aval(get_aval(vals))) if type(t) is Zero else permute_along(t, idx, dim)
  return [vals, idx], [out_t, Zero(tangent_aval(get_aval(idx)))]


def _batch(axis, args, dims, *, reduction_dimension, **params):
  (x,), (d,) = args, dims
  others = [i for i in range(get_aval(x).ndim) if i != d]
  outs = approx_top_k_p.bind(x, reduction_dimension=others[reduction_dimension], **params)
  return outs, [d, d]


approx_top_k_p = standard_primitive("approx_top_k", _abstract_eval, _lowering,
                                    multiple_results=True)
approx_top_k_p.jvp = _jvp


def _sharding_rule(x, *, reduction_dimension, **params):
  """Both results split as the operand, which must not be split along the reduction."""
  if spec_of(x)[reduction_dimension] is not None:
    raise ShardingTypeError(
        f"reduction dimension {reduction_dimension} in operand {x.str_short()} should be "
        "unsharded i.e. the spec of that dim should be `None`.")
  return [x._sharding, x._sharding]


approx_top_k_p.sharding_rule = _sharding_rule
approx_top_k_p.batch = _batch


def _bind(operand, k, reduction_dimension, recall_target, is_max_k,
          reduction_input_size_override, aggregate_to_topk):
  return list(approx_top_k_p.bind(
      operand, k=int(k), reduction_dimension=int(reduction_dimension),
      recall_target=float(recall_target), is_max_k=is_max_k,
      reduction_input_size_override=int(reduction_input_size_override),
      aggregate_to_topk=bool(aggregate_to_topk)))


def approx_max_k(operand, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True):
  """The ``k`` largest values along ``reduction_dimension`` and their indices."""
  return _bind(operand, k, reduction_dimension, recall_target, True,
               reduction_input_size_override, aggregate_to_topk)


def approx_min_k(operand, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True):
  """The ``k`` smallest values along ``reduction_dimension`` and their indices."""
  return _bind(operand, k, reduction_dimension, recall_target, False,
               reduction_input_size_override, aggregate_to_topk)
