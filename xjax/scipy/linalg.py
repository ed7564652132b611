"""SciPy's linear algebra on xjax arrays (``jax.scipy.linalg``)."""
from xjax._src.scipy.linalg import (block_diag, cho_factor, cho_solve, cholesky,  # noqa: F401
                                    det, eigh, expm, expm_frechet, funm, hessenberg, hilbert,
                                    inv, lu, lu_factor, lu_solve, polar, qr, schur, solve,
                                    solve_triangular, sqrtm, svd, toeplitz)
