"""The BCOO layout's primitives, on its arrays: `data` of shape `batch + (nse,) + dense` and
`indices` of shape `batch + (nse, n_sparse)`.  Conversions (`bcoo_todense`, `bcoo_fromdense`,
`bcoo_extract`), `bcoo_transpose`, `bcoo_sort_indices` and `bcoo_sum_duplicates`, each with
its shape rule, lowering (lax operations, mapped over the batch dimensions), JVP, transpose
and batching rules.  Entries whose index is out of range (at least the dimension's size)
are padding: conversions drop them."""
from __future__ import annotations

import math

import numpy as np

from xjax._src.core.avals import ShapedArray, tangent_aval
from xjax._src.core.concrete import concrete_or_error
from xjax._src.core.values import get_aval
from xjax._src.interpreters import ad, batching
from xjax._src.interpreters.ad import Zero
from xjax._src.api.transformations import vjp
from xjax._src.primitives.lax.primitive_builders import lowering_from, standard_primitive
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.sparse.batched import broadcast_batch, nfold_vmap
from xjax._src.libraries.sparse.sparse_array import SparseInfo


def layout(data_shape, indices_shape, shape):
  """(n_batch, n_sparse, n_dense, nse) of a BCOO layout, checked against `shape`."""
  n_batch = len(indices_shape) - 2
  if n_batch < 0:
    raise ValueError(f"BCOO: indices must have at least 2 dimensions, got {indices_shape}")
  n_sparse = indices_shape[-1]
  nse = indices_shape[-2]
  n_dense = len(data_shape) - n_batch - 1
  if n_dense < 0 or n_batch + n_sparse + n_dense != len(shape):
    raise ValueError("Invalid inputs: data of shape {}, indices of shape {} do not describe "
                     "a BCOO array of shape {}".format(data_shape, indices_shape, shape))
  if data_shape[n_batch] != nse:
    raise ValueError(f"BCOO: data has {data_shape[n_batch]} entries and indices {nse}")
  for d, i, s in zip(data_shape[:n_batch], indices_shape[:n_batch], shape[:n_batch]):
    if not ({d, i} <= {1, s}):
      raise ValueError(f"BCOO: batch dimensions of data {data_shape[:n_batch]} and indices "
                       f"{indices_shape[:n_batch]} do not match shape {shape[:n_batch]}")
  if tuple(data_shape[n_batch + 1:]) != tuple(shape[n_batch + n_sparse:]):
    raise ValueError(f"BCOO: dense dimensions of data {data_shape[n_batch + 1:]} do not "
                     f"match shape {shape[n_batch + n_sparse:]}")
  return n_batch, n_sparse, n_dense, nse


def _sparse_shape(spinfo, indices):
  n_batch = indices.ndim - 2
  return spinfo.shape[n_batch:n_batch + indices.shape[-1]]


def _zero_tangent(x):
  return Zero(tangent_aval(get_aval(x)))


def _front(args, dims, size):
  return [batching.bdim_to_front(x, d, size) for x, d in zip(args, dims)]


def linear_in_data(prim, impl) -> None:
  """JVP and transpose rules of a primitive returning `(data, indices)` linear in its first
  operand `data` (the others, indices and the like, are not differentiated): the tangent is
  the primitive on the tangent data, the transpose the pullback of its lowering."""
  def jvp(primals, tangents, **params):
    outs = prim.bind(*primals, **params)
    if type(tangents[0]) is Zero:
      return outs, [_zero_tangent(o) for o in outs]
    t = prim.bind(tangents[0], *primals[1:], **params)[0]
    return outs, [t] + [_zero_tangent(o) for o in outs[1:]]

  def transpose(cts, data, *rest, **params):
    ct = cts[0]
    if type(ct) is Zero:
      return [Zero(data.aval)] + [None] * len(rest)
    zeros = jnp.zeros(data.aval.shape, data.aval.dtype)
    _, pullback = vjp(lambda d: impl(d, *rest, **params)[0], zeros)
    return [pullback(ct)[0]] + [None] * len(rest)
  prim.jvp = jvp
  prim.transpose = transpose


# ---------------------------------------------------------------------------------------
# Grouping equal indices (used by extract and sum_duplicates)

def _grouped(indices, sparse_shape):
  """For (nse, n_sparse) indices: out-of-range rows set to `sparse_shape`, the sorting
  order, the sorted rows and whether each sorted row starts a new group."""
  bound = jnp.asarray(sparse_shape, indices.dtype)
  oob = jnp.any((indices >= bound) | (indices < 0), axis=1, keepdims=True)
  idx = jnp.where(oob, bound, indices)
  n = idx.shape[0]
  if idx.shape[1] == 0:
    order = jnp.arange(n)
  else:
    order = jnp.lexsort(tuple(idx[:, k] for k in reversed(range(idx.shape[1]))))
  srt = idx[order]
  new = jnp.concatenate([jnp.ones(min(n, 1), bool), jnp.any(srt[1:] != srt[:-1], axis=1)])
  return order, srt, new


# ---------------------------------------------------------------------------------------
# bcoo_todense

def _todense_one(data, indices, *, sparse_shape):
  dense = data.shape[1:]
  if indices.shape[1] == 0:
    return data.sum(0)
  out = jnp.zeros(tuple(sparse_shape) + dense, data.dtype)
  return out.at[tuple(indices[:, k] for k in range(indices.shape[1]))].add(data, mode="drop")


def _todense_impl(data, indices, *, spinfo):
  n_batch = indices.ndim - 2
  data, indices = broadcast_batch(n_batch, data, indices)
  fn = lambda d, i: _todense_one(d, i, sparse_shape=_sparse_shape(spinfo, indices))
  out = nfold_vmap(fn, n_batch)(data, indices)
  return jnp.broadcast_to(out, spinfo.shape)


def _todense_abstract_eval(data, indices, *, spinfo):
  layout(data.shape, indices.shape, spinfo.shape)
  return ShapedArray(spinfo.shape, data.dtype)


def _todense_jvp(primals, tangents, *, spinfo):
  data, indices = primals
  out = bcoo_todense_p.bind(data, indices, spinfo=spinfo)
  if type(tangents[0]) is Zero:
    return out, _zero_tangent(out)
  return out, bcoo_todense_p.bind(tangents[0], indices, spinfo=spinfo)


def _todense_transpose(ct, data, indices, *, spinfo):
  assert ad.is_undefined(data) and not ad.is_undefined(indices)
  if type(ct) is Zero:
    return [Zero(data.aval), None]
  ct_data = bcoo_extract_p.bind(indices, ct, assume_unique=True)
  if ct_data.shape != data.aval.shape:  # data broadcast along batch dimensions
    axes = tuple(k for k, (a, b) in enumerate(zip(data.aval.shape, ct_data.shape)) if a != b)
    ct_data = ct_data.sum(axes, keepdims=True)
  return [ct_data.astype(data.aval.dtype), None]


def _todense_batch(axis, args, dims, *, spinfo):
  data, indices = _front(args, dims, axis.size)
  return bcoo_todense_p.bind(data, indices, spinfo=SparseInfo((axis.size,) + spinfo.shape)), 0


bcoo_todense_p = standard_primitive("bcoo_todense", _todense_abstract_eval,
                                    lowering_from(_todense_impl))
bcoo_todense_p.jvp = _todense_jvp
bcoo_todense_p.transpose = _todense_transpose
bcoo_todense_p.batch = _todense_batch


# ---------------------------------------------------------------------------------------
# bcoo_fromdense

def count_stored(mat, n_batch: int, n_dense: int) -> int:
  """The largest number of nonzero entries (over the sparse dimensions) of a batch."""
  mat = np.asarray(concrete_or_error(mat, "The error arose in bcoo_fromdense: nse must be "
                                     "specified when using the function within jit"))
  mask = mat != 0
  if n_dense:
    mask = mask.any(axis=tuple(range(mat.ndim - n_dense, mat.ndim)))
  counts = mask.reshape(mask.shape[:n_batch] + (-1,)).sum(-1)
  return int(counts.max(initial=0))


def _fromdense_one(mat, *, nse, n_sparse, n_dense, index_dtype):
  sparse_shape = mat.shape[:n_sparse]
  if n_sparse == 0:
    data = jnp.broadcast_to(mat[None], (nse,) + mat.shape)
    return data, jnp.zeros((nse, 0), index_dtype)
  mask = mat != 0
  if n_dense:
    mask = mask.any(axis=tuple(range(n_sparse, mat.ndim)))
  positions = jnp.nonzero(mask, size=nse, fill_value=tuple(sparse_shape))
  indices = jnp.stack(positions, axis=1).astype(index_dtype)
  data = mat.at[positions].get(mode="fill", fill_value=0)
  return data, indices


def _fromdense_impl(mat, *, nse, n_batch, n_dense, index_dtype):
  n_sparse = mat.ndim - n_batch - n_dense
  fn = lambda m: _fromdense_one(m, nse=nse, n_sparse=n_sparse, n_dense=n_dense,
                                index_dtype=index_dtype)
  return nfold_vmap(fn, n_batch)(mat)


def _fromdense_abstract_eval(mat, *, nse, n_batch, n_dense, index_dtype):
  n_sparse = mat.ndim - n_batch - n_dense
  if n_sparse < 0 or n_batch < 0 or n_dense < 0:
    raise ValueError(f"Invalid n_batch={n_batch}, n_dense={n_dense} for an array of "
                     f"shape {mat.shape}")
  batch, dense = mat.shape[:n_batch], mat.shape[n_batch + n_sparse:]
  return [ShapedArray(batch + (nse,) + dense, mat.dtype),
          ShapedArray(batch + (nse, n_sparse), np.dtype(index_dtype))]


def _fromdense_jvp(primals, tangents, **params):
  data, indices = bcoo_fromdense_p.bind(primals[0], **params)
  if type(tangents[0]) is Zero:
    return [data, indices], [_zero_tangent(data), _zero_tangent(indices)]
  t = bcoo_extract_p.bind(indices, tangents[0], assume_unique=True)
  return [data, indices], [t, _zero_tangent(indices)]


def _fromdense_batch(axis, args, dims, *, nse, n_batch, n_dense, index_dtype):
  (mat,) = _front(args, dims, axis.size)
  return bcoo_fromdense_p.bind(mat, nse=nse, n_batch=n_batch + 1, n_dense=n_dense,
                               index_dtype=index_dtype), [0, 0]


bcoo_fromdense_p = standard_primitive("bcoo_fromdense", _fromdense_abstract_eval,
                                      lowering_from(_fromdense_impl), multiple_results=True)
bcoo_fromdense_p.jvp = _fromdense_jvp
bcoo_fromdense_p.batch = _fromdense_batch


# ---------------------------------------------------------------------------------------
# bcoo_extract

def _first_only(indices, data, sparse_shape):
  """(nse,)-entry `data` zeroed at each entry whose index repeats an earlier one's."""
  if indices.shape[0] < 2:
    return data
  order, _, new = _grouped(indices, sparse_shape)
  first = jnp.zeros(indices.shape[0], bool).at[order].set(new)
  return jnp.where(first.reshape(first.shape + (1,) * (data.ndim - 1)), data, 0)


def _extract_one(indices, mat, *, assume_unique):
  n_sparse = indices.shape[1]
  if n_sparse == 0:  # every entry is the whole (dense) array
    data = jnp.broadcast_to(mat, (indices.shape[0],) + mat.shape)
  else:
    data = mat.at[tuple(indices[:, k] for k in range(n_sparse))].get(mode="fill", fill_value=0)
  return data if assume_unique else _first_only(indices, data, mat.shape[:n_sparse])


def _extract_impl(indices, mat, *, assume_unique):
  n_batch = indices.ndim - 2
  indices, mat = broadcast_batch(n_batch, indices, mat)
  fn = lambda i, m: _extract_one(i, m, assume_unique=assume_unique)
  return nfold_vmap(fn, n_batch)(indices, mat)


def _extract_abstract_eval(indices, mat, *, assume_unique):
  n_batch, n_sparse = indices.ndim - 2, indices.shape[-1]
  if n_batch < 0 or n_batch + n_sparse > mat.ndim:
    raise ValueError(f"bcoo_extract: indices of shape {indices.shape} do not index an array "
                     f"of shape {mat.shape}")
  batch = tuple(max(a, b) for a, b in zip(indices.shape[:n_batch], mat.shape[:n_batch]))
  return ShapedArray(batch + (indices.shape[-2],) + mat.shape[n_batch + n_sparse:], mat.dtype)


def _extract_jvp(primals, tangents, *, assume_unique):
  indices, mat = primals
  out = bcoo_extract_p.bind(indices, mat, assume_unique=assume_unique)
  if type(tangents[1]) is Zero:
    return out, _zero_tangent(out)
  return out, bcoo_extract_p.bind(indices, tangents[1], assume_unique=assume_unique)


def _extract_transpose(ct, indices, mat, *, assume_unique):
  assert ad.is_undefined(mat) and not ad.is_undefined(indices)
  if type(ct) is Zero:
    return [None, Zero(mat.aval)]
  if not assume_unique:  # only the first of equal indices was read
    n_batch = indices.ndim - 2
    sparse_shape = mat.aval.shape[n_batch:n_batch + indices.shape[-1]]
    indices_b, ct = broadcast_batch(n_batch, indices, ct)
    ct = nfold_vmap(lambda i, d: _first_only(i, d, sparse_shape), n_batch)(indices_b, ct)
  spinfo = SparseInfo(mat.aval.shape, unique_indices=assume_unique)
  return [None, bcoo_todense_p.bind(ct, indices, spinfo=spinfo).astype(mat.aval.dtype)]


def _extract_batch(axis, args, dims, *, assume_unique):
  indices, mat = _front(args, dims, axis.size)
  return bcoo_extract_p.bind(indices, mat, assume_unique=assume_unique), 0


bcoo_extract_p = standard_primitive("bcoo_extract", _extract_abstract_eval,
                                    lowering_from(_extract_impl))
bcoo_extract_p.jvp = _extract_jvp
bcoo_extract_p.transpose = _extract_transpose
bcoo_extract_p.batch = _extract_batch


# ---------------------------------------------------------------------------------------
# bcoo_transpose

def _split_permutation(permutation, n_batch, n_sparse, n_dense):
  perm = tuple(int(p) for p in permutation)
  groups = (perm[:n_batch], perm[n_batch:n_batch + n_sparse], perm[n_batch + n_sparse:])
  starts = (0, n_batch, n_batch + n_sparse)
  sizes = (n_batch, n_sparse, n_dense)
  if sorted(perm) != list(range(n_batch + n_sparse + n_dense)) or any(
      sorted(g) != list(range(s, s + n)) for g, s, n in zip(groups, starts, sizes)):
    raise NotImplementedError(
        f"bcoo_transpose: permutation {perm} moves a dimension out of its group: batch "
        f"dimensions must stay among the first {n_batch}, sparse among the next {n_sparse} "
        f"and dense among the last {n_dense}; use bcoo_update_layout to change the layout")
  return tuple(tuple(p - s for p in g) for g, s in zip(groups, starts))


def _transpose_impl(data, indices, *, permutation, spinfo):
  n_batch, n_sparse, n_dense, _ = layout(data.shape, indices.shape, spinfo.shape)
  batch, sparse, dense = _split_permutation(permutation, n_batch, n_sparse, n_dense)
  indices = indices.transpose(batch + (n_batch, n_batch + 1))[..., list(sparse)]
  data = data.transpose(batch + (n_batch,) + tuple(n_batch + 1 + d for d in dense))
  return data, indices


def _transpose_abstract_eval(data, indices, *, permutation, spinfo):
  n_batch, n_sparse, n_dense, _ = layout(data.shape, indices.shape, spinfo.shape)
  batch, sparse, dense = _split_permutation(permutation, n_batch, n_sparse, n_dense)
  return [ShapedArray(tuple(data.shape[b] for b in batch) + (data.shape[n_batch],)
                      + tuple(data.shape[n_batch + 1 + d] for d in dense), data.dtype),
          ShapedArray(tuple(indices.shape[b] for b in batch) + indices.shape[n_batch:],
                      indices.dtype)]


def _transpose_batch(axis, args, dims, *, permutation, spinfo):
  data, indices = _front(args, dims, axis.size)
  return bcoo_transpose_p.bind(
      data, indices, permutation=(0,) + tuple(p + 1 for p in permutation),
      spinfo=spinfo._replace(shape=(axis.size,) + spinfo.shape)), [0, 0]


bcoo_transpose_p = standard_primitive("bcoo_transpose", _transpose_abstract_eval,
                                      lowering_from(_transpose_impl), multiple_results=True)
linear_in_data(bcoo_transpose_p, _transpose_impl)
bcoo_transpose_p.batch = _transpose_batch


# ---------------------------------------------------------------------------------------
# bcoo_sort_indices

def _sort_one(data, indices):
  if indices.shape[1] == 0:
    return data, indices
  order = jnp.lexsort(tuple(indices[:, k] for k in reversed(range(indices.shape[1]))))
  return data[order], indices[order]


def _sort_impl(data, indices, *, spinfo):
  n_batch = indices.ndim - 2
  data, indices = broadcast_batch(n_batch, data, indices)
  return nfold_vmap(_sort_one, n_batch)(data, indices)


def _batch_broadcast_avals(data, indices, nse=None):
  n_batch = indices.ndim - 2
  batch = tuple(max(a, b) for a, b in zip(data.shape[:n_batch], indices.shape[:n_batch]))
  nse = indices.shape[-2] if nse is None else nse
  return [ShapedArray(batch + (nse,) + data.shape[n_batch + 1:], data.dtype),
          ShapedArray(batch + (nse, indices.shape[-1]), indices.dtype)]


def _sort_abstract_eval(data, indices, *, spinfo):
  layout(data.shape, indices.shape, spinfo.shape)
  return _batch_broadcast_avals(data, indices)


def _sort_batch(axis, args, dims, *, spinfo):
  data, indices = _front(args, dims, axis.size)
  spinfo = spinfo._replace(shape=(axis.size,) + spinfo.shape)
  return bcoo_sort_indices_p.bind(data, indices, spinfo=spinfo), [0, 0]


bcoo_sort_indices_p = standard_primitive("bcoo_sort_indices", _sort_abstract_eval,
                                         lowering_from(_sort_impl), multiple_results=True)
linear_in_data(bcoo_sort_indices_p, _sort_impl)
bcoo_sort_indices_p.batch = _sort_batch


# ---------------------------------------------------------------------------------------
# bcoo_sum_duplicates

def count_unique(indices, shape) -> int:
  """The largest number of distinct in-range indices of a batch (needs concrete indices)."""
  indices = np.asarray(concrete_or_error(
      indices, "The error arose in bcoo_sum_duplicates: nse must be specified when using "
      "the function within jit"))
  n_batch = indices.ndim - 2
  sparse_shape = np.asarray(shape[n_batch:n_batch + indices.shape[-1]])
  flat = indices.reshape((math.prod(indices.shape[:-2]),) + indices.shape[-2:])  # (-1: 0-size)
  best = 0
  for rows in flat:
    rows = rows[np.all((rows >= 0) & (rows < sparse_shape), axis=1)]
    best = max(best, len(np.unique(rows, axis=0)) if rows.size else (
        min(len(rows), 1) if rows.shape[1] == 0 else 0))
  return best


def _sum_duplicates_one(data, indices, *, sparse_shape, nse):
  order, srt, new = _grouped(indices, sparse_shape)
  group_sorted = jnp.cumsum(new) - 1
  group = jnp.zeros(indices.shape[0], group_sorted.dtype).at[order].set(group_sorted)
  fill = jnp.broadcast_to(jnp.asarray(sparse_shape, indices.dtype), (nse, indices.shape[1]))
  uniq = fill.at[group_sorted].set(srt, mode="drop")
  out = jnp.zeros((nse,) + data.shape[1:], data.dtype).at[group].add(data, mode="drop")
  return out, uniq


def _sum_duplicates_impl(data, indices, *, spinfo, nse):
  n_batch = indices.ndim - 2
  data, indices = broadcast_batch(n_batch, data, indices)
  fn = lambda d, i: _sum_duplicates_one(d, i, sparse_shape=_sparse_shape(spinfo, indices),
                                        nse=nse)
  return nfold_vmap(fn, n_batch)(data, indices)


def _sum_duplicates_abstract_eval(data, indices, *, spinfo, nse):
  layout(data.shape, indices.shape, spinfo.shape)
  return _batch_broadcast_avals(data, indices, nse)


def _sum_duplicates_batch(axis, args, dims, *, spinfo, nse):
  data, indices = _front(args, dims, axis.size)
  spinfo = spinfo._replace(shape=(axis.size,) + spinfo.shape)
  return bcoo_sum_duplicates_p.bind(data, indices, spinfo=spinfo, nse=nse), [0, 0]


bcoo_sum_duplicates_p = standard_primitive(
    "bcoo_sum_duplicates", _sum_duplicates_abstract_eval, lowering_from(_sum_duplicates_impl),
    multiple_results=True)
linear_in_data(bcoo_sum_duplicates_p, _sum_duplicates_impl)
bcoo_sum_duplicates_p.batch = _sum_duplicates_batch
