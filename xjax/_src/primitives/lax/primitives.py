"""The primitive objects, exported under JAX's ``lax.*_p`` names."""
from xjax._src.primitives.lax.approx_top_k import approx_top_k_p  # noqa: F401
from xjax._src.primitives.lax.control_flow.conditionals import cond_p  # noqa: F401
from xjax._src.primitives.lax.control_flow.loops import scan_p, while_p  # noqa: F401
from xjax._src.primitives.lax.device_put import device_put_p  # noqa: F401
from xjax._src.primitives.lax.cumulative import (cumlogsumexp_p, cummax_p, cummin_p,  # noqa: F401
                                                 cumprod_p, cumsum_p)
from xjax._src.primitives.lax.elementwise import (eq_to_p, le_to_p, lt_to_p, mulhi_p,  # noqa: F401
                                                  square_p)
from xjax._src.primitives.lax.bit_conversions import (bitcast_convert_type_p,  # noqa: F401
                                                      reduce_precision_p)
from xjax._src.primitives.lax.gather_scatter import (gather_p, scatter_add_p,  # noqa: F401
                                                     scatter_max_p, scatter_min_p, scatter_mul_p,
                                                     scatter_p, scatter_sub_p)
from xjax._src.primitives.lax.general_reduce import reduce_p  # noqa: F401
from xjax._src.primitives.lax.optimization_barrier import optimization_barrier_p  # noqa: F401
from xjax._src.primitives.lax.parallel import (all_gather_p, all_to_all_p,  # noqa: F401
                                               axis_index_p, pmax_p, pmin_p, ppermute_p, psum_p)
from xjax._src.primitives.lax.reductions import (argmax_p, argmin_p, reduce_and_p,  # noqa: F401
                                                 reduce_max_p, reduce_min_p, reduce_or_p,
                                                 reduce_prod_p, reduce_sum_p, reduce_xor_p)
from xjax._src.primitives.lax.rounding import round_p  # noqa: F401
from xjax._src.primitives.lax.shapes import (broadcast_in_dim_p, concatenate_p,  # noqa: F401
                                             dynamic_slice_p, dynamic_update_slice_p, iota_p, pad_p,
                                             reshape_p, rev_p, slice_p, squeeze_p, transpose_p)
from xjax._src.primitives.lax.select_and_scatter import (select_and_gather_add_p,  # noqa: F401
                                                         select_and_scatter_add_p,
                                                         select_and_scatter_p)
from xjax._src.primitives.lax.sharding_constraint import sharding_constraint_p  # noqa: F401
from xjax._src.primitives.lax.sorting import sort_p, top_k_p  # noqa: F401
from xjax._src.primitives.lax.shapes import split_p  # noqa: F401
from xjax._src.primitives.lax.stacking import stack_p, tile_p, unstack_p  # noqa: F401
from xjax._src.primitives.lax.windowed import (conv_general_dilated_p,  # noqa: F401
                                               reduce_window_max_p, reduce_window_min_p,
                                               reduce_window_p, reduce_window_sum_p)
from xjax._src.primitives.lax.trace_markers import dce_sink_p, stage_p  # noqa: F401
