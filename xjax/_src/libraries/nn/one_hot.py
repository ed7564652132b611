"""one_hot: integer class indices to indicator vectors along a new axis."""
from __future__ import annotations

import operator
import warnings

from xjax._src.foundations import dtypes
from xjax._src.core.concrete import concrete_or_error
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax.shapes import broadcasted_iota
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.numpy.arguments import canonical_axis


def one_hot(x, num_classes: int, *, dtype=None, axis=-1):
  """``x[..., None] == arange(num_classes)`` as ``dtype`` (default float), the class axis
  placed at ``axis``; out-of-range indices give all-zero rows."""
  num_classes = operator.index(concrete_or_error(num_classes, "jax.nn.one_hot `num_classes`"))
  x = jnp.asarray(x)
  if not dtypes.issubdtype(x.dtype, jnp.integer):
    warnings.warn(f"jax.nn.one_hot input should be integer-typed; got dtype={x.dtype}",
                  DeprecationWarning, stacklevel=2)
  dtype = dtypes.default_float_dtype() if dtype is None else dtype
  return _one_hot(x, num_classes=num_classes, dtype=dtype, axis=axis)


@compiled_when_eager(staged="_one_hot", static_argnames=("num_classes", "dtype", "axis"))
def _one_hot(x, *, num_classes, dtype, axis):
  out_axis = canonical_axis(axis, x.ndim + 1)
  indices = jnp.expand_dims(x, out_axis)
  shape = [1] * x.ndim
  shape.insert(out_axis, num_classes)
  classes = broadcasted_iota(x.dtype, tuple(shape), out_axis)
  return (indices == classes).astype(dtype)
