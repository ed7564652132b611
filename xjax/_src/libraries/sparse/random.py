"""`random_bcoo`: a BCOO with randomly placed entries and random values."""
from __future__ import annotations

import math
import operator


from xjax._src.libraries.random.continuous import uniform
from xjax._src.libraries.random.discrete import choice
from xjax._src.libraries.random.keys import split
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.sparse.batched import nfold_vmap
from xjax._src.libraries.sparse.bcoo import BCOO


def random_bcoo(key, shape, *, dtype=jnp.float32, indices_dtype=jnp.int32, nse=0.2,
                n_batch=0, n_dense=0, unique_indices=True, sorted_indices=False,
                generator=uniform, **kwds) -> BCOO:
  """A BCOO of `shape` with `nse` entries per batch (a fraction of the sparse size when
  below 1) at random positions (distinct with `unique_indices`), values from
  `generator(key, shape, dtype, **kwds)`."""
  shape = tuple(operator.index(s) for s in shape)
  n_sparse = len(shape) - n_batch - n_dense
  if n_sparse < 0:
    raise ValueError(f"n_batch={n_batch} and n_dense={n_dense} exceed shape {shape}")
  batch, sparse, dense = shape[:n_batch], shape[n_batch:n_batch + n_sparse], (
      shape[n_batch + n_sparse:])
  size = math.prod(sparse)
  nse = int(nse * size) if 0 < nse < 1 else operator.index(nse)
  if unique_indices and nse > size:
    raise ValueError(f"nse={nse} is larger than the {size} positions of unique indices")
  data_key, index_key = split(key)
  data = generator(data_key, shape=batch + (nse,) + dense, dtype=dtype, **kwds)

  def positions(k):
    flat = choice(k, size, shape=(nse,), replace=not unique_indices)
    if sorted_indices:
      flat = jnp.sort(flat)
    return jnp.stack(jnp.unravel_index(flat, sparse), axis=-1).astype(indices_dtype)
  keys = split(index_key, math.prod(batch)).reshape(batch + index_key.shape)
  indices = nfold_vmap(positions, n_batch)(keys)
  return BCOO((data, indices.reshape(batch + (nse, n_sparse))), shape=shape,
              indices_sorted=sorted_indices, unique_indices=unique_indices)


