"""Sparse arrays (``jax.experimental.sparse``): the BCOO format's basics."""
from xjax._src.libraries.sparse_bcoo import (  # noqa: F401
    BCOO as BCOO,
    bcoo_fromdense as bcoo_fromdense,
    bcoo_todense as bcoo_todense,
    todense as todense,
)
