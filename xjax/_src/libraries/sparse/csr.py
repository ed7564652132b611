"""`CSR` and `CSC`, the 2-d compressed formats: `data` and column (row, for CSC) `indices`
of the stored entries in row (column) order, and `indptr` (row `r`'s entries are
`indptr[r]:indptr[r + 1]`).  The primitives `csr_fromdense_p`, `csr_todense_p`,
`csr_matvec_p` and `csr_matmat_p` recover each entry's row from `indptr` and use COO's
entry-wise kernels; entries past `indptr[-1]` are padding.  A CSC is the CSR of its
transpose."""
from __future__ import annotations

import operator

import numpy as np

from xjax._src.foundations.tree_util import register_pytree_node_class
from xjax._src.core.avals import ShapedArray
from xjax._src.interpreters import ad
from xjax._src.interpreters.ad import Zero
from xjax._src.primitives.lax.primitive_builders import lowering_from, standard_primitive
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.numpy.promotion import promote_dtypes
from xjax._src.libraries.sparse.batched import vmapped_batch_rule
from xjax._src.libraries.sparse.coo import (COO, count_nonzero, product_primitive,
                                            sparse_matmul, todense_entries)
from xjax._src.libraries.sparse.sparse_array import JAXSparse


def csr_rows(indptr, nse: int):
  """The row of each of `nse` entries (the number of rows for padding past `indptr[-1]`)."""
  starts = jnp.zeros(nse, indptr.dtype).at[indptr].add(1, mode="drop")
  return jnp.cumsum(starts) - 1


# ---------------------------------------------------------------------------------------
# csr_todense

def _todense_impl(data, indices, indptr, *, shape):
  return todense_entries(data, csr_rows(indptr, indices.shape[0]), indices, shape)


def _todense_transpose(ct, data, indices, indptr, *, shape):
  assert ad.is_undefined(data) and not ad.is_undefined(indices)
  if type(ct) is Zero:
    return [Zero(data.aval), None, None]
  rows = csr_rows(indptr, indices.shape[0])
  return [ct[rows, indices].astype(data.aval.dtype), None, None]  # clamped, as JAX


csr_todense_p = standard_primitive(
    "csr_todense", lambda data, indices, indptr, *, shape: ShapedArray(shape, data.dtype),
    lowering_from(_todense_impl))
ad.defjvp(csr_todense_p, lambda t, data, indices, indptr, *, shape: csr_todense_p.bind(
    t, indices, indptr, shape=shape), None, None)
csr_todense_p.transpose = _todense_transpose
csr_todense_p.batch = vmapped_batch_rule(_todense_impl)


# ---------------------------------------------------------------------------------------
# csr_fromdense

def _fromdense_impl(mat, *, nse, index_dtype):
  row, col = jnp.nonzero(mat, size=nse)
  per_row = (mat != 0).sum(1)
  stored = jnp.arange(nse) < per_row.sum()
  data = jnp.where(stored, mat[row, col], 0).astype(mat.dtype)
  indptr = jnp.concatenate([jnp.zeros(1, per_row.dtype), jnp.cumsum(per_row)])
  return data, col.astype(index_dtype), indptr.astype(index_dtype)


def _fromdense_abstract_eval(mat, *, nse, index_dtype):
  if mat.ndim != 2:
    raise AssertionError(f"csr_fromdense: a 2-dimensional array is needed, got {mat.shape}")
  index_dtype = np.dtype(index_dtype)
  return [ShapedArray((nse,), mat.dtype), ShapedArray((nse,), index_dtype),
          ShapedArray((mat.shape[0] + 1,), index_dtype)]


def _fromdense_jvp(primals, tangents, *, nse, index_dtype):
  outs = csr_fromdense_p.bind(primals[0], nse=nse, index_dtype=index_dtype)
  data, indices, indptr = outs
  zeros = [Zero(ShapedArray(x.shape, x.dtype)) for x in (indices, indptr)]
  if type(tangents[0]) is Zero:
    return outs, [Zero(ShapedArray(data.shape, data.dtype))] + zeros
  t = tangents[0].at[csr_rows(indptr, nse), indices].get(mode="fill", fill_value=0)
  return outs, [t] + zeros


csr_fromdense_p = standard_primitive("csr_fromdense", _fromdense_abstract_eval,
                                     lowering_from(_fromdense_impl), multiple_results=True)
csr_fromdense_p.jvp = _fromdense_jvp
csr_fromdense_p.batch = vmapped_batch_rule(_fromdense_impl, multiple_results=True)


# ---------------------------------------------------------------------------------------
# csr_matvec and csr_matmat

_csr_entries = lambda indices, indptr: (csr_rows(indptr, indices.shape[0]), indices)  # noqa: E731
_csr_shape = lambda static: static["shape"]  # noqa: E731
csr_matvec_p = product_primitive("csr_matvec", 1, _csr_entries, _csr_shape)
csr_matmat_p = product_primitive("csr_matmat", 2, _csr_entries, _csr_shape)


# ---------------------------------------------------------------------------------------
# The classes and the public functions

class _Compressed(JAXSparse):
  """What CSR and CSC share: the `(data, indices, indptr)` buffers as a pytree."""

  def __init__(self, args, *, shape):
    self.data, self.indices, self.indptr = map(jnp.asarray, args)
    super().__init__(args, shape=shape)

  nse = property(lambda self: self.data.size)
  _bufs = property(lambda self: (self.data, self.indices, self.indptr))

  def tree_flatten(self):
    return self._bufs, {"shape": self.shape}

  _buffer_names = ("data", "indices", "indptr")

  @classmethod
  def _empty(cls, shape, *, dtype=None, index_dtype="int32"):
    if len(shape) != 2:
      raise ValueError(f"{cls.__name__} must have ndim=2; got shape={shape}")
    n = shape[0] if cls is CSR else shape[1]
    return cls((jnp.empty(0, dtype), jnp.empty(0, index_dtype), jnp.zeros(n + 1, index_dtype)),
               shape=shape)

  def _other(self):
    """The same buffers read as the other format: the transpose."""
    return (CSC if type(self) is CSR else CSR)(self._bufs, shape=self.shape[::-1])

  def transpose(self, axes=None):
    if axes is not None:
      raise AssertionError("CSR/CSC.transpose takes no axes")
    return self._other()


@register_pytree_node_class
class CSR(_Compressed):
  """A 2-d array in compressed-row form."""

  @classmethod
  def fromdense(cls, mat, *, nse=None, index_dtype=np.int32) -> "CSR":
    return csr_fromdense(mat, nse=nse, index_dtype=index_dtype)

  @classmethod
  def _eye(cls, N, M, k, *, dtype=None, index_dtype="int32") -> "CSR":
    coo = COO._eye(N, M, k, dtype=dtype, index_dtype=index_dtype)
    indptr = jnp.zeros(N + 1, index_dtype).at[coo.row + 1].add(1).cumsum().astype(index_dtype)
    return cls((coo.data, coo.col, indptr), shape=(N, M))

  def todense(self):
    return csr_todense(self)

  def __matmul__(self, other):
    return sparse_matmul(self, other, csr_matvec, csr_matmat)


@register_pytree_node_class
class CSC(_Compressed):
  """A 2-d array in compressed-column form (the CSR of its transpose)."""

  @classmethod
  def fromdense(cls, mat, *, nse=None, index_dtype=np.int32) -> "CSC":
    return csr_fromdense(jnp.asarray(mat).T, nse=nse, index_dtype=index_dtype).T

  @classmethod
  def _eye(cls, N, M, k, *, dtype=None, index_dtype="int32") -> "CSC":
    return CSR._eye(M, N, -k, dtype=dtype, index_dtype=index_dtype).T

  def todense(self):
    return csr_todense(self._other()).T

  def __matmul__(self, other):
    csr = self._other()
    return sparse_matmul(csr, other, lambda m, v: csr_matvec(m, v, transpose=True),
                         lambda m, B: csr_matmat(m, B, transpose=True))


def csr_todense(mat: CSR):
  """The dense array of a CSR."""
  return csr_todense_p.bind(mat.data, mat.indices, mat.indptr, shape=mat.shape)


def csr_fromdense(mat, *, nse=None, index_dtype=np.int32) -> CSR:
  """The nonzero entries of 2-d `mat` by rows; `nse` (needed under `jit`) pads with zero
  entries past `indptr[-1]`."""
  mat = jnp.asarray(mat)
  if nse is None:
    nse = count_nonzero(mat, "csr_fromdense")
  bufs = csr_fromdense_p.bind(mat, nse=operator.index(nse), index_dtype=np.dtype(index_dtype))
  return CSR(bufs, shape=mat.shape)


def _product(prim, mat, B, transpose):
  data, B = promote_dtypes(mat.data, jnp.asarray(B))
  return prim.bind(data, mat.indices, mat.indptr, B, shape=mat.shape,
                   transpose=bool(transpose))


def csr_matvec(mat: CSR, v, transpose: bool = False):
  """`mat @ v` (`mat.T @ v` with `transpose`) for a vector `v`."""
  return _product(csr_matvec_p, mat, v, transpose)


def csr_matmat(mat: CSR, B, *, transpose: bool = False):
  """`mat @ B` (`mat.T @ B` with `transpose`) for a matrix `B`."""
  return _product(csr_matmat_p, mat, B, transpose)
