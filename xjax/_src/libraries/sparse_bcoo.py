"""Sparse arrays in batched-coordinate format (`jax.experimental.sparse.BCOO`), the basics:
no batch or dense dimensions, so `data` is `(nse,)` and `indices` `(nse, ndim)`.

A BCOO is a pytree of its `data` and `indices` (shape and the index flags are static), so it
passes through `jit`, `grad` (with respect to `data`) and `vmap` like any array pair.
Padding entries (from `fromdense(..., nse=)`) carry zero data and an out-of-range index,
which every operation here drops.
"""
from __future__ import annotations

import math

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.concrete import concrete_or_error
from xjax._src.libraries.numpy import lax_numpy as jnp
from xjax._src.foundations.tree_util import register_pytree_node_class

__all__ = ["BCOO", "bcoo_fromdense", "bcoo_todense", "todense"]

_UNSUPPORTED = ("xjax's BCOO has no batch or dense dimensions and supports fromdense, "
                "from_scipy_sparse, todense, transpose, sum, scalar/dense multiplication "
                "and products with dense arrays (see docs/differences.md)")


@register_pytree_node_class
class BCOO:
  """A sparse array: `data[i]` sits at the position `indices[i]` of an array of `shape`."""

  n_batch = 0
  n_dense = 0

  def __init__(self, args, *, shape, indices_sorted: bool = False, unique_indices: bool = False):
    data, indices = args
    self.data = jnp.asarray(data)
    self.indices = jnp.asarray(indices)
    self.shape = tuple(int(d) for d in shape)
    self.indices_sorted = indices_sorted
    self.unique_indices = unique_indices
    if self.data.ndim != 1 or self.indices.shape != (self.data.shape[0], len(self.shape)):
      raise ValueError(f"BCOO: data of shape {self.data.shape} and indices of shape "
                       f"{self.indices.shape} do not describe {len(self.shape)}-dimensional "
                       f"sparse entries (data (nse,), indices (nse, {len(self.shape)})); "
                       + _UNSUPPORTED)

  # --- pytree -------------------------------------------------------------------------------
  def tree_flatten(self):
    aux = {"shape": self.shape, "indices_sorted": self.indices_sorted,
           "unique_indices": self.unique_indices}
    return (self.data, self.indices), aux

  @classmethod
  def tree_unflatten(cls, aux, children):
    obj = object.__new__(cls)
    obj.data, obj.indices = children
    obj.shape = aux["shape"]
    obj.indices_sorted = aux["indices_sorted"]
    obj.unique_indices = aux["unique_indices"]
    return obj

  # --- description ----------------------------------------------------------------------------
  dtype = property(lambda self: self.data.dtype)
  ndim = property(lambda self: len(self.shape))
  size = property(lambda self: math.prod(self.shape))
  nse = property(lambda self: self.data.shape[0])
  n_sparse = property(lambda self: len(self.shape))

  def __repr__(self):
    return (f"BCOO({np.dtype(self.dtype).name}[{', '.join(map(str, self.shape))}], "
            f"nse={self.nse})")

  def __len__(self):
    return self.shape[0]

  # --- construction and conversion ------------------------------------------------------------
  @classmethod
  def fromdense(cls, mat, *, nse=None, index_dtype=np.int32) -> "BCOO":
    """The nonzero entries of `mat` in row-major order; `nse` (needed under `jit`) pads
    with zero entries at the out-of-range index `shape`, or keeps the first `nse`."""
    mat = jnp.asarray(mat)
    if nse is None:
      concrete = concrete_or_error(mat, "`mat` of BCOO.fromdense without nse= (give nse= "
                                   "to build a BCOO from a traced array)")
      nse = int(np.count_nonzero(np.asarray(concrete)))
    if mat.ndim == 0:
      raise ValueError("BCOO.fromdense: a 0-dimensional array has no sparse dimensions")
    positions = jnp.nonzero(mat, size=nse, fill_value=tuple(mat.shape))
    indices = jnp.stack(positions, axis=1).astype(index_dtype)
    data = mat.at[positions].get(mode="fill", fill_value=0)
    return cls((data.astype(mat.dtype), indices), shape=mat.shape, indices_sorted=True,
               unique_indices=True)

  @classmethod
  def from_scipy_sparse(cls, mat, *, index_dtype=None) -> "BCOO":
    """A BCOO holding the entries of a SciPy sparse matrix (in its COO order)."""
    coo = mat.tocoo()
    indices = np.column_stack((coo.row, coo.col)).astype(index_dtype or np.int32)
    return cls((jnp.asarray(coo.data), jnp.asarray(indices)), shape=coo.shape)

  def todense(self):
    """The dense array; duplicate indices add up, padding entries are dropped."""
    out = jnp.zeros(self.shape, self.dtype)
    return out.at[self._index()].add(self.data, mode="drop")

  def _index(self):
    return tuple(self.indices[:, k] for k in range(self.ndim))

  def _with_data(self, data) -> "BCOO":
    return BCOO((data, self.indices), shape=self.shape, indices_sorted=self.indices_sorted,
                unique_indices=self.unique_indices)

  # --- operations -----------------------------------------------------------------------------
  def transpose(self, axes=None) -> "BCOO":
    axes = tuple(reversed(range(self.ndim))) if axes is None else tuple(axes)
    return BCOO((self.data, self.indices[:, jnp.asarray(axes, np.int32)]),
                shape=tuple(self.shape[a] for a in axes), unique_indices=self.unique_indices)

  T = property(transpose)

  def sum(self, axis=None):
    """The sum over all entries (a dense scalar) or over `axis` (a BCOO of one rank less)."""
    if axis is None:
      return self.data.sum()
    axes = {a % self.ndim for a in ((axis,) if isinstance(axis, int) else axis)}
    keep = [k for k in range(self.ndim) if k not in axes]
    return BCOO((self.data, self.indices[:, jnp.asarray(keep, np.int32)]),
                shape=tuple(self.shape[k] for k in keep))

  def __neg__(self):
    return self._with_data(-self.data)

  def __mul__(self, other):
    if isinstance(other, BCOO):
      raise NotImplementedError("BCOO * BCOO: " + _UNSUPPORTED)
    other = jnp.asarray(other)
    if other.ndim == 0:
      return self._with_data(self.data * other)
    dense = jnp.broadcast_to(other, self.shape)
    inside = jnp.all(self.indices < jnp.asarray(self.shape, self.indices.dtype), axis=1)
    clipped = tuple(jnp.minimum(i, d - 1) for i, d in zip(self._index(), self.shape))
    return self._with_data(jnp.where(inside, self.data * dense[clipped], 0))

  __rmul__ = __mul__

  def __matmul__(self, other):
    """`self @ dense`: contracts the last sparse dimension with the dense array's first
    (its only one for a vector)."""
    if isinstance(other, BCOO) or self.ndim not in (1, 2):
      raise NotImplementedError(f"BCOO of rank {self.ndim} @ {type(other).__name__}: "
                                + _UNSUPPORTED)
    other = jnp.asarray(other)
    if other.ndim == 0 or other.shape[0] != self.shape[-1]:
      raise TypeError(f"BCOO @ array: shapes {self.shape} and {other.shape} do not align "
                      f"(dimension {self.shape[-1]} against {other.shape[:1]})")
    columns = self.indices[:, -1]
    weight = self.data.reshape((-1,) + (1,) * (other.ndim - 1))
    terms = weight * other.at[columns].get(mode="fill", fill_value=0)
    dtype = dtypes.result_type(self.dtype, other.dtype)
    if self.ndim == 1:
      return terms.sum(axis=0).astype(dtype)
    out = jnp.zeros((self.shape[0],) + other.shape[1:], dtype)
    return out.at[self.indices[:, 0]].add(terms.astype(dtype), mode="drop")

  def __rmatmul__(self, other):
    """`dense @ self`, as `(self.T @ dense.T).T`."""
    other = jnp.asarray(other)
    return jnp.transpose(self.T @ jnp.transpose(other))


def bcoo_fromdense(mat, *, nse=None, index_dtype=np.int32) -> BCOO:
  return BCOO.fromdense(mat, nse=nse, index_dtype=index_dtype)


def bcoo_todense(mat: BCOO):
  return mat.todense()


def todense(arr):
  """The dense form of a sparse array (a dense array is returned as it is)."""
  return arr.todense() if isinstance(arr, BCOO) else arr
