"""Matrix-free iterative solvers (``jax.scipy.sparse.linalg``)."""
from xjax._src.libraries.scipy.sparse.krylov import bicgstab, cg, gmres  # noqa: F401
