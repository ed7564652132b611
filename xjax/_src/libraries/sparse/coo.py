"""`COO`, the 2-d coordinate format: `data`, `row` and `col` of the stored entries, and its
primitives `coo_fromdense_p`, `coo_todense_p`, `coo_matvec_p` and `coo_matmat_p`, each
with its shape rule, lowering (lax scatters and gathers), JVP, transpose and batching
rules.  `fromdense` pads with zero entries at (0, 0), which count as stored entries."""
from __future__ import annotations

import operator
from typing import NamedTuple

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.foundations.tree_util import register_pytree_node_class
from xjax._src.core.avals import ShapedArray
from xjax._src.core.concrete import concrete_or_error
from xjax._src.interpreters import ad
from xjax._src.interpreters.ad import Zero
from xjax._src.primitives.lax.primitive_builders import lowering_from, standard_primitive
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.numpy.promotion import promote_dtypes
from xjax._src.libraries.sparse.batched import vmapped_batch_rule
from xjax._src.libraries.sparse.sparse_array import JAXSparse


class COOInfo(NamedTuple):
  """The static part of a COO array: its shape and whether rows/columns are sorted."""
  shape: tuple
  rows_sorted: bool = False
  cols_sorted: bool = False


# ---------------------------------------------------------------------------------------
# Entry-wise kernels shared with CSR (whose rows come from `indptr`)

def todense_entries(data, row, col, shape):
  """The dense `shape` array with each `data[k]` added at `(row[k], col[k])` (entries out
  of range dropped)."""
  return jnp.zeros(shape, data.dtype).at[row, col].add(data, mode="drop")


def product_entries(data, row, col, B, shape, transpose):
  """`M @ B` (or `M.T @ B`) for the `shape` matrix `M` of the entries, `B` 1- or 2-d."""
  if transpose:
    row, col, shape = col, row, shape[::-1]
  dv = data.reshape(data.shape + (1,) * (B.ndim - 1)) * B[col]
  return jnp.zeros((shape[0],) + B.shape[1:], dv.dtype).at[row].add(dv, mode="drop")


def product_data_cotangent(ct, row, col, B, transpose):
  """The cotangent of `data` in `product_entries` given the output's `ct` (padding rows out
  of range read the last row, as JAX's clamped gathers)."""
  if transpose:
    row, col = col, row
  prod = ct[row] * B[col]
  return prod if B.ndim == 1 else prod.sum(1)


def check_product(what, shape, B, ndim, transpose):
  """The output shape of a product with `B`, whose rank must be `ndim`."""
  rows, cols = shape[::-1] if transpose else shape
  if B.ndim != ndim or B.shape[0] != cols:
    raise AssertionError(f"{what}: an operand of shape {B.shape} does not multiply a "
                         f"{'transposed ' if transpose else ''}matrix of shape {shape}")
  return (rows,) + B.shape[1:]


# ---------------------------------------------------------------------------------------
# coo_todense

def _todense_impl(data, row, col, *, spinfo):
  return todense_entries(data, row, col, spinfo.shape)


def _todense_transpose(ct, data, row, col, *, spinfo):
  assert ad.is_undefined(data) and not ad.is_undefined(row) and not ad.is_undefined(col)
  if type(ct) is Zero:
    return [Zero(data.aval), None, None]
  return [ct[row, col].astype(data.aval.dtype), None, None]


coo_todense_p = standard_primitive(
    "coo_todense", lambda data, row, col, *, spinfo: ShapedArray(spinfo.shape, data.dtype),
    lowering_from(_todense_impl))
ad.defjvp(coo_todense_p, lambda t, data, row, col, *, spinfo: coo_todense_p.bind(
    t, row, col, spinfo=spinfo), None, None)
coo_todense_p.transpose = _todense_transpose
coo_todense_p.batch = vmapped_batch_rule(_todense_impl)


# ---------------------------------------------------------------------------------------
# coo_fromdense

def count_nonzero(mat, what: str) -> int:
  mat = concrete_or_error(mat, f"The error arose in {what}: nse must be specified when "
                          "using the function within jit")
  return int((np.asarray(mat) != 0).sum())


def _fromdense_impl(mat, *, nse, index_dtype):
  row, col = jnp.nonzero(mat, size=nse)
  stored = jnp.arange(nse) < (mat != 0).sum()
  data = jnp.where(stored, mat[row, col], 0).astype(mat.dtype)
  return data, row.astype(index_dtype), col.astype(index_dtype)


def _fromdense_abstract_eval(mat, *, nse, index_dtype):
  if mat.ndim != 2:
    raise AssertionError(f"coo_fromdense: a 2-dimensional array is needed, got {mat.shape}")
  return [ShapedArray((nse,), mat.dtype), ShapedArray((nse,), np.dtype(index_dtype)),
          ShapedArray((nse,), np.dtype(index_dtype))]


def _fromdense_jvp(primals, tangents, *, nse, index_dtype):
  data, row, col = outs = coo_fromdense_p.bind(primals[0], nse=nse, index_dtype=index_dtype)
  zeros = [Zero(ShapedArray(row.shape, row.dtype)), Zero(ShapedArray(col.shape, col.dtype))]
  if type(tangents[0]) is Zero:
    return outs, [Zero(ShapedArray(data.shape, data.dtype))] + zeros
  return outs, [tangents[0].at[row, col].get(mode="fill", fill_value=0)] + zeros


coo_fromdense_p = standard_primitive("coo_fromdense", _fromdense_abstract_eval,
                                     lowering_from(_fromdense_impl), multiple_results=True)
coo_fromdense_p.jvp = _fromdense_jvp
coo_fromdense_p.batch = vmapped_batch_rule(_fromdense_impl, multiple_results=True)


# ---------------------------------------------------------------------------------------
# coo_matvec and coo_matmat

def product_primitive(name, ndim, entries, shape_of):
  """The primitive `name(data, a, b, B, *, transpose, **static)` multiplying the sparse
  matrix of `entries(a, b) -> (row, col)` (of shape `shape_of(static)`) by `B` of rank
  `ndim`: linear in `data` and in `B`."""
  def impl(data, a, b, B, *, transpose, **static):
    row, col = entries(a, b)
    return product_entries(data, row, col, B, shape_of(static), transpose)

  def abstract_eval(data, a, b, B, *, transpose, **static):
    out = check_product(name, shape_of(static), B, ndim, transpose)
    return ShapedArray(out, dtypes.result_type(data.dtype, B.dtype))

  def transpose_rule(ct, data, a, b, B, *, transpose, **static):
    assert not ad.is_undefined(a) and not ad.is_undefined(b)
    if ad.is_undefined(B):
      ct_B = Zero(B.aval) if type(ct) is Zero else prim.bind(
          data, a, b, ct, transpose=not transpose, **static).astype(B.aval.dtype)
      return [None, None, None, ct_B]
    ct_data = Zero(data.aval) if type(ct) is Zero else product_data_cotangent(
        ct, *entries(a, b), B, transpose).astype(data.aval.dtype)
    return [ct_data, None, None, None]

  prim = standard_primitive(name, abstract_eval, lowering_from(impl))
  ad.defjvp(prim, lambda t, data, a, b, B, **p: prim.bind(t, a, b, B, **p), None, None,
            lambda t, data, a, b, B, **p: prim.bind(data, a, b, t, **p))
  prim.transpose = transpose_rule
  prim.batch = vmapped_batch_rule(impl)
  return prim


_coo_entries = lambda row, col: (row, col)  # noqa: E731
_coo_shape = lambda static: static["spinfo"].shape  # noqa: E731


coo_matvec_p = product_primitive("coo_matvec", 1, _coo_entries, _coo_shape)
coo_matmat_p = product_primitive("coo_matmat", 2, _coo_entries, _coo_shape)


# ---------------------------------------------------------------------------------------
# The class and the public functions

def sparse_matmul(mat, other, matvec, matmat):
  """`mat @ other` for a 2-d sparse `mat` through its `matvec`/`matmat` functions."""
  if isinstance(other, JAXSparse):
    raise NotImplementedError("matmul between two sparse objects.")
  other = jnp.asarray(other)
  if other.ndim == 1:
    return matvec(mat, other)
  if other.ndim == 2:
    return matmat(mat, other)
  raise NotImplementedError(f"matmul with object of shape {other.shape}")


@register_pytree_node_class
class COO(JAXSparse):
  """A 2-d array whose entry `data[k]` sits at `(row[k], col[k])` (duplicates add up)."""

  def __init__(self, args, *, shape, rows_sorted: bool = False, cols_sorted: bool = False):
    self.data, self.row, self.col = map(jnp.asarray, args)
    self._rows_sorted = rows_sorted
    self._cols_sorted = cols_sorted
    super().__init__(args, shape=shape)

  nse = property(lambda self: self.data.size)
  _info = property(lambda self: COOInfo(self.shape, self._rows_sorted, self._cols_sorted))
  _bufs = property(lambda self: (self.data, self.row, self.col))

  def tree_flatten(self):
    return self._bufs, self._info._asdict()

  _buffer_names = ("data", "row", "col")
  _aux_attributes = {"shape": "shape", "rows_sorted": "_rows_sorted",
                     "cols_sorted": "_cols_sorted"}

  @classmethod
  def fromdense(cls, mat, *, nse=None, index_dtype=np.int32) -> "COO":
    return coo_fromdense(mat, nse=nse, index_dtype=index_dtype)

  @classmethod
  def _empty(cls, shape, *, dtype=None, index_dtype="int32") -> "COO":
    if len(shape) != 2:
      raise ValueError(f"COO must have ndim=2; got shape={shape}")
    data, ind = jnp.empty(0, dtype), jnp.empty(0, index_dtype)
    return cls((data, ind, ind), shape=shape, rows_sorted=True, cols_sorted=True)

  @classmethod
  def _eye(cls, N, M, k, *, dtype=None, index_dtype="int32") -> "COO":
    k = operator.index(k)
    diag_size = min(N, M - k) if k > 0 else min(N + k, M)
    if diag_size <= 0:
      return cls._empty((N, M), dtype=dtype, index_dtype=index_dtype)
    idx = jnp.arange(diag_size, dtype=index_dtype)
    row, col = idx + max(-k, 0), idx + max(k, 0)
    return cls((jnp.ones(diag_size, dtype), row, col), shape=(N, M), rows_sorted=True,
               cols_sorted=True)

  def _sort_indices(self) -> "COO":
    """The same array with entries sorted by row, then column."""
    if self._rows_sorted:
      return self
    order = jnp.lexsort((self.col, self.row))
    return COO((self.data[order], self.row[order], self.col[order]), shape=self.shape,
               rows_sorted=True)

  def todense(self):
    return coo_todense(self)

  def transpose(self, axes=None) -> "COO":
    if axes is not None:
      raise NotImplementedError("axes argument to transpose()")
    return COO((self.data, self.col, self.row), shape=self.shape[::-1],
               rows_sorted=self._cols_sorted, cols_sorted=self._rows_sorted)

  def __matmul__(self, other):
    return sparse_matmul(self, other, coo_matvec, coo_matmat)


def coo_todense(mat: COO):
  """The dense array of a COO (duplicate entries add up)."""
  return coo_todense_p.bind(mat.data, mat.row, mat.col, spinfo=mat._info)


def coo_fromdense(mat, *, nse=None, index_dtype=np.int32) -> COO:
  """The nonzero entries of 2-d `mat` in row-major order; `nse` (needed under `jit`) pads
  with zero entries at (0, 0)."""
  mat = jnp.asarray(mat)
  if nse is None:
    nse = count_nonzero(mat, "coo_fromdense")
  data, row, col = coo_fromdense_p.bind(mat, nse=operator.index(nse),
                                        index_dtype=np.dtype(index_dtype))
  return COO((data, row, col), shape=mat.shape, rows_sorted=True)


def _product(prim, mat, B, transpose):
  data, B = promote_dtypes(mat.data, jnp.asarray(B))
  return prim.bind(data, mat.row, mat.col, B, spinfo=mat._info, transpose=bool(transpose))


def coo_matvec(mat: COO, v, transpose: bool = False):
  """`mat @ v` (`mat.T @ v` with `transpose`) for a vector `v`."""
  return _product(coo_matvec_p, mat, v, transpose)


def coo_matmat(mat: COO, B, *, transpose: bool = False):
  """`mat @ B` (`mat.T @ B` with `transpose`) for a matrix `B`."""
  return _product(coo_matmat_p, mat, B, transpose)
