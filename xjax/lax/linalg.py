"""Linear-algebra primitives on xjax arrays (``jax.lax.linalg``)."""
from xjax._src.lax.linalg import (cholesky, cholesky_p, eigh, eigh_p,  # noqa: F401
                                  householder_product, householder_product_p, lu, lu_p,
                                  lu_pivots_to_permutation, lu_pivots_to_permutation_p, qr,
                                  qr_p, svd, svd_p, triangular_solve, triangular_solve_p)
