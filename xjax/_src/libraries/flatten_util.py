"""`ravel_pytree`: a pytree of arrays as one flat vector, and the function that undoes it."""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.values import get_aval
from xjax._src.primitives.lax.elementwise import convert_element_type
from xjax._src.primitives.lax.shapes import reshape
from xjax._src.libraries.numpy import creation, shaping
from xjax._src.foundations.tree_util import tree_flatten, tree_unflatten


class _Unravel:
  """Splits a flat vector back into the pytree's leaves (their shapes and dtypes)."""

  def __init__(self, treedef, shapes, leaf_dtypes, flat_dtype):
    self.treedef, self.shapes, self.dtypes, self.flat_dtype = (
        treedef, shapes, leaf_dtypes, flat_dtype)
    self.sizes = [int(np.prod(s, dtype=np.int64)) for s in shapes]

  def __call__(self, flat):
    flat = creation.asarray(flat)
    aval = get_aval(flat)
    total = sum(self.sizes)
    if aval.shape != (total,):
      raise ValueError(f"The unravel function expected an array of shape ({total},), "
                       f"got shape {aval.shape}.")
    if aval.dtype != self.flat_dtype:
      raise TypeError(f"unravel function given array of dtype {aval.dtype}, but expected "
                      f"dtype {self.flat_dtype}")
    leaves, start = [], 0
    for shape, dtype, size in zip(self.shapes, self.dtypes, self.sizes):
      piece = reshape(flat[start:start + size], shape)
      leaves.append(piece if dtype == self.flat_dtype
                    else convert_element_type(piece, dtype))
      start += size
    return tree_unflatten(self.treedef, leaves)


def ravel_pytree(pytree):
  """(flat, unravel): the leaves raveled and concatenated in the promoted dtype of all
  leaves, and a function mapping such a vector back to a pytree like ``pytree``."""
  leaves, treedef = tree_flatten(pytree)
  leaves = [creation.asarray(x) for x in leaves]
  avals = [get_aval(x) for x in leaves]
  flat_dtype = (dtypes.result_type(*leaves) if leaves
                else dtypes.canonicalize_dtype(np.float32))
  parts = [shaping.ravel(x if a.dtype == flat_dtype
                         else convert_element_type(x, flat_dtype))
           for x, a in zip(leaves, avals)]
  flat = (shaping.concatenate(parts) if parts
          else creation.zeros((0,), flat_dtype))
  return flat, _Unravel(treedef, [a.shape for a in avals], [a.dtype for a in avals],
                        np.dtype(flat_dtype))
