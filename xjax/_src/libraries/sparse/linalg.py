"""``sparse.linalg.spsolve``: the solution of a square CSR system, computed on the host by
SciPy's ``spsolve`` (JAX's CPU path; its GPU path, cuSOLVER's QR, is not here), with JAX's
derivative rules: linear in the right-hand side (its transpose solves with the transposed
matrix) and ``-A^{-1} (dA) A^{-1} b`` for the matrix's values."""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.interpreters import ad
from xjax._src.primitives.callback import emit_callback
from xjax._src.primitives.lax.primitive_builders import standard_primitive
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.primitives.lax import lax
from xjax._src.libraries.sparse.csr import csr_matvec_p


def _abstract_eval(data, indices, indptr, b, *, tol, reorder):
  if data.dtype != b.dtype:
    raise ValueError(f"data types do not match: data.dtype={data.dtype!r} "
                     f"b.dtype={b.dtype!r}")
  if not (dtypes.is_integer(indices.dtype) and dtypes.is_integer(indptr.dtype)):
    raise ValueError(f"index arrays must be integer typed; got indices.dtype={indices.dtype!r} "
                     f"indptr.dtype={indptr.dtype!r}")
  if not data.ndim == indices.ndim == indptr.ndim == b.ndim == 1:
    raise ValueError(f"Arrays must be one-dimensional. Got data.shape={data.shape} "
                     f"indices.shape={indices.shape} indptr.shape={indptr.shape} "
                     f"b.shape={b.shape}")
  if indptr.size != b.size + 1 or data.shape != indices.shape:
    raise ValueError(f"Invalid CSR buffer sizes: data.shape={data.shape} "
                     f"indices.shape={indices.shape} indptr.shape={indptr.shape}")
  if reorder not in (0, 1, 2, 3):
    raise ValueError(f"reorder={reorder} not valid, must be one of [1, 2, 3, 4]")
  float(tol)  # (a number, as JAX checks)
  return b


def _solve_on_host(data, indices, indptr, b):
  import scipy.sparse
  import scipy.sparse.linalg
  data, indices, indptr, b = map(np.asarray, (data, indices, indptr, b))
  matrix = scipy.sparse.csr_matrix((data, indices, indptr), shape=(b.size, b.size))
  return (scipy.sparse.linalg.spsolve(matrix, b).astype(b.dtype),)


def _lowering(ctx, data, indices, indptr, b, *, tol, reorder):
  return emit_callback(ctx, _solve_on_host, [data, indices, indptr, b], ctx.avals_out,
                       effectful=False)[0]


def _jvp_data(data_dot, data, indices, indptr, b, **params):
  # d(A^-1 b) = -A^-1 (dA) A^-1 b
  p = spsolve_p.bind(data, indices, indptr, b, **params)
  q = csr_matvec_p.bind(data_dot, indices, indptr, p, shape=(indptr.shape[0] - 1, b.shape[0]),
                        transpose=False)
  return -spsolve_p.bind(data, indices, indptr, q, **params)


def _csr_transpose(data, indices, indptr):
  """The CSR arrays of a square CSR matrix's transpose (its entries sorted by column)."""
  n = indptr.shape[0] - 1
  row = jnp.cumsum(jnp.zeros_like(indices).at[indptr].add(1)) - 1
  row_t, indices_t, data_t = lax.sort((indices, row, data), num_keys=2)
  indptr_t = jnp.zeros_like(indptr).at[1:].set(
      jnp.cumsum(jnp.bincount(row_t, length=n)).astype(indptr.dtype))
  return data_t, indices_t, indptr_t


def _transpose(ct, data, indices, indptr, b, **params):
  if ad.is_undefined(data) or ad.is_undefined(indices) or ad.is_undefined(indptr):
    raise NotImplementedError("spsolve transpose with respect to data")
  data_t, indices_t, indptr_t = _csr_transpose(data, indices, indptr)
  return [None, None, None, spsolve_p.bind(data_t, indices_t, indptr_t, ct, **params)]


spsolve_p = standard_primitive("spsolve", _abstract_eval, _lowering)
ad.defjvp(spsolve_p, _jvp_data, None, None,
          lambda b_dot, data, indices, indptr, b, **p: spsolve_p.bind(data, indices, indptr,
                                                                      b_dot, **p))
spsolve_p.transpose = _transpose


def spsolve(data, indices, indptr, b, tol=1e-6, reorder=1):
  """``x`` with ``A @ x == b`` for the square CSR matrix ``A`` of ``data, indices, indptr``
  (computed by ``scipy.sparse.linalg.spsolve`` on the host; ``tol`` and ``reorder`` are
  checked and kept, as JAX's CPU path keeps them: they steer cuSOLVER only). As JAX's, it
  does not batch under ``vmap``."""
  return spsolve_p.bind(data, indices, indptr, b, tol=tol, reorder=reorder)
