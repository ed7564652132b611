"""Matrix-free iterative solvers (``jax.scipy.sparse.linalg``)."""
from xjax._src.scipy.sparse.krylov import bicgstab, cg, gmres  # noqa: F401
