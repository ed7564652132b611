"""logsumexp: log(sum(b * exp(a))) reduced stably, with weights, signs and masks."""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.primitives.lax.elementwise import add, exp, log, mul, sign as lax_sign, sub
from xjax._src.primitives.lax.stop_gradient import stop_gradient
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.numpy.arguments import canonical_axis
from xjax._src.libraries.numpy.where import where_inline
from xjax._src.libraries.scipy.arguments import inexact_arrays


def _reduction_dims(ndim, axis):
  """(positive dims sorted, dims) for a reduction over ``axis`` (None: all)."""
  if axis is None:
    dims = tuple(range(ndim))
  elif isinstance(axis, (tuple, list)):
    dims = tuple(canonical_axis(a, ndim) for a in axis)
  else:
    dims = (canonical_axis(axis, ndim),)
  if len(set(dims)) != len(dims):
    raise ValueError(f"duplicate value in 'axis': {axis}")
  return tuple(sorted(dims))


def logsumexp(a, axis=None, b=None, keepdims: bool = False, return_sign: bool = False,
              where=None):
  """log(sum(b * exp(a))) along ``axis``: the max is factored out (and held constant under
  differentiation) so large inputs neither overflow nor lose precision.

  With ``return_sign`` the result is ``(log|sum|, sign(sum))``; otherwise a negative sum
  gives NaN. ``where`` selects the elements that take part.
  """
  if where is not None:
    a = jnp.where(where, a, 0)
  if b is not None:
    try:
      np.broadcast_shapes(np.shape(a), np.shape(b))
    except ValueError:
      raise ValueError(f"logsumexp: incompatible shapes for broadcasting `a` and `b`: "
                       f"shapes=[{np.shape(a)}, {np.shape(b)}]") from None
    a, b = inexact_arrays("logsumexp", a, b)
    a = jnp.where(b != 0, a, -np.inf)
  else:
    (a,) = inexact_arrays("logsumexp", a)
  dims = _reduction_dims(a.ndim, axis)
  complex_in = dtypes.issubdtype(a.dtype, np.complexfloating)
  amax = jnp.max(jnp.real(a), axis=dims, keepdims=keepdims, where=where, initial=-np.inf)
  amax = stop_gradient(where_inline(jnp.isfinite(amax), amax, jnp.zeros_like(amax)))
  amax_b = amax if keepdims else jnp.expand_dims(amax, dims)
  # lax's arithmetic, as JAX's: a weak ``a`` meets the strong max without a conversion, so
  # its cotangent stays strong
  exp_a = exp(sub(a, amax_b.astype(a.dtype)))
  if b is not None:
    exp_a = mul(exp_a, b)
  total = jnp.sum(exp_a, axis=dims, keepdims=keepdims, where=where)
  sign = lax_sign(total)
  if return_sign or not complex_in:
    total = jnp.abs(total)
  out = add(log(total), amax.astype(total.dtype))
  if return_sign:
    return out, sign
  if b is not None and not complex_in:
    out = jnp.where(sign < 0, jnp.asarray(np.nan, out.dtype), out)
  return out
