"""The ``xjax.lax`` namespace: strict, explicit operations over the primitives."""
from __future__ import annotations

from xjax._src.core.values import get_aval
from xjax._src.lax.cumulative import cumlogsumexp, cummax, cummin, cumprod, cumsum
from xjax._src.lax.dot import (DotDimensionNumbers, Precision, batch_matmul, dot,  # noqa: F401
                              dot_general, dot_general_p)
from xjax._src.lax.bit_conversions import bitcast_convert_type, reduce_precision
from xjax._src.lax.general_reduce import reduce
from xjax._src.lax.sorting import approx_max_k, approx_min_k, sort, sort_key_val, top_k  # noqa: F401
from xjax._src.lax.windowed import (ConvDimensionNumbers,  # noqa: F401
                                    ConvGeneralDilatedDimensionNumbers, conv,
                                    conv_dimension_numbers, conv_general_dilated,
                                    conv_general_dilated_patches, conv_general_shape_tuple,
                                    conv_shape_tuple, conv_transpose, conv_transpose_shape_tuple,
                                    conv_with_general_padding, padtype_to_pads, reduce_window,
                                    reduce_window_shape_tuple)
from xjax._src.lax.control_flow import (associative_scan, cond, fori_loop, map, scan, switch,
                                      while_loop)
from xjax._src.lax.elementwise import *  # noqa: F401,F403  (the elementwise functions)
from xjax._src.lax.elementwise import convert_element_type, select_n
from xjax._src.lax.gather_scatter import (GatherDimensionNumbers, GatherScatterMode,  # noqa: F401
                                          ScatterDimensionNumbers, gather, scatter,
                                          index_take, scatter_add, scatter_apply, scatter_max,
                                          scatter_min, scatter_mul, scatter_sub)
from xjax._src.lax.parallel import (all_gather, axis_index, axis_size, pmax, pmean,  # noqa: F401
                                    pmin, ppermute, psum)
from xjax._src.lax.reductions import (argmax, argmin, reduce_and, reduce_max, reduce_min,
                                      reduce_or, reduce_prod, reduce_sum, reduce_xor)
from xjax._src.lax.primitives import *  # noqa: F401,F403  (the *_p primitive objects)
from xjax._src.lax.optimization_barrier import optimization_barrier  # noqa: F401
from xjax._src.lax.single_device import composite, platform_dependent, with_sharding_constraint  # noqa: F401
from xjax._src.lax.special import (betainc, igamma, igamma_grad_a,  # noqa: F401
                                   igamma_grad_a_p, igamma_p, igammac, igammac_p,
                                   random_gamma_grad, regularized_incomplete_beta_p, zeta,
                                   zeta_p)
from xjax._src.lax.linear_solve import custom_linear_solve, custom_root, linear_solve_p  # noqa: F401
from xjax._src.lax.shapes import (broadcast, broadcast_in_dim, broadcast_like,  # noqa: F401
                                  broadcast_shapes, broadcast_to_rank, broadcasted_iota,
                                  collapse, concatenate, dynamic_index_in_dim, dynamic_slice,
                                  dynamic_slice_in_dim, dynamic_update_index_in_dim,
                                  dynamic_update_slice, dynamic_update_slice_in_dim, empty,
                                  expand_dims, full, index_in_dim, iota, pad, reshape, rev,
                                  shape_as_value, slice, slice_in_dim, split, squeeze, stack,
                                  tile, transpose, unstack)


def full_like(x, fill_value, dtype=None, shape=None, sharding=None):
  aval = get_aval(x)
  dtype = aval.dtype if dtype is None else dtype
  out = full(aval.shape if shape is None else shape, fill_value, dtype)
  if dtype is aval.dtype and aval.weak_type:
    out = convert_element_type(out, aval.dtype, weak_type=True)
  return out


def zeros_like_array(x):
  return full_like(x, 0)


def stop_gradient(x):
  """The identity whose derivative is zero (pytrees allowed)."""
  from xjax._src import tree_util
  from xjax._src.lax.autodiff_helpers import stop_gradient_leaf
  return tree_util.tree_map(stop_gradient_leaf, x)
