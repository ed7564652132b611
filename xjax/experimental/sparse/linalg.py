"""``jax.experimental.sparse.linalg``: ``spsolve`` (see xjax/_src/libraries/sparse/linalg.py);
``lobpcg_standard`` is not available in xjax (see docs/differences.md)."""
from xjax._src.libraries.sparse.linalg import spsolve, spsolve_p  # noqa: F401


def lobpcg_standard(A, X, m=100, tol=None):
  raise NotImplementedError("sparse.linalg.lobpcg_standard is not implemented in xjax")
