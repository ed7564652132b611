"""Synchronising and exchanging values across processes
(``jax.experimental.multihost_utils``)."""
from xjax._src.libraries.multihost_utils import (P, ProcessFailureError, assert_equal,  # noqa: F401
                                                 broadcast_one_to_all,
                                                 global_array_to_host_local_array,
                                                 global_array_to_host_local_array_impl,
                                                 global_array_to_host_local_array_p,
                                                 gtl_abstract_eval,
                                                 host_local_array_to_global_array,
                                                 host_local_array_to_global_array_impl,
                                                 host_local_array_to_global_array_p, live_devices,
                                                 ltg_abstract_eval, ltg_batcher, process_allgather,
                                                 reached_preemption_sync_point, sync_global_devices,
                                                 tree_flatten, tree_unflatten)
