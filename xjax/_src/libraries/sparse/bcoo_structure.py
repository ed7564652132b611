"""Structural operations on BCOO arrays, composed from the layout primitives and lax/jnp
operations on `data` and `indices`: reductions, elementwise products, reshaping, slicing,
concatenation, reversal and layout changes.  Each builds its result with `type(mat)`."""
from __future__ import annotations

import math
import operator
import warnings

import numpy as np

from xjax._src.primitives.lax.shapes import broadcast_in_dim, dynamic_slice, slice as lax_slice
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.sparse.batched import broadcast_batch, nfold_vmap
from xjax._src.libraries.sparse.bcoo_layout import (bcoo_extract_p, bcoo_sum_duplicates_p)
from xjax._src.libraries.sparse.sparse_array import (SparseEfficiencyError,
                                                     SparseEfficiencyWarning, SparseInfo)


def _like(mat, data, indices, shape, **flags):
  return type(mat)((data, indices), shape=shape, **flags)


def _normalize_axes(axes, ndim):
  axes = (axes,) if isinstance(axes, int) else tuple(axes)
  return tuple(sorted({operator.index(a) % ndim for a in axes}))


def bcoo_reduce_sum(mat, *, axes):
  """The sum of `mat` over `axes`, a BCOO (entries of summed sparse dimensions add up when
  converted, without being merged)."""
  axes = _normalize_axes(axes, mat.ndim)
  nb, ns = mat.n_batch, mat.n_sparse
  data, indices = broadcast_batch(nb, mat.data, mat.indices, shape=mat.shape)
  batch_axes = [a for a in axes if a < nb]
  if batch_axes:  # the summed batch dimensions join the entries
    keep = [a for a in range(nb) if a not in batch_axes]
    data = data.transpose(keep + batch_axes + list(range(nb, data.ndim)))
    indices = indices.transpose(keep + batch_axes + [nb, nb + 1])
    kept = tuple(data.shape[:len(keep)])
    data = data.reshape(kept + (-1,) + data.shape[nb + 1:])
    indices = indices.reshape(kept + (-1, ns))
  sparse_keep = [k for k in range(ns) if nb + k not in axes]
  indices = indices[..., sparse_keep]
  dense_axes = tuple(a - ns - len(batch_axes) + 1 for a in axes if a >= nb + ns)
  if dense_axes:
    data = data.sum(dense_axes)
  shape = tuple(s for d, s in enumerate(mat.shape) if d not in axes)
  return _like(mat, data, indices, shape)


def bcoo_multiply_dense(sp_mat, v):
  """`sp_mat * v` for a dense `v` broadcasting to `sp_mat`'s shape: the product's data, an
  array for `sp_mat`'s indices (as JAX's; `multiply_dense` gives the BCOO)."""
  v = jnp.asarray(v)
  shape = jnp.broadcast_shapes(sp_mat.shape, v.shape)
  if shape != sp_mat.shape:
    raise NotImplementedError(f"bcoo_multiply_dense: the dense operand of shape {v.shape} "
                              f"would broadcast the sparse one of shape {sp_mat.shape}")
  dense = jnp.broadcast_to(v, shape)
  return sp_mat.data * bcoo_extract_p.bind(sp_mat.indices, dense, assume_unique=True)


def multiply_dense(sp_mat, v):
  """`sp_mat * v` for a dense `v`: a BCOO of `sp_mat`'s indices."""
  return _like(sp_mat, bcoo_multiply_dense(sp_mat, v), sp_mat.indices, sp_mat.shape,
               indices_sorted=sp_mat.indices_sorted, unique_indices=sp_mat.unique_indices)


def _multiply_one(ld, li, rd, ri, *, sparse_shape):
  nl, nr, ns = li.shape[0], ri.shape[0], li.shape[1]
  inside = lambda i: jnp.all((i >= 0) & (i < jnp.asarray(sparse_shape, i.dtype)), axis=1)
  match = (inside(li)[:, None] & inside(ri)[None, :]
           & jnp.all(li[:, None, :] == ri[None, :, :], axis=-1))
  dense = ld.shape[1:]
  data = ld[:, None] * rd[None, :]
  data = jnp.where(match.reshape(match.shape + (1,) * len(dense)), data, 0)
  idx = jnp.where(match[..., None], jnp.broadcast_to(li[:, None], (nl, nr, ns)),
                  jnp.asarray(sparse_shape, li.dtype))
  # matching pairs first, in pair order
  order = jnp.argsort(~match.reshape(-1), stable=True)
  return data.reshape((nl * nr,) + dense)[order], idx.reshape(nl * nr, ns)[order]


def bcoo_multiply_sparse(lhs, rhs):
  """The elementwise product of two BCOO arrays of one shape and layout: an entry per pair
  of entries (those whose indices differ are padding)."""
  if lhs.shape != rhs.shape:
    raise NotImplementedError(f"bcoo_multiply_sparse: operands of shapes {lhs.shape} and "
                              f"{rhs.shape} (broadcasting is not supported)")
  if (lhs.n_batch, lhs.n_dense) != (rhs.n_batch, rhs.n_dense):
    raise NotImplementedError("bcoo_multiply_sparse: operands with different n_batch or "
                              "n_dense; use bcoo_update_layout to match them")
  nb = lhs.n_batch
  args = broadcast_batch(nb, lhs.data, lhs.indices, rhs.data, rhs.indices)
  fn = lambda a, b, c, d: _multiply_one(a, b, c, d,
                                        sparse_shape=lhs.shape[nb:nb + lhs.n_sparse])
  data, indices = nfold_vmap(fn, nb)(*args)
  return _like(lhs, data, indices, lhs.shape)


def bcoo_broadcast_in_dim(mat, *, shape, broadcast_dimensions):
  """`mat` broadcast to `shape` (as `lax.broadcast_in_dim`), as JAX lays it out: new
  dimensions before the first sparse (or dense) one are batch dimensions, those after the
  first dense one dense (when `mat` has dense dimensions), and the others sparse, of size 1
  (their indices 0)."""
  shape = tuple(shape)
  bdims = tuple(broadcast_dimensions)
  if len(bdims) != mat.ndim or list(bdims) != sorted(bdims):
    raise ValueError(f"bcoo_broadcast_in_dim: invalid broadcast_dimensions {bdims} for an "
                     f"operand of shape {mat.shape}")
  nb, ns, nd = mat.n_batch, mat.n_sparse, mat.n_dense
  batch_to, sparse_to, dense_to = bdims[:nb], bdims[nb:nb + ns], bdims[nb + ns:]
  if max(batch_to, default=0) > min(sparse_to, default=len(shape)):
    raise ValueError("Cannot mix batch and sparse dimensions during broadcast_in_dim")
  if max(sparse_to, default=0) > min(dense_to, default=len(shape)):
    raise ValueError("Cannot mix sparse and dense dimensions during broadcast_in_dim")
  new_nb = min(bdims[nb:], default=len(shape))
  new_nd = len(shape) - min(dense_to) if nd else 0
  new_ns = len(shape) - new_nb - new_nd
  if math.prod(mat.shape[nb:nb + ns]) != math.prod(shape[new_nb:new_nb + new_ns]):
    raise NotImplementedError("Adding sparse dimensions with lengths != 1")
  data, indices = mat.data, mat.indices
  if (new_nb, new_nd) != (nb, nd):
    data = broadcast_in_dim(data, (*shape[:new_nb], mat.nse, *shape[new_nb + new_ns:]),
                            (*batch_to, new_nb, *(d + 1 - new_ns for d in dense_to)))
    indices = broadcast_in_dim(indices, (*shape[:new_nb], mat.nse, ns),
                               (*batch_to, new_nb, new_nb + 1))
  if new_ns != ns:   # new sparse dimensions of size 1: index 0
    columns = jnp.asarray([d - new_nb for d in sparse_to], np.int32)
    indices = jnp.zeros((*indices.shape[:-1], new_ns), indices.dtype).at[..., columns].set(
        indices)
  return _like(mat, data, indices, shape, indices_sorted=mat.indices_sorted,
               unique_indices=mat.unique_indices)


def bcoo_concatenate(operands, *, dimension):
  """Concatenation along a sparse dimension (entries joined, indices shifted) or a batch
  dimension (operands of one nse)."""
  operands = list(operands)
  first = operands[0]
  dimension = operator.index(dimension) % first.ndim
  if len({(op.n_batch, op.n_dense) for op in operands}) > 1:
    raise ValueError("bcoo_concatenate: operands must have the same n_batch and n_dense")
  nb, ns = first.n_batch, first.n_sparse
  shape = list(first.shape)
  shape[dimension] = sum(op.shape[dimension] for op in operands)
  if nb <= dimension < nb + ns:
    k = dimension - nb
    offsets = np.cumsum([0] + [op.shape[dimension] for op in operands[:-1]])
    pairs = [broadcast_batch(nb, op.data, op.indices, shape=op.shape) for op in operands]
    batch = tuple(max(s) for s in zip(*(d.shape[:nb] for d, _ in pairs))) if nb else ()
    datas = [jnp.broadcast_to(d, batch + d.shape[nb:]) for d, _ in pairs]
    idxs = [jnp.broadcast_to(i.at[..., k].add(int(o)), batch + i.shape[nb:])
            for (_, i), o in zip(pairs, offsets)]
    return _like(first, jnp.concatenate(datas, axis=nb), jnp.concatenate(idxs, axis=nb),
                 tuple(shape))
  if dimension < nb:
    if len({op.nse for op in operands}) > 1:
      raise NotImplementedError("bcoo_concatenate along a batch dimension of operands with "
                                "different nse")
    datas = [jnp.broadcast_to(op.data, op.shape[:nb] + op.data.shape[nb:]) for op in operands]
    idxs = [jnp.broadcast_to(op.indices, op.shape[:nb] + op.indices.shape[nb:])
            for op in operands]
    return _like(first, jnp.concatenate(datas, axis=dimension),
                 jnp.concatenate(idxs, axis=dimension), tuple(shape))
  raise NotImplementedError("bcoo_concatenate along a dense dimension")


def bcoo_rev(operand, dimensions):
  """`operand` reversed along `dimensions` (out-of-range indices stay out of range)."""
  dims = _normalize_axes(dimensions, operand.ndim)
  nb, ns = operand.n_batch, operand.n_sparse
  data, indices = operand.data, operand.indices
  batch = [d for d in dims if d < nb]
  if batch:
    data, indices = broadcast_batch(nb, data, indices)
    data, indices = jnp.flip(data, batch), jnp.flip(indices, batch)
  for d in dims:
    if nb <= d < nb + ns:
      col, size = indices[..., d - nb], operand.shape[d]
      indices = indices.at[..., d - nb].set(jnp.where((col >= 0) & (col < size),
                                                      size - 1 - col, col))
  dense = [d - ns + 1 for d in dims if d >= nb + ns]
  if dense:
    data = jnp.flip(data, dense)
  return _like(operand, data, indices, operand.shape)


def _shrink_nse(mat, nb, ns):
  """Merge entries (summing duplicates) when there are more than positions."""
  size = math.prod(mat.shape[nb:nb + ns])
  if mat.nse <= size:
    return mat
  data, indices = bcoo_sum_duplicates_p.bind(mat.data, mat.indices,
                                             spinfo=SparseInfo(mat.shape), nse=size)
  return _like(mat, data, indices, mat.shape, indices_sorted=True, unique_indices=True)


def _window(mat, starts, sizes, strides=None):
  """Entries of the window `starts` + `sizes` (with `strides`), re-indexed; others padding."""
  nb, ns = mat.n_batch, mat.n_sparse
  data, indices = broadcast_batch(nb, mat.data, mat.indices, shape=mat.shape)
  strides = strides or (1,) * mat.ndim
  if nb:
    data = lax_slice(data, tuple(starts[:nb]) + (0,) * (data.ndim - nb),
                     tuple(s + (z - 1) * t + 1 for s, z, t in zip(starts, sizes, strides))[:nb]
                     + data.shape[nb:], tuple(strides[:nb]) + (1,) * (data.ndim - nb))
    indices = lax_slice(indices, tuple(starts[:nb]) + (0, 0),
                        tuple(s + (z - 1) * t + 1 for s, z, t in zip(starts, sizes, strides))[
                            :nb] + indices.shape[nb:], tuple(strides[:nb]) + (1, 1))
  if ns:
    start = jnp.asarray(starts[nb:nb + ns], indices.dtype)
    size = jnp.asarray(sizes[nb:nb + ns], indices.dtype)
    step = jnp.asarray(strides[nb:nb + ns], indices.dtype)
    shifted = indices - start
    new = shifted // step
    keep = jnp.all((shifted >= 0) & (shifted % step == 0) & (new < size), axis=-1)
    indices = jnp.where(keep[..., None], new, size)
    data = jnp.where(keep.reshape(keep.shape + (1,) * (data.ndim - nb - 1)), data, 0)
  if mat.n_dense:
    lo = tuple(starts[nb + ns:])
    hi = tuple(s + (z - 1) * t + 1 for s, z, t in zip(lo, sizes[nb + ns:], strides[nb + ns:]))
    data = lax_slice(data, (0,) * (nb + 1) + lo, data.shape[:nb + 1] + hi,
                     (1,) * (nb + 1) + tuple(strides[nb + ns:]))
  return _shrink_nse(_like(mat, data, indices, tuple(sizes)), nb, ns)


def bcoo_slice(mat, *, start_indices, limit_indices, strides=None):
  """`lax.slice` of a BCOO: entries outside the window become padding."""
  starts = tuple(operator.index(s) for s in start_indices)
  limits = tuple(operator.index(s) for s in limit_indices)
  strides = tuple(operator.index(s) for s in strides) if strides is not None else None
  if len(starts) != mat.ndim or len(limits) != mat.ndim:
    raise ValueError(f"bcoo_slice: start_indices and limit_indices must have length "
                     f"{mat.ndim}, got {starts} and {limits}")
  steps = strides or (1,) * mat.ndim
  sizes = tuple(max(0, -(-(hi - lo) // st)) for lo, hi, st in zip(starts, limits, steps))
  return _window(mat, starts, sizes, strides)


def bcoo_dynamic_slice(mat, start_indices, slice_sizes):
  """`lax.dynamic_slice` of a BCOO (starts clamped into range as lax does)."""
  sizes = tuple(operator.index(s) for s in slice_sizes)
  starts = [jnp.clip(jnp.asarray(s), 0, d - z) for s, d, z in zip(start_indices, mat.shape,
                                                                    sizes)]
  nb, ns = mat.n_batch, mat.n_sparse
  data, indices = broadcast_batch(nb, mat.data, mat.indices, shape=mat.shape)
  zero = jnp.zeros((), starts[0].dtype) if starts else 0
  if nb:
    data = dynamic_slice(data, starts[:nb] + [zero] * (data.ndim - nb),
                             sizes[:nb] + data.shape[nb:])
    indices = dynamic_slice(indices, starts[:nb] + [zero, zero],
                                sizes[:nb] + indices.shape[nb:])
  if ns:
    start = jnp.stack(starts[nb:nb + ns]).astype(indices.dtype)
    size = jnp.asarray(sizes[nb:nb + ns], indices.dtype)
    new = indices - start
    keep = jnp.all((new >= 0) & (new < size), axis=-1)
    indices = jnp.where(keep[..., None], new, size)
    data = jnp.where(keep.reshape(keep.shape + (1,) * (data.ndim - nb - 1)), data, 0)
  if mat.n_dense:
    data = dynamic_slice(data, [zero] * (nb + 1) + starts[nb + ns:],
                             data.shape[:nb + 1] + sizes[nb + ns:])
  return _shrink_nse(_like(mat, data, indices, sizes), nb, ns)


def bcoo_squeeze(arr, *, dimensions):
  """`arr` without its size-1 `dimensions`."""
  dims = _normalize_axes(dimensions, arr.ndim)
  if any(arr.shape[d] != 1 for d in dims):
    raise ValueError(f"cannot select an axis to squeeze out which has size not equal to "
                     f"one, got shape={arr.shape} and dimensions={dimensions}")
  nb, ns = arr.n_batch, arr.n_sparse
  data, indices = arr.data, arr.indices
  batch = tuple(d for d in dims if d < nb)
  data, indices = data.squeeze(batch), indices.squeeze(batch)
  indices = indices[..., [k for k in range(ns) if nb + k not in dims]]
  dense = tuple(d - ns - len(batch) + 1 for d in dims if d >= nb + ns)
  data = data.squeeze(dense)
  shape = tuple(s for d, s in enumerate(arr.shape) if d not in dims)
  return _like(arr, data, indices, shape, indices_sorted=arr.indices_sorted,
               unique_indices=arr.unique_indices)


def bcoo_reshape(mat, *, new_sizes, dimensions=None):
  """`mat` reshaped (row-major) within its sparse dimensions; batch and dense dimensions
  must keep their sizes."""
  if dimensions is not None and tuple(dimensions) != tuple(range(mat.ndim)):
    raise NotImplementedError("bcoo_reshape with a dimensions permutation")
  new_sizes = tuple(operator.index(s) for s in new_sizes)
  if math.prod(new_sizes) != mat.size:
    raise TypeError(f"reshape total size must be unchanged, got new_sizes {new_sizes} for "
                    f"shape {mat.shape}")
  nb, ns, nd = mat.n_batch, mat.n_sparse, mat.n_dense
  batch, dense = mat.shape[:nb], mat.shape[nb + ns:]
  if new_sizes[:nb] != batch or (nd and new_sizes[len(new_sizes) - nd:] != dense):
    raise NotImplementedError(f"bcoo_reshape: reshaping batch or dense dimensions ({mat.shape}"
                              f" to {new_sizes}); only the sparse dimensions may change")
  sparse_old = mat.shape[nb:nb + ns]
  sparse_new = new_sizes[nb:len(new_sizes) - nd]
  idx = mat.indices
  inside = jnp.all(idx < jnp.asarray(sparse_old, idx.dtype), axis=-1)
  flat = jnp.zeros(idx.shape[:-1], idx.dtype)
  for k, s in enumerate(sparse_old):
    flat = flat * s + idx[..., k]
  cols = []
  for s in reversed(sparse_new):
    cols.append(flat % s)
    flat = flat // s
  new = jnp.stack(cols[::-1], axis=-1) if cols else idx[..., :0]
  new = jnp.where(inside[..., None], new, jnp.asarray(sparse_new, idx.dtype))
  return _like(mat, mat.data, new, new_sizes)


def bcoo_update_layout(mat, *, n_batch=None, n_dense=None, on_inefficient="error"):
  """`mat` with `n_batch` batch and `n_dense` dense dimensions.  Moving sparse dimensions
  to batch or dense ones stores more entries: SparseEfficiencyError by default, a warning
  with `on_inefficient='warn'`, silently with None."""
  n_batch = mat.n_batch if n_batch is None else operator.index(n_batch)
  n_dense = mat.n_dense if n_dense is None else operator.index(n_dense)
  if n_batch + n_dense > mat.ndim or n_batch < 0 or n_dense < 0:
    raise ValueError(f"bcoo_update_layout: n_batch={n_batch} and n_dense={n_dense} for an "
                     f"array of {mat.ndim} dimensions")

  def inefficient(what, old, new):
    msg = (f"For matrix of shape {mat.shape}, {what} from {old} to {new} results in "
           "inefficient storage. To disable this error, set the on_inefficient argument of "
           "bcoo_update_layout to 'warn' or None.")
    if on_inefficient == "error":
      raise SparseEfficiencyError(msg)
    if on_inefficient == "warn":
      warnings.warn(msg, SparseEfficiencyWarning, stacklevel=3)
  if n_batch > mat.n_batch:
    inefficient("increasing n_batch", mat.n_batch, n_batch)
  if n_dense > mat.n_dense:
    inefficient("increasing n_dense", mat.n_dense, n_dense)
  while mat.n_dense > n_dense:
    mat = _dense_to_sparse(mat)
  while mat.n_batch > n_batch:
    mat = _batch_to_sparse(mat)
  while mat.n_batch < n_batch:
    mat = _sparse_to_batch(mat)
  while mat.n_dense < n_dense:
    mat = _sparse_to_dense(mat)
  return mat


def _batch_to_sparse(mat):
  """The last batch dimension becomes the first sparse one."""
  nb = mat.n_batch
  data, indices = broadcast_batch(nb, mat.data, mat.indices, shape=mat.shape)
  size = mat.shape[nb - 1]
  pos = jnp.broadcast_to(jnp.arange(size, dtype=indices.dtype).reshape(
      (size, 1, 1)), indices.shape[nb - 1:-1] + (1,))
  pos = jnp.broadcast_to(pos, indices.shape[:-1] + (1,))
  indices = jnp.concatenate([pos, indices], axis=-1)
  data = data.reshape(data.shape[:nb - 1] + (-1,) + data.shape[nb + 1:])
  indices = indices.reshape(indices.shape[:nb - 1] + (-1, indices.shape[-1]))
  return _like(mat, data, indices, mat.shape)


def _sparse_to_batch(mat):
  """The first sparse dimension becomes the last batch one (each batch keeps every entry,
  zeroed where it belongs to another)."""
  nb = mat.n_batch
  size = mat.shape[nb]
  first = mat.indices[..., 0]
  rows = jnp.arange(size, dtype=first.dtype).reshape((size, 1))
  own = jnp.expand_dims(first, nb) == rows
  data = jnp.expand_dims(mat.data, nb)
  data = jnp.where(own.reshape(own.shape + (1,) * mat.n_dense), data, 0)
  indices = jnp.expand_dims(mat.indices[..., 1:], nb)
  indices = jnp.broadcast_to(indices, indices.shape[:nb] + (size,) + indices.shape[nb + 1:])
  return _like(mat, data, indices, mat.shape)


def _dense_to_sparse(mat):
  """The first dense dimension becomes the last sparse one."""
  nb, ns = mat.n_batch, mat.n_sparse
  size = mat.shape[nb + ns]
  data = mat.data.reshape(mat.data.shape[:nb] + (-1,) + mat.data.shape[nb + 2:])
  idx = jnp.broadcast_to(jnp.expand_dims(mat.indices, nb + 1),
                         mat.indices.shape[:nb + 1] + (size, ns))
  col = jnp.broadcast_to(jnp.arange(size, dtype=idx.dtype)[:, None], idx.shape[:-1] + (1,))
  idx = jnp.concatenate([idx, col], axis=-1)
  return _like(mat, data, idx.reshape(idx.shape[:nb] + (-1, ns + 1)), mat.shape)


def _sparse_to_dense(mat):
  """The last sparse dimension becomes the first dense one."""
  nb, ns = mat.n_batch, mat.n_sparse
  size = mat.shape[nb + ns - 1]
  last = mat.indices[..., -1]
  own = last[..., None] == jnp.arange(size, dtype=last.dtype)
  data = jnp.expand_dims(mat.data, nb + 1)
  data = jnp.where(own.reshape(own.shape + (1,) * mat.n_dense), data, 0)
  return _like(mat, data, mat.indices[..., :-1], mat.shape)
