"""``jax.experimental.sparse.bcsr``: the compressed-sparse-row format (2-d)."""
from xjax._src.libraries.sparse.bcsr import (BCSR, bcsr_dot_general,  # noqa: F401
                                             bcsr_fromdense, bcsr_todense)

__all__ = ["BCSR", "bcsr_dot_general", "bcsr_fromdense", "bcsr_todense"]
