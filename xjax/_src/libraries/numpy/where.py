"""``where``: the 3-argument form over select_n; the 1-argument form is ``nonzero``."""
from __future__ import annotations

import numpy as np

from xjax._src.core.values import get_aval
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax.elementwise import ne, select_n
from xjax._src.libraries.numpy.arguments import arraylike
from xjax._src.libraries.numpy.nonzero import nonzero
from xjax._src.libraries.numpy.promotion import promote_dtypes
from xjax._src.libraries.numpy.shaping import broadcast_arrays


def where(condition, x=None, y=None, /, *, size=None, fill_value=None):
  """``x`` where ``condition`` else ``y``; with one argument, ``nonzero(condition)``."""
  if x is None and y is None:
    return nonzero(condition, size=size, fill_value=fill_value)
  if x is None or y is None:
    raise TypeError("Either both or neither of the x and y arguments should be provided "
                     "to jax.numpy.where.")
  arraylike("where", condition, x, y)   # (checked; ``_where`` takes them as JAX's jit does)
  return _where(condition, x, y)


def where_inline(condition, x, y):
  """The 3-argument ``where`` traced inline (library code JAX writes with ``lax.select``,
  whose jaxprs show no nested ``_where`` call)."""
  condition, x, y = arraylike("where", condition, x, y)
  cond = condition if get_aval(condition).dtype == np.bool_ else ne(
      condition, np.zeros((), get_aval(condition).dtype)[()])
  x, y = promote_dtypes(x, y)
  if get_aval(cond).ndim == 0:   # a scalar predicate selects whole arrays (as JAX)
    x, y = broadcast_arrays(x, y)
  else:
    cond, x, y = broadcast_arrays(cond, x, y)
  return select_n(cond, y, x)


_where = compiled_when_eager(where_inline, staged="_where")   # (as JAX jits it)
