"""Numerical ranges: linspace, logspace, geomspace (evenly spaced on a linear or log scale)."""
from __future__ import annotations

import operator

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.concrete import concrete_or_error
from xjax._src.core.values import get_aval
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax.elementwise import (add, convert_element_type, div as lax_div, floor,
                                                  mul, sub)
from xjax._src.primitives.lax.shapes import (broadcast_in_dim, concatenate, full, iota, reshape,
                                             transpose)
from xjax._src.libraries.numpy.arguments import check_arraylike, canonical_axis
from xjax._src.libraries.numpy.composed_math import log10
from xjax._src.libraries.numpy.creation import _requested_dtype, _with_device, asarray
from xjax._src.libraries.numpy.shaping import broadcast_arrays
from xjax._src.libraries.numpy.ufuncs import multiply, power, sign


@_with_device
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
  """``num`` evenly spaced samples over [start, stop] (num must be static); one compiled
  program per signature when eager, as JAX's."""
  check_arraylike("linspace", start, stop)
  num = operator.index(concrete_or_error(num, "'num' argument of jnp.linspace"))
  if num < 0:
    raise ValueError(f"Number of samples, {num}, must be non-negative.")
  return _linspace(start, stop, num=num, endpoint=endpoint, retstep=retstep,
                   dtype=_requested_dtype(dtype, "linspace"), axis=axis)


@compiled_when_eager(staged="_linspace",
                     static_argnames=("num", "endpoint", "retstep", "dtype", "axis"))
def _linspace(start, stop, *, num, endpoint, retstep, dtype, axis):
  """JAX's formula: ``start * (1 - t) + stop * t`` for ``t = i / div``, the endpoint
  appended as ``stop`` itself, in the requested dtype's inexact counterpart."""
  start, stop = asarray(start), asarray(stop)
  out_dt = dtype or dtypes.to_inexact_dtype(dtypes.result_type(start, stop))
  comp = dtypes.to_inexact_dtype(out_dt)
  start, stop = broadcast_arrays(convert_element_type(start, comp),
                                 convert_element_type(stop, comp))
  bshape = get_aval(start).shape

  div = (num - 1) if endpoint else num
  ax = canonical_axis(axis, len(bshape) + 1)
  along = lambda n: bshape[:ax] + (n,) + bshape[ax:]  # noqa: E731 - the bounds' shape, n at ax

  def expanded(v):  # ``v`` with a new axis ``ax`` of size 1
    return broadcast_in_dim(v, along(1), tuple(d + (d >= ax) for d in range(len(bshape))))

  if num > 1:
    delta = lax_div(sub(stop, start), np.asarray(div, comp)[()])
    real = dtypes.finfo(comp).dtype
    t = iota(real, div)
    if bshape:
      t = reshape(t, tuple(div if d == ax else 1 for d in range(len(bshape) + 1)))
    t = convert_element_type(lax_div(t, np.asarray(div, real)[()]), comp)
    # start * (1 - t) + stop * t, the bounds stretched along ``ax`` by the products
    out = add(mul(reshape(start, along(1)), sub(np.asarray(1, comp)[()], t)),
              mul(reshape(stop, along(1)), t))
    if endpoint:
      out = concatenate([out, expanded(stop)], ax)
  elif num == 1:
    out = reshape(start, along(1))
    delta = full((), np.nan, comp) if endpoint else sub(stop, start)
  else:
    out = full(along(0), 0, comp)
    delta = full((), np.nan, comp)
  if dtypes.is_integer(out_dt):
    out = floor(out)
  out = convert_element_type(out, out_dt)
  return (out, delta) if retstep else out


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
  """``base ** linspace(start, stop)``; one compiled program per signature when eager."""
  num = operator.index(concrete_or_error(num, "'num' argument of jnp.logspace"))
  axis = operator.index(concrete_or_error(axis, "'axis' argument of jnp.logspace"))
  return _logspace(start, stop, base, num=num, endpoint=endpoint,
                   dtype=_requested_dtype(dtype, "logspace"), axis=axis)


@compiled_when_eager(staged="_logspace", static_argnames=("num", "endpoint", "dtype", "axis"))
def _logspace(start, stop, base, *, num, endpoint, dtype, axis):
  dtype = dtype or dtypes.to_inexact_dtype(dtypes.result_type(start, stop))
  comp = dtypes.to_inexact_dtype(dtype)
  start = convert_element_type(asarray(start), comp)
  stop = convert_element_type(asarray(stop), comp)
  lin = linspace(start, stop, num, endpoint=endpoint, axis=axis)
  return convert_element_type(power(base, lin), dtype)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
  """Samples evenly spaced on a log scale, from start to stop (same sign); one compiled
  program per signature when eager."""
  num = operator.index(concrete_or_error(num, "'num' argument of jnp.geomspace"))
  axis = operator.index(concrete_or_error(axis, "'axis' argument of jnp.geomspace"))
  return _geomspace(start, stop, num=num, endpoint=endpoint,
                    dtype=_requested_dtype(dtype, "geomspace"), axis=axis)


@compiled_when_eager(staged="_geomspace", static_argnames=("num", "endpoint", "dtype", "axis"))
def _geomspace(start, stop, *, num, endpoint, dtype, axis):
  dtype = dtype or dtypes.to_inexact_dtype(dtypes.result_type(start, stop))
  comp = dtypes.to_inexact_dtype(dtype)
  start = convert_element_type(asarray(start), comp)
  stop = convert_element_type(asarray(stop), comp)
  sgn = sign(start)
  # dividing by the sign (not abs) makes a zero start NaN throughout, as in JAX
  out = multiply(sgn, logspace(log10(lax_div(start, sgn)), log10(lax_div(stop, sgn)), num,
                               endpoint=endpoint, base=10.0, dtype=comp, axis=0))
  axis = canonical_axis(axis, get_aval(out).ndim)
  if axis != 0:
    out = transpose(out, (*range(1, axis + 1), 0, *range(axis + 1, get_aval(out).ndim)))
  return convert_element_type(out, dtype)
