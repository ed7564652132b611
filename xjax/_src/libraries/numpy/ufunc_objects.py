"""The jnp functions JAX exposes as ``jnp.ufunc`` objects (``jnp.add.reduce``,
``jnp.multiply.outer``, ``jnp.add.at``, ...), with efficient method implementations."""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.values import get_aval
from xjax._src.primitives.lax.elementwise import (add as lax_add, bitwise_and as lax_and,
                                                  bitwise_or as lax_or,
                                                  bitwise_xor as lax_xor, convert_element_type,
                                                  exp as lax_exp, is_finite, log as lax_log,
                                                  select_n, sub as lax_sub)
from xjax._src.primitives.lax.reductions import reduce_and, reduce_or, reduce_xor
from xjax._src.primitives.lax.shapes import expand_dims, full_like
from xjax._src.primitives.lax.stop_gradient import stop_gradient
from xjax._src.libraries.numpy import composed_math
from xjax._src.libraries.numpy import cumulative
from xjax._src.libraries.numpy import reductions
from xjax._src.libraries.numpy import ufuncs
from xjax._src.libraries.numpy.arguments import arraylike
from xjax._src.libraries.numpy.creation import asarray
from xjax._src.libraries.numpy.promotion import promote_dtypes_inexact
from xjax._src.libraries.numpy.ufunc_class import ufunc
from xjax._src.libraries.numpy.where import where as _where


def _reduction(fn):
  def reduce(a, axis=0, dtype=None, keepdims=False, initial=None, where=None):
    kwargs = {} if initial is None else {"initial": initial}
    if dtype is not None:  # max/min take no dtype
      kwargs["dtype"] = dtype
    return fn(a, axis=axis, keepdims=keepdims, where=where, **kwargs)
  return reduce


def _bits_reduction(name, reduce_fn, identity, combine, to_bool=False):
  """A reduction with a bitwise op (of integers and booleans, or of truth values when
  ``to_bool``), as JAX's: ``where`` fills with ``identity``, ``initial`` joins last."""
  def reduce(a, axis=0, dtype=None, keepdims=False, initial=None, where=None):
    a, = arraylike(name, a)
    a = asarray(a)
    aval = get_aval(a)
    if to_bool:
      a = convert_element_type(composed_math.real(a) if dtypes.is_complex(aval.dtype) else a,
                               np.bool_)
    elif not (aval.dtype == np.bool_ or dtypes.is_integer(aval.dtype)):
      raise ValueError(f"integer argument required; got dtype={aval.dtype}")
    if dtype is not None:
      a = convert_element_type(a, dtypes.check_user_dtype_supported(dtype, name))
    axes = reductions._axes(axis, aval.ndim)
    if where is not None:
      a = _where(where, a, np.array(identity).astype(get_aval(a).dtype)[()])
    out = reduce_fn(a, axes)
    if initial is not None:
      out = combine(convert_element_type(asarray(initial), get_aval(out).dtype), out)
    return reductions._keep(out, aval, axes, keepdims)
  return reduce


def _logsumexp(a, axis=None, dtype=None, keepdims=False, initial=None, where=None):
  """log(sum(exp(a))) along ``axis``, as JAX's ``logaddexp.reduce``: shifted by the
  (gradient-free) finite maximum; ``dtype`` is checked, and ignored as by JAX."""
  if dtype is not None:
    dtypes.check_user_dtype_supported(dtype, "jnp.logaddexp.reduce")
  a, = arraylike("logsumexp", a)
  (a,) = promote_dtypes_inexact(asarray(a))
  ndim = get_aval(a).ndim
  dims = reductions._axes(axis, ndim)
  amax = reductions.max(composed_math.real(a), axis=dims, keepdims=keepdims, where=where,
                        initial=-np.inf)
  amax = stop_gradient(select_n(is_finite(amax), full_like(amax, 0), amax))
  amax_dims = amax if keepdims else expand_dims(amax, tuple(sorted(dims)))
  exp_a = lax_exp(lax_sub(a, convert_element_type(amax_dims, get_aval(a).dtype)))
  sumexp = reductions.sum(exp_a, axis=dims, keepdims=keepdims, where=where)
  result = lax_add(lax_log(sumexp), convert_element_type(amax, get_aval(sumexp).dtype))
  return result if initial is None else composed_math.logaddexp(initial, result)


def _logsumexp2(a, axis=None, dtype=None, keepdims=False, initial=None, where=None):
  """log2(sum(2 ** a)) through ``_logsumexp``, as JAX's ``logaddexp2.reduce``."""
  if dtype is not None:
    dtypes.check_user_dtype_supported(dtype, "jnp.logaddexp2.reduce")
  a, = arraylike("logsumexp2", a)
  ln2 = float(np.log(2))
  if initial is not None:
    initial = initial * ln2
  return ufuncs.divide(_logsumexp(ufuncs.multiply(asarray(a), ln2), axis=axis, dtype=dtype,
                                  keepdims=keepdims, where=where, initial=initial), ln2)


def _scatter(method, through_int=False):
  def at(a, indices, b):
    a = asarray(a)
    if through_int and get_aval(a).dtype == np.bool_:  # (a bool scatter-add is not one)
      b = convert_element_type(convert_element_type(asarray(b), np.bool_), np.int32)
      out = getattr(convert_element_type(a, np.int32).at[indices], method)(b)
      return convert_element_type(out, np.bool_)
    return getattr(a.at[indices], method)(b)
  return at


def _binary(fn, identity, reduce=None, accumulate=None, at=None, name=None):
  return ufunc(fn, 2, 1, name=name or fn.__name__, identity=identity, call=fn,
               reduce=reduce, accumulate=accumulate, at=at)


add = _binary(ufuncs.add, 0, _reduction(reductions.sum), cumulative.cumsum,
              _scatter("add", through_int=True))
multiply = _binary(ufuncs.multiply, 1, _reduction(reductions.prod), cumulative.cumprod,
                   _scatter("multiply", through_int=True))
subtract = _binary(ufuncs.subtract, None, at=_scatter("subtract"))
maximum = _binary(ufuncs.maximum, None, _reduction(reductions.max))
minimum = _binary(ufuncs.minimum, None, _reduction(reductions.min))
logical_and = _binary(ufuncs.logical_and, True, _bits_reduction(
    "reduce_logical_and", reduce_and, True, lax_and, to_bool=True))
logical_or = _binary(ufuncs.logical_or, False, _bits_reduction(
    "reduce_logical_or", reduce_or, False, lax_or, to_bool=True))
logical_xor = _binary(ufuncs.logical_xor, False, _bits_reduction(
    "reduce_logical_xor", reduce_xor, False, lax_xor, to_bool=True))
bitwise_and = _binary(ufuncs.bitwise_and, -1, _bits_reduction(
    "reduce_bitwise_and", reduce_and, -1, lax_and))
bitwise_or = _binary(ufuncs.bitwise_or, 0, _bits_reduction(
    "reduce_bitwise_or", reduce_or, 0, lax_or))
bitwise_xor = _binary(ufuncs.bitwise_xor, 0, _bits_reduction(
    "reduce_bitwise_xor", reduce_xor, 0, lax_xor))
logaddexp = _binary(composed_math.logaddexp, -np.inf, _logsumexp)
logaddexp2 = _binary(composed_math.logaddexp2, -np.inf, _logsumexp2)
negative = ufunc(ufuncs.negative, 1, 1, name="negative", call=ufuncs.negative)
