"""Linear-algebra primitives on xjax arrays (``jax.lax.linalg``)."""
from xjax._src.primitives.lax.linalg import (EigImplementation, EighImplementation,  # noqa: F401
                                             SvdAlgorithm, cholesky, cholesky_p, cholesky_update,
                                             cholesky_update_p, eig, eig_p, eigh, eigh_p,
                                             hessenberg, hessenberg_p, householder_product,
                                             householder_product_p, lu, lu_p,
                                             lu_pivots_to_permutation, lu_pivots_to_permutation_p,
                                             ormqr, ormqr_p, qr, qr_p, schur, schur_p, svd, svd_p,
                                             symmetric_product, symmetric_product_p,
                                             triangular_solve, triangular_solve_p, tridiagonal,
                                             tridiagonal_p, tridiagonal_solve, tridiagonal_solve_p)
from xjax._src.libraries.scipy.qdwh import qdwh  # noqa: F401
