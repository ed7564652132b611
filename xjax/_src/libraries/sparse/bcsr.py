"""`BCSR`, batched compressed sparse rows: `data` (`batch + (nse,) + dense`), column
`indices` (`batch + (nse,)`) and `indptr` (`batch + (rows + 1,)`; row `r`'s entries are
`indptr[r]:indptr[r + 1]`, entries past `indptr[-1]` are padding), over two sparse
dimensions.  Its primitives `bcsr_fromdense_p`, `bcsr_todense_p`, `bcsr_extract_p` and
`bcsr_dot_general_p` recover each entry's row from `indptr` and lower as the BCOO
kernels; structural operations go through BCOO."""
from __future__ import annotations

import operator

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.foundations.tree_util import register_pytree_node_class
from xjax._src.core.avals import ShapedArray
from xjax._src.api.vmappable import register_vmappable
from xjax._src.interpreters import ad
from xjax._src.interpreters.ad import Zero
from xjax._src.primitives.lax.primitive_builders import lowering_from, standard_primitive
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.sparse import bcoo_layout, bcoo_products
from xjax._src.libraries.sparse.batched import (broadcast_batch, nfold_vmap,
                                                vmapped_batch_rule)
from xjax._src.libraries.sparse.bcoo import (BCOO, batch_axis_from_elt, batch_axis_to_elt,
                                             bcoo_broadcast_in_dim, bcoo_concatenate,
                                             bcoo_sum_duplicates)
from xjax._src.libraries.sparse.csr import csr_rows
from xjax._src.libraries.sparse.sparse_array import JAXSparse, SparseInfo


def bcoo_indices(indices, indptr):
  """BCOO indices (`batch + (nse, 2)`) of BCSR `indices` and `indptr`; padding rows are
  out of range."""
  n_batch = indices.ndim - 1
  indices, indptr = broadcast_batch(n_batch, indices, indptr)
  one = lambda i, p: jnp.stack([csr_rows(p, i.shape[0]).astype(i.dtype), i], axis=1)
  return nfold_vmap(one, n_batch)(indices, indptr)


def bcsr_indptr(bcoo_indices, n_rows: int):
  """The `indptr` of row-sorted BCOO indices (`batch + (nse, 2)`), padding rows at the end."""
  one = lambda i: jnp.searchsorted(i[:, 0], jnp.arange(n_rows + 1, dtype=i.dtype),
                                   side="left").astype(i.dtype)
  return nfold_vmap(one, bcoo_indices.ndim - 2)(bcoo_indices)


# ---------------------------------------------------------------------------------------
# bcsr_fromdense

def _fromdense_impl(mat, *, nse, n_batch, n_dense, index_dtype):
  data, ind = bcoo_layout._fromdense_impl(mat, nse=nse, n_batch=n_batch, n_dense=n_dense,
                                          index_dtype=index_dtype)
  return data, ind[..., 1], bcsr_indptr(ind, mat.shape[n_batch])


def _fromdense_abstract_eval(mat, *, nse, n_batch, n_dense, index_dtype):
  if mat.ndim - n_batch - n_dense != 2:
    raise ValueError("bcsr_fromdense: must have 2 sparse dimensions.")
  batch, dense = mat.shape[:n_batch], mat.shape[n_batch + 2:]
  index_dtype = np.dtype(index_dtype)
  return [ShapedArray(batch + (nse,) + dense, mat.dtype),
          ShapedArray(batch + (nse,), index_dtype),
          ShapedArray(batch + (mat.shape[n_batch] + 1,), index_dtype)]


def _fromdense_jvp(primals, tangents, **params):
  outs = bcsr_fromdense_p.bind(primals[0], **params)
  data, indices, indptr = outs
  zeros = [Zero(ShapedArray(x.shape, x.dtype)) for x in (indices, indptr)]
  if type(tangents[0]) is Zero:
    return outs, [Zero(ShapedArray(data.shape, data.dtype))] + zeros
  return outs, [bcsr_extract_p.bind(indices, indptr, tangents[0])] + zeros


def _fromdense_batch(axis, args, dims, *, nse, n_batch, n_dense, index_dtype):
  (mat,) = bcoo_layout._front(args, dims, axis.size)
  return bcsr_fromdense_p.bind(mat, nse=nse, n_batch=n_batch + 1, n_dense=n_dense,
                               index_dtype=index_dtype), [0, 0, 0]


bcsr_fromdense_p = standard_primitive("bcsr_fromdense", _fromdense_abstract_eval,
                                      lowering_from(_fromdense_impl), multiple_results=True)
bcsr_fromdense_p.jvp = _fromdense_jvp
bcsr_fromdense_p.batch = _fromdense_batch


# ---------------------------------------------------------------------------------------
# bcsr_todense and bcsr_extract

def _todense_impl(data, indices, indptr, *, spinfo):
  return bcoo_layout._todense_impl(data, bcoo_indices(indices, indptr), spinfo=spinfo)


def _todense_transpose(ct, data, indices, indptr, *, spinfo):
  assert ad.is_undefined(data) and not ad.is_undefined(indices)
  if type(ct) is Zero:
    return [Zero(data.aval), None, None]
  return [bcsr_extract_p.bind(indices, indptr, ct).astype(data.aval.dtype), None, None]


def _todense_batch(axis, args, dims, *, spinfo):
  data, indices, indptr = bcoo_layout._front(args, dims, axis.size)
  return bcsr_todense_p.bind(data, indices, indptr,
                             spinfo=spinfo._replace(shape=(axis.size,) + spinfo.shape)), 0


bcsr_todense_p = standard_primitive(
    "bcsr_todense", lambda data, indices, indptr, *, spinfo: ShapedArray(spinfo.shape,
                                                                         data.dtype),
    lowering_from(_todense_impl))
ad.defjvp(bcsr_todense_p, lambda t, data, indices, indptr, *, spinfo: bcsr_todense_p.bind(
    t, indices, indptr, spinfo=spinfo), None, None)
bcsr_todense_p.transpose = _todense_transpose
bcsr_todense_p.batch = _todense_batch


def _extract_impl(indices, indptr, mat):
  return bcoo_layout._extract_impl(bcoo_indices(indices, indptr), mat, assume_unique=True)


def _extract_abstract_eval(indices, indptr, mat):
  n_batch = indices.ndim - 1
  batch = tuple(max(a, b) for a, b in zip(indices.shape[:n_batch], mat.shape[:n_batch]))
  return ShapedArray(batch + indices.shape[-1:] + mat.shape[n_batch + 2:], mat.dtype)


def _extract_transpose(ct, indices, indptr, mat):
  assert ad.is_undefined(mat) and not ad.is_undefined(indices)
  if type(ct) is Zero:
    return [None, None, Zero(mat.aval)]
  spinfo = SparseInfo(mat.aval.shape)
  return [None, None, bcsr_todense_p.bind(ct, indices, indptr,
                                          spinfo=spinfo).astype(mat.aval.dtype)]


bcsr_extract_p = standard_primitive("bcsr_extract", _extract_abstract_eval,
                                    lowering_from(_extract_impl))
ad.defjvp(bcsr_extract_p, None, None,
          lambda t, indices, indptr, mat: bcsr_extract_p.bind(indices, indptr, t))
bcsr_extract_p.transpose = _extract_transpose
bcsr_extract_p.batch = vmapped_batch_rule(_extract_impl)


# ---------------------------------------------------------------------------------------
# bcsr_dot_general (BCSR by dense)

def _dot_general_impl(data, indices, indptr, rhs, **params):
  return bcoo_products._dot_general_impl(data, bcoo_indices(indices, indptr), rhs, **params)


def _dot_general_abstract_eval(data, indices, indptr, rhs, **params):
  index_aval = ShapedArray(indices.shape + (2,), indices.dtype)
  return bcoo_products._dot_general_abstract_eval(data, index_aval, rhs, **params)


bcsr_dot_general_p = standard_primitive("bcsr_dot_general", _dot_general_abstract_eval,
                                        lowering_from(_dot_general_impl))
bcsr_dot_general_p.jvp = bcoo_products._bilinear_jvp(bcsr_dot_general_p, (0, 3))
bcsr_dot_general_p.transpose = bcoo_products.linear_transpose_rule(_dot_general_impl, (0, 3))
bcsr_dot_general_p.batch = vmapped_batch_rule(_dot_general_impl)


# ---------------------------------------------------------------------------------------
# The class

@register_pytree_node_class
class BCSR(JAXSparse):
  """An array of `shape` with batch dimensions, two compressed sparse dimensions (rows,
  columns) and dense dimensions."""

  def __init__(self, args, *, shape, indices_sorted: bool = False,
               unique_indices: bool = False):
    self.data, self.indices, self.indptr = map(jnp.asarray, args)
    super().__init__(args, shape=shape)
    self.indices_sorted = indices_sorted
    self.unique_indices = unique_indices
    nb = self.n_batch
    if (self.n_dense < 0 or nb + 2 + self.n_dense != len(self.shape)
        or self.indptr.shape[nb:] != (self.shape[nb] + 1,)
        or self.data.shape[nb] != self.nse
        or self.data.shape[nb + 1:] != self.shape[nb + 2:]):
      raise ValueError(f"BCSR: data {self.data.shape}, indices {self.indices.shape} and "
                       f"indptr {self.indptr.shape} do not describe an array of shape "
                       f"{self.shape}")

  n_batch = property(lambda self: self.indices.ndim - 1)
  n_sparse = 2
  n_dense = property(lambda self: self.data.ndim - 1 - self.n_batch)
  nse = property(lambda self: self.indices.shape[-1])
  _info = property(lambda self: SparseInfo(self.shape, self.indices_sorted,
                                           self.unique_indices))
  _bufs = property(lambda self: (self.data, self.indices, self.indptr))

  def tree_flatten(self):
    return self._bufs, {"shape": self.shape, "indices_sorted": self.indices_sorted,
                        "unique_indices": self.unique_indices}

  _buffer_names = ("data", "indices", "indptr")
  _aux_attributes = {"shape": "shape", "indices_sorted": "indices_sorted",
                     "unique_indices": "unique_indices"}

  @classmethod
  def fromdense(cls, mat, *, nse=None, index_dtype=np.int32, n_dense=0, n_batch=0):
    return bcsr_fromdense(mat, nse=nse, index_dtype=index_dtype, n_dense=n_dense,
                          n_batch=n_batch)

  @classmethod
  def from_bcoo(cls, arr: BCOO) -> "BCSR":
    """The BCSR of a BCOO with two sparse dimensions (its entries sorted by row first)."""
    if arr.n_sparse != 2:
      raise NotImplementedError(f"BSCR.from_bcoo requires n_sparse=2; got arr.n_sparse="
                                f"{arr.n_sparse}")
    if not arr.indices_sorted:
      arr = arr.sort_indices()
    data, indices = broadcast_batch(arr.n_batch, arr.data, arr.indices)
    return cls((data, indices[..., 1], bcsr_indptr(indices, arr.shape[arr.n_batch])),
               shape=arr.shape, indices_sorted=True, unique_indices=arr.unique_indices)

  @classmethod
  def from_scipy_sparse(cls, mat, *, index_dtype=None, n_dense=0, n_batch=0):
    if n_dense or n_batch:
      raise NotImplementedError("BCSR from_scipy_sparse with nonzero n_dense/n_batch.")
    csr = mat.tocsr()
    dt = index_dtype or np.int32
    return cls((jnp.asarray(csr.data), jnp.asarray(csr.indices, dt),
                jnp.asarray(csr.indptr, dt)), shape=csr.shape)

  @classmethod
  def _empty(cls, shape, *, dtype=None, index_dtype="int32", n_dense=0, n_batch=0, nse=0):
    shape = tuple(shape)
    if len(shape) - n_batch - n_dense != 2:
      raise ValueError("BCSR._empty: must have 2 sparse dimensions.")
    batch, dense = shape[:n_batch], shape[n_batch + 2:]
    return cls((jnp.zeros(batch + (nse,) + dense, dtype), jnp.zeros(batch + (nse,), index_dtype),
                jnp.zeros(batch + (shape[n_batch] + 1,), index_dtype)), shape=shape,
               indices_sorted=True, unique_indices=True)

  @classmethod
  def _eye(cls, N, M, k, *, dtype=None, index_dtype="int32", n_batch=0, n_dense=0):
    return cls.from_bcoo(BCOO._eye(N, M, k, dtype=dtype, index_dtype=index_dtype,
                                   n_batch=n_batch, n_dense=n_dense))

  def to_bcoo(self) -> BCOO:
    """The same entries as a BCOO (a row index per entry; padding rows out of range)."""
    return BCOO((self.data, bcoo_indices(self.indices, self.indptr)), shape=self.shape,
                indices_sorted=self.indices_sorted, unique_indices=self.unique_indices)

  def todense(self):
    return bcsr_todense(self)

  def sum_duplicates(self, nse=None, remove_zeros=True):
    return bcsr_sum_duplicates(self, nse=nse)

  def transpose(self, *args, **kwargs):
    raise NotImplementedError("Transpose is not implemented.")

  def __matmul__(self, other):
    if isinstance(other, JAXSparse):
      raise NotImplementedError("bcsr_dot_general currently implemented for BCSR lhs and "
                                "ndarray rhs.")
    other = jnp.asarray(other)
    if other.ndim == 0:
      raise TypeError("matmul: a 0-dimensional operand (use * for scalars)")
    if other.ndim > 2:
      raise NotImplementedError(f"matmul with object of shape {other.shape}")
    dn = (((self.ndim - 1,), (0,)), ((), ()))
    return bcsr_dot_general(self, other, dimension_numbers=dn)

  def __rmatmul__(self, other):
    return other @ self.to_bcoo()


def _bcsr_to_elt(cont, _, mat, axis):
  mapped = batch_axis_to_elt("BCSR", mat, axis, mat._bufs, cont)
  if mapped is None:
    return mat
  bufs, shape = mapped
  return BCSR(bufs, shape=shape, indices_sorted=mat.indices_sorted,
              unique_indices=mat.unique_indices)


def _bcsr_from_elt(cont, axis_size, elt, axis):
  if axis is None:
    return elt
  bufs, shape = batch_axis_from_elt("BCSR", elt, axis, axis_size, elt._bufs, cont)
  return BCSR(bufs, shape=shape, indices_sorted=elt.indices_sorted,
              unique_indices=elt.unique_indices)


register_vmappable(BCSR, int, int, _bcsr_to_elt, _bcsr_from_elt, None)


# ---------------------------------------------------------------------------------------
# Public functions

def bcsr_fromdense(mat, *, nse=None, n_batch=0, n_dense=0, index_dtype=np.int32) -> BCSR:
  """The nonzero entries of `mat` by rows (per batch); `nse`, needed under `jit`, pads
  past `indptr[-1]`."""
  mat = jnp.asarray(mat)
  if mat.ndim - n_batch - n_dense != 2:
    raise ValueError("bcsr_fromdense: must have 2 sparse dimensions.")
  if nse is None:
    nse = bcoo_layout.count_stored(mat, n_batch, n_dense)
  bufs = bcsr_fromdense_p.bind(mat, nse=operator.index(nse), n_batch=n_batch,
                               n_dense=n_dense, index_dtype=np.dtype(index_dtype))
  return BCSR(bufs, shape=mat.shape)


def bcsr_todense(mat: BCSR):
  """The dense array of a BCSR."""
  return bcsr_todense_p.bind(*mat._bufs, spinfo=mat._info)


def bcsr_extract(indices, indptr, mat):
  """The entries of dense `mat` at the positions of BCSR `indices`/`indptr`: the data of a
  BCSR with that structure."""
  return bcsr_extract_p.bind(jnp.asarray(indices), jnp.asarray(indptr), jnp.asarray(mat))


def bcsr_dot_general(lhs, rhs, *, dimension_numbers, precision=None,
                     preferred_element_type=None, out_sharding=None):
  """`lax.dot_general` of a BCSR `lhs` and a dense `rhs`."""
  if not isinstance(lhs, BCSR) or isinstance(rhs, JAXSparse):
    raise NotImplementedError("bcsr_dot_general currently implemented for BCSR lhs and "
                              "ndarray rhs.")
  if out_sharding is not None:
    raise NotImplementedError("bcsr_dot_general: out_sharding")
  rhs = jnp.asarray(rhs)
  (lc, rc), (lb, rb) = dimension_numbers
  dn = ((tuple(lc), tuple(rc)), (tuple(lb), tuple(rb)))
  dtype = preferred_element_type or dtypes.result_type(lhs.dtype, rhs.dtype)
  return bcsr_dot_general_p.bind(*lhs._bufs, rhs, dimension_numbers=dn,
                                 preferred_element_type=np.dtype(dtype),
                                 lhs_spinfo=lhs._info)


def _through_bcoo(fn, mat: BCSR, **kwargs) -> BCSR:
  return BCSR.from_bcoo(fn(mat.to_bcoo(), **kwargs))


def bcsr_broadcast_in_dim(mat: BCSR, *, shape, broadcast_dimensions, sharding=None) -> BCSR:
  """`mat` broadcast to `shape` (new leading dimensions batch, trailing ones dense)."""
  if sharding is not None:
    raise NotImplementedError("bcsr_broadcast_in_dim: sharding")
  return _through_bcoo(bcoo_broadcast_in_dim, mat, shape=tuple(shape),
                       broadcast_dimensions=tuple(broadcast_dimensions))


def bcsr_concatenate(operands, *, dimension: int) -> BCSR:
  """Concatenation of BCSR arrays along `dimension`."""
  return BCSR.from_bcoo(bcoo_concatenate([op.to_bcoo() for op in operands],
                                         dimension=dimension))


def bcsr_sum_duplicates(mat: BCSR, nse=None) -> BCSR:
  """`mat` with entries of equal indices summed, sorted; `nse` as in bcoo_sum_duplicates."""
  return _through_bcoo(bcoo_sum_duplicates, mat, nse=nse)
