"""log(exp(a) + exp(b)) and log2(2**a + 2**b), stably, as JAX's lax computes them (for
``jnp.logaddexp``, ``jnp.logaddexp2`` and ``lax.cumlogsumexp``'s derivative): custom_jvp
functions of same-dtype operands. Real: max(a, b) + log1p(exp(-|a - b|)). Complex: the
larger operand (by real, then imaginary part) plus log1p(exp(a + b - 2 max)), its imaginary
part wrapped into one period."""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.values import get_aval
from xjax._src.primitives.custom_derivatives import custom_jvp
from xjax._src.primitives.lax.elementwise import (abs, add, complex, eq, exp, exp2, imag, log1p,
                                                  lt, max, mul, ne, neg, real, rem, select_n, sub)
from xjax._src.primitives.lax.shapes import full_like


def _c(x, value):
  return np.asarray(value, get_aval(x).dtype)[()]


def wrapped(x, half: float):
  """``x`` wrapped into [-half, half)."""
  r = rem(add(x, _c(x, half)), _c(x, 2 * half))
  r = select_n(lt(r, _c(x, 0)), r, add(r, _c(x, 2 * half)))
  return sub(r, _c(x, half))


def log_add_complex(a, b, exp=exp, scale=None):
  """log(exp(a) + exp(b)) for complex ``a``, ``b`` in the base of ``exp`` (``scale``: the
  natural logarithm's factor to that base, 1/log(2) for exp2)."""
  amax = max(a, b)
  tail = log1p(exp(sub(add(a, b), mul(amax, _c(amax, 2)))))
  out = add(amax, tail if scale is None else mul(scale, tail))
  half_period = np.pi if scale is None else np.pi / np.log(2)
  return complex(real(out), wrapped(imag(out), half_period))


def _log_add(a, b, exp, scale=None):
  """max(a, b) + log1p(exp(-|a - b|)) (times ``scale``) in the base of ``exp``; a NaN
  difference (inf - inf, or a NaN) gives a + b."""
  if dtypes.is_complex(get_aval(a).dtype):
    return log_add_complex(a, b, exp, scale)
  amax = max(a, b)
  delta = sub(a, b)
  nan, both = ne(delta, delta), add(a, b)  # (in JAX's order, which its jaxprs show)
  tail = log1p(exp(neg(abs(delta))))
  return select_n(nan, add(amax, tail if scale is None else mul(scale, tail)), both)


def _named(name: str):
  """Gives a function the name JAX's jaxprs show for it (a custom_jvp's ``name``)."""
  def rename(f):
    f.__name__ = f.__qualname__ = name
    return f
  return rename


def _finite_above(x):
  """``x`` with +inf replaced by 0 (so that ``a - out`` is defined where ``out`` is +inf)."""
  return select_n(eq(x, _c(x, np.inf)), x, full_like(x, 0))


def _log_add_jvp(log_add, exp, primals, tangents):
  # d/da = exp(a - out), with +inf read as 0 on both sides (as JAX): 1/2 each at a == b,
  # 1 for an infinite side.
  a, b = primals
  ta, tb = tangents
  out = log_add(a, b)
  weight = lambda x: exp(sub(_finite_above(x), _finite_above(out)))
  return out, add(mul(ta, weight(a)), mul(tb, weight(b)))


@custom_jvp
@_named("logaddexp")
def logaddexp(a, b):
  return _log_add(a, b, exp)


@logaddexp.defjvp
def _logaddexp_jvp(primals, tangents):
  return _log_add_jvp(logaddexp, exp, primals, tangents)


@custom_jvp
@_named("logaddexp2")
def logaddexp2(a, b):
  scale = _c(a, 1 / np.log(2))
  return _log_add(a, b, exp2, scale.item() if get_aval(a).weak_type else scale)


@logaddexp2.defjvp
def _logaddexp2_jvp(primals, tangents):
  return _log_add_jvp(logaddexp2, exp2, primals, tangents)
