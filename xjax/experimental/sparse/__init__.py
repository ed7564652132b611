"""Sparse arrays (``jax.experimental.sparse``): the BCOO and BCSR formats, their
operations and the ``sparsify`` transformation."""
from xjax.experimental.sparse import (ad, api, bcoo, bcsr, coo, csr, linalg,  # noqa: F401
                                     random, transform, util)
from xjax.experimental.sparse.ad import grad, jacfwd, jacobian, jacrev, value_and_grad  # noqa: F401
from xjax.experimental.sparse.api import empty, eye, todense, todense_p  # noqa: F401
from xjax.experimental.sparse.bcoo import *  # noqa: F401,F403
from xjax.experimental.sparse.bcsr import *  # noqa: F401,F403
from xjax.experimental.sparse.coo import (COO, coo_fromdense, coo_fromdense_p,  # noqa: F401
                                          coo_matmat, coo_matmat_p, coo_matvec, coo_matvec_p,
                                          coo_todense, coo_todense_p)
from xjax.experimental.sparse.csr import (CSC, CSR, csr_fromdense,  # noqa: F401
                                          csr_fromdense_p, csr_matmat, csr_matmat_p,
                                          csr_matvec, csr_matvec_p, csr_todense, csr_todense_p)
from xjax.experimental.sparse.random import random_bcoo  # noqa: F401
from xjax.experimental.sparse.transform import sparsify  # noqa: F401
from xjax.experimental.sparse.util import (CuSparseEfficiencyWarning, JAXSparse,  # noqa: F401
                                           SparseEfficiencyError, SparseEfficiencyWarning)
