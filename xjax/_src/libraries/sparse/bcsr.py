"""`BCSR`, compressed sparse rows, for 2-dimensional arrays: `data` and column `indices`
of the stored entries in row order, and `indptr` (row `r`'s entries are
`indptr[r]:indptr[r + 1]`).  Its operations convert to BCOO (row indices recovered from
`indptr` by a search) and use BCOO's primitives."""
from __future__ import annotations

import numpy as np

from xjax._src.foundations.tree_util import register_pytree_node_class
from xjax._src.libraries.numpy import lax_numpy as jnp
from xjax._src.libraries.sparse.bcoo import BCOO, bcoo_dot_general, bcoo_fromdense
from xjax._src.libraries.sparse.sparse_array import JAXSparse


def _two_d(what, shape, n_batch=0, n_dense=0):
  if len(shape) != 2 or n_batch or n_dense:
    raise NotImplementedError(f"{what}: xjax's BCSR holds 2-dimensional arrays without "
                              "batch or dense dimensions")


@register_pytree_node_class
class BCSR(JAXSparse):
  """A 2-d sparse array in compressed-row form."""

  n_batch = 0
  n_dense = 0
  n_sparse = 2

  def __init__(self, args, *, shape, indices_sorted: bool = False,
               unique_indices: bool = False):
    data, indices, indptr = args
    self.data, self.indices, self.indptr = map(jnp.asarray, (data, indices, indptr))
    super().__init__(args, shape=shape)
    _two_d("BCSR", self.shape, self.indices.ndim - 1, self.data.ndim - 1)
    if self.indptr.shape != (self.shape[0] + 1,) or self.data.shape != self.indices.shape:
      raise ValueError(f"BCSR: data {self.data.shape}, indices {self.indices.shape} and "
                       f"indptr {self.indptr.shape} do not describe an array of shape "
                       f"{self.shape}")
    self.indices_sorted = indices_sorted
    self.unique_indices = unique_indices

  nse = property(lambda self: self.indices.shape[-1])

  def tree_flatten(self):
    return (self.data, self.indices, self.indptr), {
        "shape": self.shape, "indices_sorted": self.indices_sorted,
        "unique_indices": self.unique_indices}

  @classmethod
  def tree_unflatten(cls, aux, children):
    obj = object.__new__(cls)
    obj.data, obj.indices, obj.indptr = children
    obj.shape = aux["shape"]
    obj.indices_sorted = aux["indices_sorted"]
    obj.unique_indices = aux["unique_indices"]
    return obj

  @classmethod
  def fromdense(cls, mat, *, nse=None, index_dtype=np.int32, n_dense=0, n_batch=0):
    return bcsr_fromdense(mat, nse=nse, index_dtype=index_dtype, n_dense=n_dense,
                          n_batch=n_batch)

  @classmethod
  def from_bcoo(cls, arr: BCOO) -> "BCSR":
    """The BCSR of a 2-d BCOO (its entries sorted by row first)."""
    _two_d("BCSR.from_bcoo", arr.shape, arr.n_batch, arr.n_dense)
    if not arr.indices_sorted:
      arr = arr.sort_indices()
    rows = arr.indices[:, 0]
    indptr = jnp.searchsorted(rows, jnp.arange(arr.shape[0] + 1, dtype=rows.dtype),
                              side="left").astype(arr.indices.dtype)
    return cls((arr.data, arr.indices[:, 1], indptr), shape=arr.shape, indices_sorted=True,
               unique_indices=arr.unique_indices)

  @classmethod
  def from_scipy_sparse(cls, mat, *, index_dtype=None, n_dense=0, n_batch=0):
    _two_d("BCSR.from_scipy_sparse", mat.shape, n_batch, n_dense)
    csr = mat.tocsr()
    dt = index_dtype or np.int32
    return cls((jnp.asarray(csr.data), jnp.asarray(csr.indices.astype(dt)),
                jnp.asarray(csr.indptr.astype(dt))), shape=csr.shape)

  @classmethod
  def _empty(cls, shape, *, dtype=None, index_dtype=np.int32, n_dense=0, n_batch=0):
    _two_d("sparse.empty(sparse_format='bcsr')", tuple(shape), n_batch, n_dense)
    return cls((jnp.zeros(0, dtype), jnp.zeros(0, index_dtype),
                jnp.zeros(shape[0] + 1, index_dtype)), shape=shape)

  @classmethod
  def _eye(cls, N, M, k, *, dtype=None, index_dtype=np.int32, n_batch=0, n_dense=0):
    _two_d("sparse.eye(sparse_format='bcsr')", (N, M), n_batch, n_dense)
    return cls.from_bcoo(BCOO._eye(N, M, k, dtype=dtype, index_dtype=index_dtype))

  def to_bcoo(self) -> BCOO:
    """The same entries as a BCOO (a row index per entry; padding rows out of range)."""
    pos = jnp.arange(self.nse, dtype=self.indptr.dtype)
    rows = jnp.searchsorted(self.indptr, pos, side="right").astype(self.indices.dtype) - 1
    rows = jnp.where(pos < self.indptr[-1], rows, self.shape[0])
    return BCOO((self.data, jnp.stack([rows, self.indices], axis=1)), shape=self.shape,
                indices_sorted=self.indices_sorted, unique_indices=self.unique_indices)

  def todense(self):
    return bcsr_todense(self)

  def transpose(self, axes=None):
    raise NotImplementedError("BCSR.transpose: convert with to_bcoo() first")

  def __matmul__(self, other):
    return self.to_bcoo() @ other

  def __rmatmul__(self, other):
    return other @ self.to_bcoo()


def bcsr_fromdense(mat, *, nse=None, n_batch=0, n_dense=0, index_dtype=np.int32) -> BCSR:
  """The BCSR of the nonzero entries of a 2-d `mat` (`nse` pads, as in bcoo_fromdense)."""
  mat = jnp.asarray(mat)
  _two_d("bcsr_fromdense", mat.shape, n_batch, n_dense)
  return BCSR.from_bcoo(bcoo_fromdense(mat, nse=nse, index_dtype=index_dtype))


def bcsr_todense(mat: BCSR):
  return mat.to_bcoo().todense()


def bcsr_dot_general(lhs, rhs, *, dimension_numbers, precision=None,
                     preferred_element_type=None, out_sharding=None):
  """`lax.dot_general` with a BCSR operand (through its BCOO form)."""
  as_bcoo = lambda x: x.to_bcoo() if isinstance(x, BCSR) else x
  return bcoo_dot_general(as_bcoo(lhs), as_bcoo(rhs), dimension_numbers=dimension_numbers,
                          precision=precision, preferred_element_type=preferred_element_type,
                          out_sharding=out_sharding)
