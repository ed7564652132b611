"""``jax.experimental.sparse.bcsr``: the batched compressed-sparse-row format."""
from xjax._src.libraries.sparse.bcsr import (BCSR, bcsr_broadcast_in_dim,  # noqa: F401
                                             bcsr_concatenate, bcsr_dot_general,
                                             bcsr_dot_general_p, bcsr_extract, bcsr_extract_p,
                                             bcsr_fromdense, bcsr_fromdense_p,
                                             bcsr_sum_duplicates, bcsr_todense, bcsr_todense_p)

__all__ = ["BCSR", "bcsr_broadcast_in_dim", "bcsr_concatenate", "bcsr_dot_general",
           "bcsr_dot_general_p", "bcsr_extract", "bcsr_extract_p", "bcsr_fromdense",
           "bcsr_fromdense_p", "bcsr_sum_duplicates", "bcsr_todense", "bcsr_todense_p"]
