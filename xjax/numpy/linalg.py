"""NumPy's linear algebra on xjax arrays (``jax.numpy.linalg``)."""
from xjax._src.libraries.numpy.linalg import (cholesky, cond, cross, det, diagonal,  # noqa: F401
                                              eig, eigh, eigvals, eigvalsh, inv, lstsq, matmul,
                                              matrix_norm, matrix_power, matrix_rank,
                                              matrix_transpose, multi_dot, norm, outer, pinv, qr,
                                              slogdet, solve, svd, svdvals, tensordot, tensorinv,
                                              tensorsolve, trace, vecdot, vector_norm)
