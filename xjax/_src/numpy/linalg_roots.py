"""``roots``: polynomial roots as the eigenvalues of the companion matrix."""
from __future__ import annotations

import numpy as np

from xjax._src import core_concrete, dtypes
from xjax._src.lax import lax
from xjax._src.numpy import lax_numpy as jnp
from xjax._src.numpy.linalg import eigvals
from xjax._src.numpy.util import check_arraylike, promote_dtypes_inexact


def roots(p, *, strip_zeros: bool = True):
  """Roots (complex) of the polynomial with coefficients ``p``, highest power first.

  Leading zeros are stripped (which needs concrete coefficients); with
  ``strip_zeros=False`` they give NaN roots instead, and trailing zeros give zero roots.
  """
  check_arraylike("roots", p)
  (p,) = promote_dtypes_inexact(jnp.atleast_1d(jnp.asarray(p)))
  if p.ndim != 1:
    raise ValueError("Input must be a rank-1 array.")
  cdt = dtypes.to_complex_dtype(p.dtype)
  if p.shape[0] < 2:
    return jnp.zeros((0,), cdt)
  zero = p == 0
  leading = jnp.where(jnp.all(zero), p.shape[0], jnp.argmin(zero))
  if strip_zeros:
    leading = int(core_concrete.concrete_or_error(
        leading, "coefficients of jnp.roots() (to use it under jit, pass strip_zeros=False: "
        "leading zeros then give NaN roots)"))
    p = p[leading:]
    if p.shape[0] < 2:
      return jnp.zeros((0,), cdt)
    return _companion_roots(p)
  size = p.shape[0]
  p = jnp.where(leading == size, jnp.ones_like(p), p)  # all zeros: any finite companion
  shifted = jnp.take(p, (jnp.arange(size) + leading) % size)  # leading zeros to the end
  out = _companion_roots(shifted)
  out = lax.sort_key_val(out == 0, out)[1]  # their zero roots last, then replaced by NaN
  n = out.shape[0]
  return jnp.where(jnp.arange(n) < n - leading, out, np.array(complex(np.nan, np.nan), cdt))


def _companion_roots(p):
  n = p.shape[0] - 1
  top = -p[1:] / p[0]
  companion = jnp.concatenate([top[None, :], jnp.eye(n - 1, n, dtype=p.dtype)], axis=0)
  return eigvals(companion)
