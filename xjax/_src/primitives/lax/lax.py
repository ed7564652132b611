"""The ``xjax.lax`` namespace: strict, explicit operations over the primitives."""
from xjax._src.primitives.lax.cumulative import cumlogsumexp, cummax, cummin, cumprod, cumsum
from xjax._src.primitives.lax.dot import (DotDimensionNumbers, Precision,  # noqa: F401
                                          batch_matmul, dot, dot_general, dot_general_p)
from xjax._src.primitives.lax.bit_conversions import bitcast_convert_type, reduce_precision
from xjax._src.primitives.lax.general_reduce import reduce
from xjax._src.primitives.lax.approx_top_k import approx_max_k, approx_min_k  # noqa: F401
from xjax._src.primitives.lax.sorting import sort, sort_key_val, top_k  # noqa: F401
from xjax._src.primitives.lax.windowed import (ConvDimensionNumbers,  # noqa: F401
                                               ConvGeneralDilatedDimensionNumbers, conv,
                                               conv_dimension_numbers, conv_general_dilated,
                                               conv_general_dilated_local,
                                               conv_general_dilated_patches,
                                               conv_general_permutations, conv_general_shape_tuple,
                                               conv_shape_tuple, conv_transpose,
                                               conv_transpose_shape_tuple,
                                               conv_with_general_padding, padtype_to_pads,
                                               reduce_window, reduce_window_shape_tuple)
from xjax._src.primitives.lax.control_flow.associative import associative_scan
from xjax._src.primitives.lax.control_flow.conditionals import cond, switch
from xjax._src.primitives.lax.control_flow.loops import fori_loop, map, scan, while_loop
from xjax._src.primitives.lax.elementwise import (abs, abs_p, acos, acos_p, acosh,  # noqa: F401
                                                  acosh_p, add, add_p, and_p, asin, asin_p, asinh,
                                                  asinh_p, atan, atan2, atan2_p, atan_p, atanh,
                                                  atanh_p, bitwise_and, bitwise_not,
                                                  bitwise_or, bitwise_xor, cbrt, cbrt_p, ceil,
                                                  ceil_p, clamp, clamp_p, clz, clz_p, complex,
                                                  complex_p, conj, conj_p, convert_element_type,
                                                  convert_element_type_p, copy_p, cos, cos_p, cosh,
                                                  cosh_p, digamma, digamma_p, div, div_p, dtype, eq,
                                                  eq_p, erf, erf_inv, erf_inv_p, erf_p, erfc,
                                                  erfc_p, exp, exp2, exp2_p, exp_p, expm1, expm1_p,
                                                  floor, floor_p, ge, ge_p, gt, gt_p, imag, imag_p,
                                                  integer_pow, integer_pow_p, is_finite,
                                                  is_finite_p, le, le_p, lgamma, lgamma_p, log,
                                                  log1p, log1p_p, log_p, logistic, logistic_p, lt,
                                                  lt_p, max, max_p, min, min_p, mul, mul_p, mulhi,
                                                  mulhi_p, ne, ne_p, neg, neg_p, nextafter,
                                                  nextafter_p, not_p, or_p, polygamma, polygamma_p,
                                                  population_count, population_count_p, pow, pow_p,
                                                  real, real_p, reciprocal, rem, rem_p, rsqrt,
                                                  rsqrt_p, select, select_n, select_n_p, shift_left,
                                                  shift_left_p, shift_right_arithmetic,
                                                  shift_right_arithmetic_p, shift_right_logical,
                                                  shift_right_logical_p, sign, sign_p, sin, sin_p,
                                                  sinh, sinh_p, sqrt, sqrt_p, square, square_p, sub,
                                                  sub_p, tan, tan_p, tanh, tanh_p, xor_p)
from xjax._src.primitives.lax.gather_scatter import (GatherDimensionNumbers,  # noqa: F401
                                                     GatherScatterMode, ScatterDimensionNumbers,
                                                     gather, scatter, index_take, scatter_add,
                                                     scatter_apply, scatter_max, scatter_min,
                                                     scatter_mul, scatter_sub)
from xjax._src.primitives.lax.parallel import (all_gather, all_to_all, axis_index,  # noqa: F401
                                               axis_size, pcast, pmax, pmean, pmin, ppermute,
                                               pshuffle, psum, psum_scatter, pswapaxes)
from xjax._src.primitives.lax.reductions import (argmax, argmin, reduce_and, reduce_max, reduce_min,
                                                 reduce_or, reduce_prod, reduce_sum, reduce_xor)
from xjax._src.primitives.lax.primitives import *  # noqa: F401,F403  (the *_p primitive objects)
from xjax._src.primitives.lax.optimization_barrier import optimization_barrier  # noqa: F401
from xjax._src.primitives.lax.single_device import composite, platform_dependent  # noqa: F401
from xjax._src.primitives.lax.sharding_constraint import with_sharding_constraint  # noqa: F401
from xjax._src.primitives.lax.special import (bessel_i0e, bessel_i0e_p,  # noqa: F401
                                              bessel_i1e, bessel_i1e_p, betainc, igamma,
                                              igamma_grad_a, igamma_grad_a_p, igamma_p, igammac,
                                              igammac_p,
                                              random_gamma_grad, regularized_incomplete_beta_p,
                                              zeta, zeta_p)
from xjax._src.primitives.lax.linear_solve import (custom_linear_solve, custom_root,  # noqa: F401
                                                   linear_solve_p)
from xjax._src.primitives.lax.stop_gradient import stop_gradient  # noqa: F401
from xjax._src.primitives.lax.shapes import (broadcast, broadcast_in_dim,  # noqa: F401
                                             broadcast_like, broadcast_to_rank,
                                             broadcasted_iota, collapse, concatenate,
                                             dynamic_index_in_dim, dynamic_slice,
                                             dynamic_slice_in_dim, dynamic_update_index_in_dim,
                                             dynamic_update_slice, dynamic_update_slice_in_dim,
                                             empty, expand_dims, full, full_like, index_in_dim,
                                             iota, pad, reshape, rev, shape_as_value, slice,
                                             slice_in_dim, squeeze, transpose)
from xjax._src.primitives.lax.shapes import split  # noqa: F401
from xjax._src.primitives.lax.shapes import (  # noqa: F401
    user_broadcast_shapes as broadcast_shapes)
from xjax._src.primitives.lax.stacking import stack, tile, unstack  # noqa: F401
