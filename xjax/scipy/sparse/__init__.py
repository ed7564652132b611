"""Sparse linear algebra (``jax.scipy.sparse``): matrix-free Krylov solvers."""
from xjax.scipy.sparse import linalg  # noqa: F401
