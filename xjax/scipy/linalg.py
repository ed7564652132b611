"""SciPy's linear algebra on xjax arrays (``jax.scipy.linalg``)."""
from xjax._src.libraries.scipy.linalg import (cho_factor, cho_solve, cholesky, det,  # noqa: F401
                                              eigh, expm, expm_frechet, funm, hessenberg, inv, lu,
                                              lu_factor, lu_solve, polar, qr, qr_multiply, rsf2csf,
                                              schur, solve, solve_sylvester, solve_triangular,
                                              sqrtm, svd)
from xjax._src.libraries.scipy.special_matrices import (block_diag, circulant,  # noqa: F401
                                                        companion, convolution_matrix, dft, fiedler,
                                                        fiedler_companion, hadamard, hankel,
                                                        helmert, hilbert, invhilbert, invpascal,
                                                        leslie, pascal, toeplitz)
from xjax._src.libraries.scipy.eigh_tridiagonal import eigh_tridiagonal  # noqa: F401
