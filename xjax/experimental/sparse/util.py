"""``jax.experimental.sparse.util``: the base class and efficiency errors and warnings."""
from xjax._src.libraries.sparse.sparse_array import (CuSparseEfficiencyWarning,  # noqa: F401
                                                     JAXSparse, SparseEfficiencyError,
                                                     SparseEfficiencyWarning, SparseInfo)
