"""`random_bcoo`: a BCOO with randomly placed entries and random values."""
from __future__ import annotations

import math
import operator

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.api.transformations import vmap
from xjax._src.libraries.random.continuous import uniform
from xjax._src.libraries.random.discrete import choice
from xjax._src.libraries.random.keys import split
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.sparse.bcoo import BCOO


def random_bcoo(key, shape, *, dtype=jnp.float_, indices_dtype=None, nse=0.2,
                n_batch=0, n_dense=0, unique_indices=True, sorted_indices=False,
                generator=uniform, **kwds) -> BCOO:
  """A BCOO of `shape` with `nse` entries per batch (a fraction of the sparse size when
  below 1, rounded up) at random positions (distinct with `unique_indices`), values from
  `generator(key, shape=..., dtype=..., **kwds)`; the same draws as JAX's (the first of
  `batch size + 1` keys for the values, the others for each batch's positions)."""
  shape = tuple(map(operator.index, shape))
  n_batch, n_dense = operator.index(n_batch), operator.index(n_dense)
  if n_batch < 0 or n_dense < 0 or n_batch + n_dense > len(shape):
    raise ValueError(f"Invalid n_batch={n_batch}, n_dense={n_dense} for shape={shape}")
  n_sparse = len(shape) - n_batch - n_dense
  batch, sparse, dense = (shape[:n_batch], shape[n_batch:n_batch + n_sparse],
                          shape[n_batch + n_sparse:])
  size = math.prod(sparse)
  if not 0 <= nse < size:
    raise ValueError(f"got nse={nse!r}, expected to be between 0 and {size}")
  if 0 < nse < 1:
    nse = int(math.ceil(nse * size))
  nse = operator.index(nse)
  if indices_dtype is None:
    indices_dtype = dtypes.default_int_dtype()
  if size > np.iinfo(indices_dtype).max:
    raise ValueError(f"indices_dtype={indices_dtype!r} does not have enough range to "
                     f"generate sparse indices of size {size}.")

  def positions(k):
    if not sparse:
      return jnp.zeros((nse, n_sparse), dtype=indices_dtype)
    flat = choice(k, size, shape=(nse,), replace=not unique_indices).astype(indices_dtype)
    return jnp.column_stack(jnp.unravel_index(flat, sparse))
  keys = split(key, math.prod(batch) + 1)
  data = generator(keys[0], shape=batch + (nse,) + dense, dtype=dtype, **kwds)
  indices = vmap(positions)(keys[1:]).reshape(batch + (nse, n_sparse))
  mat = BCOO((data, indices), shape=shape)
  return mat.sort_indices() if sorted_indices else mat
