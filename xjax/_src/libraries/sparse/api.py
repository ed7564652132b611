"""Format-independent functions: `todense` (and its primitive `todense_p`, over any sparse
array's leaves), `empty` and `eye`."""
from __future__ import annotations

import numpy as np

from xjax._src.core.avals import ShapedArray
from xjax._src.core.trace import Primitive
from xjax._src.foundations.tree_util import tree_flatten, tree_unflatten
from xjax._src.interpreters.ad import Zero, instantiate
from xjax._src.api.transformations import vmap
from xjax._src.primitives.lax.primitive_builders import lowering_from
from xjax._src.libraries.sparse.bcoo import BCOO
from xjax._src.libraries.sparse.bcoo_products import linear_transpose_rule
from xjax._src.libraries.sparse.bcsr import BCSR
from xjax._src.libraries.sparse.coo import COO
from xjax._src.libraries.sparse.csr import CSC, CSR
from xjax._src.libraries.sparse.sparse_array import JAXSparse


def todense(arr):
  """The dense form of a sparse array; a dense array is returned as it is."""
  if not isinstance(arr, JAXSparse):
    return arr
  leaves, tree = tree_flatten(arr)
  return todense_p.bind(*leaves, tree=tree)


def _todense_impl(*leaves, tree):
  return tree_unflatten(tree, leaves).todense()


def _todense_abstract_eval(*avals, tree):
  arr = tree_unflatten(tree, avals)
  return ShapedArray(arr.shape, avals[0].dtype)


def _todense_jvp(primals, tangents, *, tree):
  out = todense_p.bind(*primals, tree=tree)
  if type(tangents[0]) is Zero:  # linear in data, the first leaf
    return out, Zero(ShapedArray(out.shape, out.dtype))
  return out, todense_p.bind(instantiate(tangents[0]), *primals[1:], tree=tree)


def _todense_batch(axis, args, dims, *, tree):
  return vmap(lambda *xs: _todense_impl(*xs, tree=tree), in_axes=tuple(dims))(*args), 0


todense_p = Primitive("todense")
todense_p.abstract_eval = _todense_abstract_eval
todense_p.lowering = lowering_from(_todense_impl)
todense_p.jvp = _todense_jvp
todense_p.transpose = lambda ct, *args, tree: linear_transpose_rule(
    lambda *xs: _todense_impl(*xs, tree=tree), (0,))(ct, *args)
todense_p.batch = _todense_batch


_FORMATS = {"bcoo": BCOO, "bcsr": BCSR, "coo": COO, "csr": CSR, "csc": CSC}


def _format(sparse_format):
  if sparse_format not in _FORMATS:
    raise ValueError(f"sparse_format={sparse_format!r} not recognized; expected one of "
                     f"{sorted(_FORMATS)}")
  return _FORMATS[sparse_format]


def empty(shape, dtype=None, index_dtype="int32", sparse_format="bcoo", **kwds) -> JAXSparse:
  """An all-zero sparse array of `shape` with no stored entries."""
  return _format(sparse_format)._empty(shape, dtype=dtype, index_dtype=np.dtype(index_dtype),
                                       **kwds)


def eye(N, M=None, k=0, dtype=None, index_dtype="int32", sparse_format="bcoo",
        **kwds) -> JAXSparse:
  """The sparse `N`x`M` array of ones on diagonal `k`."""
  return _format(sparse_format)._eye(int(N), int(N if M is None else M), int(k), dtype=dtype,
                                     index_dtype=np.dtype(index_dtype), **kwds)
