"""``jax.experimental.sparse.coo``: the 2-d coordinate format."""
from xjax._src.libraries.sparse.coo import (COO, COOInfo, coo_fromdense,  # noqa: F401
                                            coo_fromdense_p, coo_matmat, coo_matmat_p,
                                            coo_matvec, coo_matvec_p, coo_todense,
                                            coo_todense_p)
