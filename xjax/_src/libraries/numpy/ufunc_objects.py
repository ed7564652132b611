"""The jnp functions JAX exposes as ``jnp.ufunc`` objects (``jnp.add.reduce``,
``jnp.multiply.outer``, ``jnp.add.at``, ...), with efficient method implementations."""
from __future__ import annotations

import numpy as np

from xjax._src.libraries.numpy import composed_math
from xjax._src.libraries.numpy import cumulative
from xjax._src.libraries.numpy import reductions
from xjax._src.libraries.numpy import ufuncs
from xjax._src.libraries.numpy.ufunc_class import ufunc


def _reduction(fn):
  def reduce(a, axis=0, dtype=None, keepdims=False, initial=None):
    kwargs = {} if initial is None else {"initial": initial}
    if dtype is not None:  # max/min take no dtype
      kwargs["dtype"] = dtype
    return fn(a, axis=axis, keepdims=keepdims, **kwargs)
  return reduce


def _bool_reduction(fn):
  def reduce(a, axis=0, dtype=None, keepdims=False, initial=None):
    out = fn(a, axis=axis, keepdims=keepdims)
    if initial is not None:
      out = (ufuncs.logical_and if fn is reductions.all else ufuncs.logical_or)(out, initial)
    return out if dtype is None else out.astype(dtype)
  return reduce


def _scatter(method):
  def at(a, indices, b):
    return getattr(a.at[indices], method)(b)
  return at


def _binary(fn, identity, reduce=None, accumulate=None, at=None, name=None):
  return ufunc(fn, 2, 1, name=name or fn.__name__, identity=identity, call=fn,
               reduce=reduce, accumulate=accumulate, at=at)


add = _binary(ufuncs.add, 0, _reduction(reductions.sum), cumulative.cumsum, _scatter("add"))
multiply = _binary(ufuncs.multiply, 1, _reduction(reductions.prod), cumulative.cumprod,
                   _scatter("multiply"))
subtract = _binary(ufuncs.subtract, None, at=_scatter("subtract"))
maximum = _binary(ufuncs.maximum, None, _reduction(reductions.max), at=_scatter("max"))
minimum = _binary(ufuncs.minimum, None, _reduction(reductions.min), at=_scatter("min"))
logical_and = _binary(ufuncs.logical_and, True, _bool_reduction(reductions.all))
logical_or = _binary(ufuncs.logical_or, False, _bool_reduction(reductions.any))
logical_xor = _binary(ufuncs.logical_xor, False)
bitwise_and = _binary(ufuncs.bitwise_and, -1)
bitwise_or = _binary(ufuncs.bitwise_or, 0)
bitwise_xor = _binary(ufuncs.bitwise_xor, 0)
logaddexp = _binary(composed_math.logaddexp, -np.inf)
logaddexp2 = _binary(composed_math.logaddexp2, -np.inf)
negative = ufunc(ufuncs.negative, 1, 1, name="negative", call=ufuncs.negative)
