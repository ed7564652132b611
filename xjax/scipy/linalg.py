"""SciPy's linear algebra on xjax arrays (``jax.scipy.linalg``)."""
from xjax._src.scipy.linalg import (cho_factor, cho_solve, cholesky, det, eigh,  # noqa: F401
                                    expm, expm_frechet, funm, hessenberg, inv, lu, lu_factor,
                                    lu_solve, polar, qr, qr_multiply, rsf2csf, schur, solve,
                                    solve_sylvester, solve_triangular, sqrtm, svd)
from xjax._src.scipy.special_matrices import (block_diag, circulant, companion,  # noqa: F401
                                              convolution_matrix, dft, fiedler,
                                              fiedler_companion, hadamard, hankel, helmert,
                                              hilbert, invhilbert, invpascal, leslie, pascal,
                                              toeplitz)
from xjax._src.scipy.eigh_tridiagonal import eigh_tridiagonal  # noqa: F401
