"""``jax.experimental.sparse.csr``: the 2-d compressed-row and compressed-column formats."""
from xjax._src.libraries.sparse.csr import (CSC, CSR, csr_fromdense,  # noqa: F401
                                            csr_fromdense_p, csr_matmat, csr_matmat_p,
                                            csr_matvec, csr_matvec_p, csr_todense,
                                            csr_todense_p)
