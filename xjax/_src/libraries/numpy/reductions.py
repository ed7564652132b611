"""Reductions: sum, prod, max, min, all, any, mean, var, std, argmax, argmin."""
from __future__ import annotations

import inspect
import math

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.values import get_aval
from xjax._src.core.concrete import concrete_or_error
from xjax._src.api.call_tracing import check_hashable
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax.dimension_values import dimension_constant
from xjax._src.primitives.lax.elementwise import (conj, convert_element_type, div, gt, mul, ne,
                                                  real, sqrt, square, sub)
from xjax._src.primitives.lax.reductions import (argmax as lax_argmax, argmin as lax_argmin,
                                                 reduce_and, reduce_max, reduce_min, reduce_or,
                                                 reduce_prod, reduce_sum)
from xjax._src.primitives.lax.shapes import expand_dims, reshape
from xjax._src.libraries.numpy import ufuncs
from xjax._src.libraries.numpy.arguments import canonical_axis, arraylike, index_tuple
from xjax._src.libraries.numpy.shaping import broadcast_to
from xjax._src.libraries.numpy.where import where as _where


def _axes(axis, ndim, error=ValueError):
  if axis is None:
    return tuple(range(ndim))
  axis = concrete_or_error(axis, "axis")
  axes = tuple(canonical_axis(a, ndim, error=error) for a in index_tuple(axis))
  if len(set(axes)) != len(axes):
    raise ValueError(f"duplicate value in 'axis': {axis}")
  return axes


def _keep(out, aval, axes, keepdims):
  check_hashable(keepdims, "'keepdims'")  # JAX's reductions take it as a static argument
  if not keepdims:
    return out
  return expand_dims(out, tuple(sorted(axes)))


def _check_out(out, name):
  if out is not None:
    raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported: xjax "
                              "arrays are immutable. Use the returned value instead.")


def _accumulation_dtype(dtype):
  """float16/bfloat16 sums accumulate in float32 (then round once), as JAX."""
  return np.dtype(np.float32) if dtype in (np.float16, dtypes.bfloat16) else dtype


def _reduction(name, reduce_fn, identity_op, upcast_bool, upcast_f16=False, bool_fn=None):
  """A jnp reduction by ``reduce_fn`` (``bool_fn`` where it accumulates booleans: lax's sum
  and product take numbers only)."""
  def fn(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,
         promote_integers=True):
    _check_out(out, name)
    a, = arraylike(name, a)
    aval = get_aval(a)
    if dtype is not None:
      dt = dtypes.check_user_dtype_supported(dtype, name)
    elif upcast_bool and aval.dtype == np.bool_:
      dt = dtypes.default_int_dtype()
    elif upcast_bool and promote_integers and dtypes.is_integer(aval.dtype) and \
        aval.dtype.itemsize < dtypes.default_int_dtype().itemsize:
      dt = dtypes.default_uint_dtype() if dtypes.is_unsigned(aval.dtype) else \
          dtypes.default_int_dtype()
    else:
      dt = aval.dtype
    # an explicit dtype is the accumulation dtype too (as JAX)
    ct = _accumulation_dtype(dt) if upcast_f16 and dtype is None else dt
    if upcast_bool and aval.dtype == np.bool_:  # booleans are counted as integers first
      a = convert_element_type(a, dtypes.default_int_dtype(), False)
    x = convert_element_type(a, ct, False)  # reductions are strongly typed
    axes = _axes(axis, aval.ndim)
    if where is not None:
      if identity_op in ("max", "min") and initial is None:
        raise ValueError(f"reduction operation {name} does not have an identity, so to use "
                         "a where mask one has to specify 'initial'")
      ident = _identity_value(identity_op, ct)
      x = _where(broadcast_to(where, aval.shape), x, ident)
    if identity_op in ("max", "min") and initial is None and where is None:
      for ax in axes:
        if aval.shape[ax] == 0:
          raise ValueError(f"zero-size array to reduction operation {name} which has no "
                           "identity")
    if initial is not None and np.ndim(initial) != 0:
      raise ValueError(f"initial value must be a scalar. Got array of shape {np.shape(initial)}")
    result = (bool_fn if bool_fn is not None and ct == np.bool_ else reduce_fn)(x, axes)
    if initial is not None:
      combine = {"add": ufuncs.add, "mul": ufuncs.multiply, "max": ufuncs.maximum,
                 "min": ufuncs.minimum, "and": ufuncs.logical_and,
                 "or": ufuncs.logical_or}[identity_op]
      result = convert_element_type(combine(initial, result), get_aval(result).dtype)
    if ct != dt:
      result = convert_element_type(result, dt, False)
    return _keep(result, aval, axes, keepdims)
  fn.__name__ = name
  return fn


def _identity_value(op, dtype):
  from xjax._src.primitives.lax.reductions import _identity
  return _identity(op, dtype)[()]


_STATIC = ("axis", "dtype", "out", "keepdims", "ddof", "correction", "promote_integers")


def _compiled(fn):
  """``fn`` run as one program per signature when eager; its non-array parameters static."""
  params = inspect.signature(fn).parameters
  return compiled_when_eager(fn, static_argnames=tuple(p for p in _STATIC if p in params))


sum = _compiled(_reduction("sum", reduce_sum, "add", True, upcast_f16=True, bool_fn=reduce_or))
prod = _compiled(_reduction("prod", reduce_prod, "mul", True, upcast_f16=True,
                            bool_fn=reduce_and))


def _without_dtype(red):
  """max/min take no ``dtype`` (as in JAX), so their positional order differs from sum's."""
  def fn(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    return red(a, axis, None, out, keepdims, initial, where)
  fn.__name__ = red.__name__
  return fn


max = _compiled(_without_dtype(_reduction("max", reduce_max, "max", False)))
min = _compiled(_without_dtype(_reduction("min", reduce_min, "min", False)))
amax, amin = max, min


def _bool_reduction(name, reduce_fn, op):
  def fn(a, axis=None, out=None, keepdims=False, *, where=None):
    _check_out(out, name)
    a, = arraylike(name, a)
    aval = get_aval(a)
    x = convert_element_type(a, np.bool_, False) if aval.dtype == np.bool_ else \
        ne(a, np.zeros((), aval.dtype)[()])
    axes = _axes(axis, aval.ndim)
    if where is not None:
      x = _where(where, x, op == "and")
    return _keep(reduce_fn(x, axes), aval, axes, keepdims)
  fn.__name__ = name
  return fn


all = _compiled(_bool_reduction("all", reduce_and, "and"))
any = _compiled(_bool_reduction("any", reduce_or, "or"))


def _count(aval, axes):
  return math.prod([aval.shape[a] for a in axes])


@_compiled
def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
  _check_out(out, "mean")
  a, = arraylike("mean", a)
  aval = get_aval(a)
  axes = _axes(axis, aval.ndim, IndexError)
  if dtype is None:
    dt = dtypes.to_inexact_dtype(aval.dtype)
  else:
    dt = dtypes.check_user_dtype_supported(dtype, "mean")
  ct = _accumulation_dtype(dt) if dtype is None else dt
  if where is None:  # (the count first, as JAX)
    n = dimension_constant(_count(aval, axes), dtypes.canonicalize_dtype(ct))
    out = div(sum(a, axis=axes, dtype=ct, keepdims=keepdims), n)
  else:  # (the count first, as JAX)
    count = sum(broadcast_to(where, aval.shape), axis=axes, dtype=ct, keepdims=keepdims)
    out = div(sum(a, axis=axes, dtype=ct, keepdims=keepdims, where=where), count)
  return out if ct == dt else convert_element_type(out, dt, False)


_mean = mean  # var's and std's `mean=` keyword shadows the name


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
        mean=None, correction=None):
  """The variance along ``axis``; ``mean`` (with the reduced axes kept) skips computing it."""
  ddof = _ddof("var", a, out, ddof, correction)
  axes = _axes(axis, get_aval(a).ndim, IndexError)
  return _var(a, ddof, axis=axes, dtype=dtype, keepdims=keepdims, where=where, mean=mean)


def _ddof(name, a, out, ddof, correction):
  """var's and std's ddof (``correction`` is its other name), their arguments checked first
  as JAX checks them."""
  _check_out(out, name)
  a, = arraylike(name, a)
  if correction is not None:
    if ddof != 0:
      raise ValueError("ddof and correction can't be provided simultaneously.")
    ddof = correction
  return ddof


@compiled_when_eager(staged="_var", static_argnames=("axis", "dtype", "keepdims"))
def _var(a, ddof, *, axis, dtype, keepdims, where, mean):
  """``var`` with its reduced ``axis`` resolved; ``ddof`` a (traced) argument, as JAX's."""
  aval = get_aval(a)
  dt = dtypes.to_inexact_dtype(aval.dtype) if dtype is None else \
      dtypes.check_user_dtype_supported(dtype, "var")
  if dt == np.bool_:
    raise TypeError("var does not accept dtype bool")
  out_dt = dt
  dt = _accumulation_dtype(dt)  # var always accumulates float16/bfloat16 in float32
  x = convert_element_type(a, dt, False)
  if mean is None:
    mean = _mean(x, axis=axis, dtype=dt, keepdims=True, where=where)
  else:
    mean, = arraylike("var", mean)
    mean = convert_element_type(mean, dt, False)
  centered = sub(x, mean)
  if dtypes.is_complex(dt):
    sq = real(mul(centered, conj(centered)))
  else:
    sq = square(centered)
  rdt = get_aval(sq).dtype
  if where is None:
    count = dimension_constant(_count(aval, axis), rdt)
  else:
    count = sum(broadcast_to(where, aval.shape), axis=axis, keepdims=keepdims, dtype=rdt)
  denom = sub(count, convert_element_type(ddof, rdt))
  total = sum(sq, axis=axis, keepdims=keepdims, where=where)
  out = div(total, denom)
  if not dtypes.is_inexact(dt):  # as JAX: integer arithmetic, then a weakly typed float
    return convert_element_type(out, dtypes.default_float_dtype(), True)
  out = out if out_dt == dt else convert_element_type(out, out_dt, False)
  # no degrees of freedom left: NaN (as JAX), not +-inf
  return _where(gt(denom, np.zeros((), rdt)[()]), out, np.nan)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
        mean=None, correction=None):
  ddof = _ddof("std", a, out, ddof, correction)
  checked = None if dtype is None else dtypes.check_user_dtype_supported(dtype, "std")
  if checked is not None and not dtypes.is_inexact(checked):
    raise ValueError(f"dtype argument to jnp.std must be inexact; got {checked}")
  axes = _axes(axis, get_aval(a).ndim, IndexError)
  return _std(a, ddof, axis=axes, dtype=dtype, keepdims=keepdims, where=where, mean=mean)


@compiled_when_eager(staged="_std", static_argnames=("axis", "dtype", "keepdims"))
def _std(a, ddof, *, axis, dtype, keepdims, where, mean):
  return sqrt(_var(a, ddof, axis=axis, dtype=dtype, keepdims=keepdims, where=where,
                   mean=mean))


def _arg(name, fn):
  def arg(a, axis=None, out=None, keepdims=False):
    _check_out(out, name)
    a, = arraylike(name, a)
    aval = get_aval(a)
    if axis is None:
      if aval.size == 0:
        raise ValueError(f"attempt to get {name} of an empty sequence")
      flat = reshape(a, (aval.size,))
      out_ = fn(flat, 0, dtypes.default_int_dtype())
      return reshape(out_, (1,) * aval.ndim) if keepdims else out_
    if aval.ndim == 0:
      raise IndexError(f"{name}: axis {axis} is out of bounds for array of dimension 0")
    ax = canonical_axis(axis, aval.ndim, error=IndexError)
    out_ = fn(a, ax, dtypes.default_int_dtype())
    return expand_dims(out_, (ax,)) if keepdims else out_
  arg.__name__ = name
  return arg


argmax = _compiled(_arg("argmax", lax_argmax))
argmin = _compiled(_arg("argmin", lax_argmin))
