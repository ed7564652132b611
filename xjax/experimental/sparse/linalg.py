"""``jax.experimental.sparse.linalg``: not available in xjax (see docs/differences.md)."""


def spsolve(data, indices, indptr, b, tol=1e-6, reorder=1):
  raise NotImplementedError("sparse.linalg.spsolve is not implemented in xjax (JAX runs it "
                            "through cuSOLVER or a SciPy host callback)")


def lobpcg_standard(A, X, m=100, tol=None):
  raise NotImplementedError("sparse.linalg.lobpcg_standard is not implemented in xjax")
