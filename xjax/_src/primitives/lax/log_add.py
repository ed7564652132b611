"""log(exp(a) + exp(b)) of complex values, as JAX computes it (for ``jnp.logaddexp``,
``logaddexp2`` and ``lax.cumlogsumexp``): the larger operand (by real, then imaginary part)
plus log1p(exp(a + b - 2 max)), its imaginary part wrapped into one period."""
from __future__ import annotations

import numpy as np

from xjax._src.core.values import get_aval
from xjax._src.primitives.lax.elementwise import (add, complex, exp, imag, log1p, lt, max, mul,
                                                  real, rem, select_n, sub)


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
