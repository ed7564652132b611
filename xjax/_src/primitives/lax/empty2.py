"""``empty2``: a 0-d value of ``dtype`` whose contents are unspecified (zeros here), JAX's
primitive for allocating scratch values (``jax.extend.core.primitives.empty2_p``).  The
``memory_space`` parameter is kept for JAX's signature; xjax has one memory space."""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.avals import MemorySpace, ShapedArray, physical_aval
from xjax._src.interpreters import ad
from xjax._src.primitives.lax import shapes
from xjax._src.primitives.lax.primitive_builders import standard_primitive


def _empty2_abstract_eval(*, dtype, memory_space):
  del memory_space
  return ShapedArray((), dtype if dtypes.is_extended(dtype) else np.dtype(dtype))


def _empty2_lowering(ctx, *, dtype, memory_space):
  stored = physical_aval(ctx.avals_out[0])
  return ctx.constant(np.zeros(stored.shape, stored.dtype), stored)


empty2_p = standard_primitive("empty2", _empty2_abstract_eval, _empty2_lowering)
ad.zero_jvp(empty2_p)
empty2_p.batch = lambda axis, args, dims, **params: (empty2_p.bind(**params), None)  # no operands


def empty_like_aval(aval: ShapedArray):
  """A value of ``aval``'s type with unspecified contents, as JAX's ``empty_like_aval``
  makes it (an ``empty2`` broadcast to the shape)."""
  x = empty2_p.bind(dtype=aval.dtype, memory_space=MemorySpace.Device)
  return shapes.broadcast_in_dim(x, aval.shape, ()) if aval.shape else x
