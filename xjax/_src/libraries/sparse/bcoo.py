"""`BCOO`, the batched-coordinate sparse format, and the public `bcoo_*` functions.

A BCOO is a pytree of `data` (`batch + (nse,) + dense`) and `indices`
(`batch + (nse, n_sparse)`), with its shape and the `indices_sorted`/`unique_indices`
flags as static data, so it passes through `jit`, `grad` (with respect to `data`) and
`vmap` (which adds a batch dimension).  Its operations bind the primitives of
`bcoo_layout.py` and `bcoo_products.py`; structural ones are in `bcoo_structure.py`."""
from __future__ import annotations

import operator

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.foundations.tree_util import register_pytree_node_class
from xjax._src.api.vmappable import register_vmappable
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.sparse.batched import broadcast_batch
from xjax._src.libraries.sparse.bcoo_layout import (
    bcoo_extract_p, bcoo_fromdense_p, bcoo_sort_indices_p, bcoo_sum_duplicates_p,
    bcoo_todense_p, bcoo_transpose_p, count_stored, count_unique, layout)
from xjax._src.libraries.sparse.bcoo_products import (
    bcoo_dot_general_p, bcoo_dot_general_sampled_p, bcoo_spdot_general_p)
from xjax._src.libraries.sparse.bcoo_structure import (
    bcoo_broadcast_in_dim, bcoo_concatenate, bcoo_dynamic_slice, bcoo_multiply_dense,
    bcoo_multiply_sparse, bcoo_reduce_sum, bcoo_reshape, bcoo_rev, bcoo_slice, bcoo_squeeze,
    bcoo_update_layout, multiply_dense)
from xjax._src.libraries.sparse.sparse_array import JAXSparse, SparseInfo


@register_pytree_node_class
class BCOO(JAXSparse):
  """An array of `shape` whose entry `data[b..., i]` sits at batch position `b` and sparse
  position `indices[b..., i, :]` (followed by `data`'s dense dimensions)."""

  def __init__(self, args, *, shape, indices_sorted: bool = False,
               unique_indices: bool = False):
    data, indices = args
    self.data = jnp.asarray(data)
    self.indices = jnp.asarray(indices)
    super().__init__(args, shape=shape)
    self.indices_sorted = indices_sorted
    self.unique_indices = unique_indices
    layout(self.data.shape, self.indices.shape, self.shape)

  n_batch = property(lambda self: self.indices.ndim - 2)
  n_sparse = property(lambda self: self.indices.shape[-1])
  n_dense = property(lambda self: self.data.ndim - 1 - self.n_batch)
  nse = property(lambda self: self.indices.shape[-2])
  _info = property(lambda self: SparseInfo(self.shape, self.indices_sorted,
                                           self.unique_indices))

  # --- pytree -------------------------------------------------------------------------------
  def tree_flatten(self):
    return (self.data, self.indices), {"shape": self.shape,
                                       "indices_sorted": self.indices_sorted,
                                       "unique_indices": self.unique_indices}

  _buffer_names = ("data", "indices")
  _aux_attributes = {"shape": "shape", "indices_sorted": "indices_sorted",
                     "unique_indices": "unique_indices"}

  # --- construction and conversion ----------------------------------------------------------
  @classmethod
  def fromdense(cls, mat, *, nse=None, index_dtype=np.int32, n_dense=0, n_batch=0):
    return bcoo_fromdense(mat, nse=nse, index_dtype=index_dtype, n_dense=n_dense,
                          n_batch=n_batch)

  @classmethod
  def from_scipy_sparse(cls, mat, *, index_dtype=None, n_dense=0, n_batch=0):
    """A BCOO holding a SciPy sparse matrix's entries (in its COO order)."""
    if n_dense or n_batch:
      raise NotImplementedError("BCOO.from_scipy_sparse with n_batch or n_dense; use "
                                "bcoo_update_layout on the result")
    coo = mat.tocoo()
    indices = np.column_stack((coo.row, coo.col)).astype(index_dtype or np.int32)
    return cls((jnp.asarray(coo.data), jnp.asarray(indices)), shape=coo.shape)

  @classmethod
  def _empty(cls, shape, *, dtype=None, index_dtype=np.int32, n_dense=0, n_batch=0, nse=0):
    shape = tuple(shape)
    n_sparse = len(shape) - n_batch - n_dense
    if n_sparse < 0:
      raise ValueError(f"n_batch={n_batch} and n_dense={n_dense} exceed shape {shape}")
    batch, sparse, dense = shape[:n_batch], shape[n_batch:n_batch + n_sparse], (
        shape[n_batch + n_sparse:])
    data = jnp.zeros(batch + (nse,) + dense, dtype)
    indices = jnp.broadcast_to(jnp.asarray(sparse, index_dtype), batch + (nse, n_sparse))
    return cls((data, indices), shape=shape, indices_sorted=True, unique_indices=True)

  @classmethod
  def _eye(cls, N, M, k, *, dtype=None, index_dtype=np.int32, n_batch=0, n_dense=0):
    if n_batch or n_dense:
      return bcoo_update_layout(cls._eye(N, M, k, dtype=dtype, index_dtype=index_dtype),
                                n_batch=n_batch, n_dense=n_dense, on_inefficient=None)
    nse = max(0, min(N, M - k) if k >= 0 else min(N + k, M))
    start = (0, k) if k >= 0 else (-k, 0)
    diag = jnp.arange(nse, dtype=index_dtype)
    indices = jnp.stack([diag + start[0], diag + start[1]], axis=1)
    return cls((jnp.ones(nse, dtype), indices), shape=(N, M), indices_sorted=True,
               unique_indices=True)

  def todense(self):
    return bcoo_todense(self)

  def block_until_ready(self):
    self.data.block_until_ready()
    self.indices.block_until_ready()
    return self

  # --- layout -------------------------------------------------------------------------------
  def sum_duplicates(self, nse=None, remove_zeros=True):
    return bcoo_sum_duplicates(self, nse=nse)

  def sort_indices(self):
    return bcoo_sort_indices(self)

  def update_layout(self, *, n_batch=None, n_dense=None, on_inefficient="error"):
    return bcoo_update_layout(self, n_batch=n_batch, n_dense=n_dense,
                              on_inefficient=on_inefficient)

  def astype(self, *args, **kwargs):
    return BCOO((self.data.astype(*args, **kwargs), self.indices), shape=self.shape,
                indices_sorted=self.indices_sorted, unique_indices=self.unique_indices)

  def transpose(self, axes=None):
    axes = tuple(reversed(range(self.ndim))) if axes is None else tuple(axes)
    return bcoo_transpose(self, permutation=axes)

  def reshape(self, *args, **kwargs):
    sizes = args[0] if len(args) == 1 and not isinstance(args[0], int) else args
    sizes = tuple(sizes) if sizes else tuple(kwargs.pop("new_sizes"))
    if -1 in sizes:
      known = int(np.prod([s for s in sizes if s != -1]))
      sizes = tuple(self.size // known if s == -1 else s for s in sizes)
    return bcoo_reshape(self, new_sizes=sizes, **kwargs)

  def sum(self, axis=None):
    if axis is None:
      axis = tuple(range(self.ndim))
    out = bcoo_reduce_sum(self, axes=axis)
    return out.todense() if out.ndim == 0 else out

  # --- operators ----------------------------------------------------------------------------
  def __neg__(self):
    return BCOO((-self.data, self.indices), shape=self.shape,
                indices_sorted=self.indices_sorted, unique_indices=self.unique_indices)

  def __pos__(self):
    return self

  def __add__(self, other):
    return add_operands(self, other)

  def __radd__(self, other):
    return add_operands(other, self)

  def __sub__(self, other):
    return subtract_operands(self, other)

  def __rsub__(self, other):
    return subtract_operands(other, self)

  def __matmul__(self, other):
    return _matmul(self, other)

  def __rmatmul__(self, other):
    return _matmul(other, self)

  def __mul__(self, other):
    if isinstance(other, BCOO):
      return bcoo_multiply_sparse(self, other)
    return multiply_dense(self, other)

  __rmul__ = __mul__

  def __truediv__(self, other):
    other = jnp.asarray(other)
    if other.ndim:
      raise NotImplementedError("BCOO / array: division by a scalar only")
    return BCOO((self.data / other, self.indices), shape=self.shape,
                indices_sorted=self.indices_sorted, unique_indices=self.unique_indices)

  def __getitem__(self, idx):
    return _getitem(self, idx)


def _concat_entries(x, y, sign):
  if x.shape != y.shape:
    raise NotImplementedError("Addition between sparse matrices of different shapes.")
  if (x.n_batch, x.n_dense) != (y.n_batch, y.n_dense):
    raise NotImplementedError("Addition between sparse matrices with different batch or "
                              "dense dimensions.")
  nb = x.n_batch
  batch = x.shape[:nb]
  grow = lambda a: jnp.broadcast_to(a, batch + a.shape[nb:])
  data = jnp.concatenate([grow(x.data), grow(sign * y.data)], axis=nb)
  indices = jnp.concatenate([grow(x.indices), grow(y.indices)], axis=nb)
  return BCOO((data, indices), shape=x.shape)


def add_operands(x, y):
  """``x + y`` where either is a BCOO, as JAX's sparsify rule: sparse + sparse concatenates
  the entries; sparse + dense is dense where the dense operand has the result's shape (JAX
  will not densify a sparse array silently)."""
  if isinstance(x, BCOO) and isinstance(y, BCOO):
    return _concat_entries(x, y, 1)
  dense = y if isinstance(x, BCOO) else x
  if np.shape(dense) != np.broadcast_shapes(np.shape(x), np.shape(y)):
    raise NotImplementedError(
        "Addition between a sparse array X and a dense array Y is not implemented when the "
        "output shape is larger than Y.shape. This is to prevent silent densification of a "
        "large sparse array. If this is your intent, you can explicitly cast the sparse "
        "array to a dense matrix.")
  return (x.todense() if isinstance(x, BCOO) else x) + (
      y.todense() if isinstance(y, BCOO) else y)


def subtract_operands(x, y):
  """``x - y`` where either is a BCOO: sparse - sparse only, as JAX's sparsify rule."""
  if isinstance(x, BCOO) and isinstance(y, BCOO):
    return _concat_entries(x, y, -1)
  raise NotImplementedError("Subtraction between sparse and dense array.")


def _matmul(lhs, rhs):
  """`lhs @ rhs` where either is a BCOO, with jnp.matmul's semantics where at most one
  operand has more than 2 dimensions (its leading ones are batch dimensions)."""
  lhs_nd, rhs_nd = np.ndim(lhs) if not isinstance(lhs, BCOO) else lhs.ndim, (
      np.ndim(rhs) if not isinstance(rhs, BCOO) else rhs.ndim)
  if lhs_nd == 0 or rhs_nd == 0:
    raise TypeError("matmul: a 0-dimensional operand (use * for scalars)")
  if lhs_nd > 2 and rhs_nd > 2:
    raise NotImplementedError("BCOO @ with batch dimensions on both operands; use "
                              "bcoo_dot_general")
  if not isinstance(lhs, BCOO):
    lhs = jnp.asarray(lhs)
  if not isinstance(rhs, BCOO):
    rhs = jnp.asarray(rhs)
  contracting = (lhs_nd - 1,), (max(rhs_nd - 2, 0),)
  out = bcoo_dot_general(lhs, rhs, dimension_numbers=(contracting, ((), ())))
  if lhs_nd == 2 and rhs_nd > 2:  # (rows, *batch, cols) -> (*batch, rows, cols)
    out = jnp.moveaxis(out.todense() if isinstance(out, BCOO) else out, 0, -2)
  return out


def _getitem(mat, idx):
  """Indexing by integers and slices (a missing trailing index takes everything)."""
  idx = idx if isinstance(idx, tuple) else (idx,)
  if Ellipsis in idx:
    k = idx.index(Ellipsis)
    idx = idx[:k] + (slice(None),) * (mat.ndim - len(idx) + 1) + idx[k + 1:]
  if len(idx) > mat.ndim:
    raise IndexError(f"Too many indices: {mat.ndim}-dimensional array indexed with "
                     f"{len(idx)} indices")
  idx = idx + (slice(None),) * (mat.ndim - len(idx))
  starts, limits, strides, squeeze = [], [], [], []
  for d, (i, size) in enumerate(zip(idx, mat.shape)):
    if isinstance(i, slice):
      lo, hi, st = i.indices(size)
      if st < 0:
        raise NotImplementedError("BCOO indexing with a negative step")
      starts.append(lo), limits.append(max(lo, hi)), strides.append(st)
    else:
      try:
        i = operator.index(i)
      except TypeError:
        raise NotImplementedError(f"BCOO indexing with {type(i).__name__}: only integers "
                                  "and slices are supported") from None
      if not -size <= i < size:
        raise IndexError(f"index {i} is out of bounds for axis {d} with size {size}")
      i %= size
      starts.append(i), limits.append(i + 1), strides.append(1), squeeze.append(d)
  out = bcoo_slice(mat, start_indices=starts, limit_indices=limits, strides=strides)
  return bcoo_squeeze(out, dimensions=squeeze) if squeeze else out


# ---------------------------------------------------------------------------------------
# vmap over BCOO arguments and results: the mapped axis is a batch dimension

def batch_axis_to_elt(fmt, mat, axis, buffers, cont):
  """The element of a batched sparse `mat` (of format name `fmt`) along batch `axis`:
  its `buffers` (batch dimensions broadcast) mapped by `cont`, and the shape without it."""
  if axis is None:
    return None
  if not 0 <= axis < mat.n_batch:
    raise ValueError(f"Cannot map in_axis={axis} for {fmt} array with n_batch={mat.n_batch}. "
                     f"in_axes for batched {fmt} operations must correspond to a batch "
                     "dimension.")
  buffers = broadcast_batch(mat.n_batch, *buffers, shape=mat.shape)
  return [cont(b, axis) for b in buffers], mat.shape[:axis] + mat.shape[axis + 1:]


def batch_axis_from_elt(fmt, elt, axis, axis_size, buffers, cont):
  """The buffers and shape of sparse `elt`'s batch, stacked along batch `axis`."""
  if not 0 <= axis <= elt.n_batch:
    raise ValueError(f"{fmt}: cannot add out_axis={axis} for {fmt} array with n_batch="
                     f"{elt.n_batch}. {fmt} batch axes must be a contiguous block of leading "
                     "dimensions.")
  return ([cont(axis_size, b, axis) for b in buffers],
          elt.shape[:axis] + (axis_size,) + elt.shape[axis:])


def _bcoo_to_elt(cont, _, mat, axis):
  mapped = batch_axis_to_elt("BCOO", mat, axis, (mat.data, mat.indices), cont)
  if mapped is None:
    return mat
  bufs, shape = mapped
  return BCOO(bufs, shape=shape, indices_sorted=mat.indices_sorted,
              unique_indices=mat.unique_indices)


def _bcoo_from_elt(cont, axis_size, elt, axis):
  if axis is None:
    return elt
  bufs, shape = batch_axis_from_elt("BCOO", elt, axis, axis_size, (elt.data, elt.indices),
                                    cont)
  return BCOO(bufs, shape=shape, indices_sorted=elt.indices_sorted,
              unique_indices=elt.unique_indices)


register_vmappable(BCOO, int, int, _bcoo_to_elt, _bcoo_from_elt, None)


# ---------------------------------------------------------------------------------------
# Public functions

def bcoo_todense(mat: BCOO):
  """The dense array of `mat` (duplicate entries add up; padding is dropped)."""
  return bcoo_todense_p.bind(mat.data, mat.indices, spinfo=mat._info)


def bcoo_fromdense(mat, *, nse=None, n_batch: int = 0, n_dense: int = 0,
                   index_dtype=np.int32) -> BCOO:
  """The nonzero entries of `mat` (per batch, in row-major order); `nse`, needed under
  `jit`, pads with zero entries at out-of-range indices."""
  mat = jnp.asarray(mat)
  if nse is None:
    nse = count_stored(mat, n_batch, n_dense)
  nse = operator.index(nse)
  data, indices = bcoo_fromdense_p.bind(mat, nse=nse, n_batch=n_batch, n_dense=n_dense,
                                        index_dtype=np.dtype(index_dtype))
  return BCOO((data, indices), shape=mat.shape, indices_sorted=True, unique_indices=True)


def bcoo_extract(sparr: BCOO, arr, *, assume_unique=None) -> BCOO:
  """A BCOO with `sparr`'s indices holding `arr`'s values there."""
  if not isinstance(sparr, BCOO):
    raise TypeError(f"First argument to bcoo_extract should be a BCOO array. Got "
                    f"{type(sparr)=}")
  arr = jnp.asarray(arr)
  if arr.shape != sparr.shape:
    raise ValueError(f"shape mismatch: sparr.shape={sparr.shape} arr.shape={arr.shape}")
  if assume_unique is None:
    assume_unique = sparr.unique_indices
  data = bcoo_extract_p.bind(sparr.indices, arr, assume_unique=bool(assume_unique))
  return BCOO((data, sparr.indices), shape=sparr.shape, indices_sorted=sparr.indices_sorted,
              unique_indices=sparr.unique_indices)


def bcoo_transpose(mat: BCOO, *, permutation) -> BCOO:
  """`mat` with its dimensions permuted (within the batch, sparse and dense groups)."""
  permutation = tuple(operator.index(p) for p in permutation)
  if sorted(permutation) != list(range(mat.ndim)):
    raise ValueError(f"transpose permutation isn't a permutation of operand dimensions, got "
                     f"permutation {permutation} for operand shape {mat.shape}.")
  data, indices = bcoo_transpose_p.bind(mat.data, mat.indices, permutation=permutation,
                                        spinfo=mat._info)
  nb = mat.n_batch
  sorted_ = mat.indices_sorted and permutation[nb:nb + mat.n_sparse] == tuple(
      range(nb, nb + mat.n_sparse))
  return BCOO((data, indices), shape=tuple(mat.shape[p] for p in permutation),
              indices_sorted=sorted_, unique_indices=mat.unique_indices)


def bcoo_sort_indices(mat: BCOO) -> BCOO:
  """`mat` with each batch's entries in row-major order of their indices."""
  data, indices = bcoo_sort_indices_p.bind(mat.data, mat.indices, spinfo=mat._info)
  return BCOO((data, indices), shape=mat.shape, indices_sorted=True,
              unique_indices=mat.unique_indices)


def bcoo_sum_duplicates(mat: BCOO, nse=None) -> BCOO:
  """`mat` with entries of equal indices summed, sorted; `nse` (needed under `jit`)
  defaults to the largest number of distinct in-range indices of a batch."""
  if nse is None:
    nse = count_unique(mat.indices, mat.shape)
  data, indices = bcoo_sum_duplicates_p.bind(mat.data, mat.indices, spinfo=mat._info,
                                             nse=operator.index(nse))
  return BCOO((data, indices), shape=mat.shape, indices_sorted=True, unique_indices=True)


def bcoo_dot_general(lhs, rhs, *, dimension_numbers, precision=None,
                     preferred_element_type=None, out_sharding=None):
  """`lax.dot_general` where either operand (or both) is a BCOO; sparse by sparse gives a
  BCOO, otherwise a dense array."""
  if out_sharding is not None:
    raise NotImplementedError("bcoo_dot_general: out_sharding")
  (lc, rc), (lb, rb) = dimension_numbers
  dn = ((tuple(lc), tuple(rc)), (tuple(lb), tuple(rb)))
  if isinstance(lhs, BCOO) and isinstance(rhs, BCOO):
    dtype = preferred_element_type or dtypes.result_type(lhs.dtype, rhs.dtype)
    data, indices = bcoo_spdot_general_p.bind(
        lhs.data, lhs.indices, rhs.data, rhs.indices, lhs_spinfo=lhs._info,
        rhs_spinfo=rhs._info, dimension_numbers=dn, preferred_element_type=np.dtype(dtype))
    shape = _dot_shape(lhs.shape, rhs.shape, dn)
    return BCOO((data, indices), shape=shape)
  if isinstance(lhs, BCOO):
    rhs = jnp.asarray(rhs)
    dtype = preferred_element_type or dtypes.result_type(lhs.dtype, rhs.dtype)
    return bcoo_dot_general_p.bind(lhs.data, lhs.indices, rhs, dimension_numbers=dn,
                                   preferred_element_type=np.dtype(dtype),
                                   lhs_spinfo=lhs._info)
  # dense @ sparse: the sparse product with the operands swapped, its result's dimensions
  # put back in dot_general's order (batch, lhs free, rhs free)
  lhs = jnp.asarray(lhs)
  out = bcoo_dot_general(rhs, lhs, dimension_numbers=((rc, lc), (rb, lb)),
                         preferred_element_type=preferred_element_type)
  n_b = len(lb)
  n_rhs_free = rhs.ndim - len(rc) - len(rb)
  n_lhs_free = lhs.ndim - len(lc) - len(lb)
  perm = (list(range(n_b)) + list(range(n_b + n_rhs_free, n_b + n_rhs_free + n_lhs_free))
          + list(range(n_b, n_b + n_rhs_free)))
  return out.transpose(perm)


def _dot_shape(lhs_shape, rhs_shape, dn):
  (lc, rc), (lb, rb) = dn
  return (tuple(lhs_shape[d] for d in lb)
          + tuple(s for d, s in enumerate(lhs_shape) if d not in lc + lb)
          + tuple(s for d, s in enumerate(rhs_shape) if d not in rc + rb))


def bcoo_dot_general_sampled(A, B, indices, *, dimension_numbers):
  """`lax.dot_general(A, B)` read at `indices`: the data of a BCOO with those indices."""
  (lc, rc), (lb, rb) = dimension_numbers
  dn = ((tuple(lc), tuple(rc)), (tuple(lb), tuple(rb)))
  return bcoo_dot_general_sampled_p.bind(jnp.asarray(A), jnp.asarray(B),
                                         jnp.asarray(indices), dimension_numbers=dn)


def bcoo_gather(operand, start_indices, dimension_numbers, slice_sizes, *,
                unique_indices=False, indices_are_sorted=False, mode=None, fill_value=None):
  raise NotImplementedError("bcoo_gather is not implemented in xjax: index a BCOO with "
                            "integers and slices, or use bcoo_slice/bcoo_dynamic_slice")


def bcoo_conv_general_dilated(lhs, rhs, *, window_strides, padding, **kwargs):
  raise NotImplementedError("bcoo_conv_general_dilated is not implemented in xjax")


__all__ = [
    "BCOO", "bcoo_broadcast_in_dim", "bcoo_concatenate", "bcoo_conv_general_dilated",
    "bcoo_dot_general", "bcoo_dot_general_p", "bcoo_dot_general_sampled",
    "bcoo_dot_general_sampled_p", "bcoo_dynamic_slice", "bcoo_extract", "bcoo_extract_p",
    "bcoo_fromdense", "bcoo_fromdense_p", "bcoo_gather", "bcoo_multiply_dense",
    "bcoo_multiply_sparse", "bcoo_reduce_sum", "bcoo_reshape", "bcoo_rev", "bcoo_slice",
    "bcoo_sort_indices", "bcoo_sort_indices_p", "bcoo_spdot_general_p", "bcoo_squeeze",
    "bcoo_sum_duplicates", "bcoo_sum_duplicates_p", "bcoo_todense", "bcoo_todense_p",
    "bcoo_transpose", "bcoo_transpose_p", "bcoo_update_layout"]
