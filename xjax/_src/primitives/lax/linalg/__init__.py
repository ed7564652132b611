"""Linear-algebra primitives (``xjax.lax.linalg``): factorizations and triangular solves."""
from xjax._src.primitives.lax.linalg.cholesky import (cholesky, cholesky_p,  # noqa: F401
                                                      cholesky_update, cholesky_update_p)
from xjax._src.primitives.lax.linalg.eig import EigImplementation, eig, eig_p  # noqa: F401
from xjax._src.primitives.lax.linalg.eigh import EighImplementation, eigh, eigh_p  # noqa: F401
from xjax._src.primitives.lax.linalg.lu import (lu, lu_p, lu_pivots_to_permutation,  # noqa: F401
                                                lu_pivots_to_permutation_p)
from xjax._src.primitives.lax.linalg.qr import (geqp3, geqp3_p, geqrf, geqrf_p,  # noqa: F401
                                                householder_product, householder_product_p, ormqr,
                                                ormqr_p, qr, qr_p)
from xjax._src.primitives.lax.linalg.schur import (hessenberg, hessenberg_p, schur,  # noqa: F401
                                                   schur_p)
from xjax._src.primitives.lax.linalg.svd import SvdAlgorithm, svd, svd_p  # noqa: F401
from xjax._src.primitives.lax.linalg.symmetric_product import (symmetric_product,  # noqa: F401
                                                               symmetric_product_p)
from xjax._src.primitives.lax.linalg.tridiagonal import (tridiagonal, tridiagonal_p,  # noqa: F401
                                                         tridiagonal_solve, tridiagonal_solve_p)
from xjax._src.primitives.lax.linalg.triangular_solve import (triangular_solve,  # noqa: F401
                                                              triangular_solve_p)
