"""Sparse arrays (``jax.experimental.sparse``): the BCOO and BCSR formats, their
operations and the ``sparsify`` transformation."""
from xjax.experimental.sparse import ad, api, bcoo, bcsr, linalg, random, transform, util  # noqa: F401
from xjax.experimental.sparse.ad import grad, jacfwd, jacobian, jacrev, value_and_grad  # noqa: F401
from xjax.experimental.sparse.api import empty, eye, todense, todense_p  # noqa: F401
from xjax.experimental.sparse.bcoo import *  # noqa: F401,F403
from xjax.experimental.sparse.bcsr import *  # noqa: F401,F403
from xjax.experimental.sparse.random import random_bcoo  # noqa: F401
from xjax.experimental.sparse.transform import sparsify  # noqa: F401
from xjax.experimental.sparse.util import (CuSparseEfficiencyWarning, JAXSparse,  # noqa: F401
                                           SparseEfficiencyError, SparseEfficiencyWarning)
