"""Spherical harmonics Y_n^m(theta, phi) (SciPy's ``sph_harm_y`` convention: theta polar,
phi azimuthal), from orthonormalized associated Legendre recurrences in the degree."""
from __future__ import annotations

import numpy as np

from xjax._src.libraries.numpy import lax_numpy as jnp


def _concrete_int(value, what):
  try:
    return int(np.max(np.asarray(value)))
  except Exception:
    raise TypeError(f"{what} must be statically specified (a concrete integer) to use "
                    "sph_harm_y within transformations; pass n_max.") from None


def sph_harm_y(n, m, theta, phi, diff_n=None, n_max=None):
  """Y_n^m(theta, phi), orthonormal on the sphere, with the Condon-Shortley phase."""
  if diff_n is not None:
    raise NotImplementedError(
        "The 'diff_n' argument to jax.scipy.special.sph_harm_y is not supported.")
  n_max = _concrete_int(n if n_max is None else n_max, "The `n_max` argument")
  n, m = jnp.asarray(n), jnp.asarray(m)
  theta, phi = jnp.asarray(theta), jnp.asarray(phi)
  if jnp.issubdtype(theta.dtype, jnp.integer):
    theta = theta.astype(float)
  n, m, theta, phi = jnp.broadcast_arrays(n, m, theta, phi)
  n = jnp.minimum(n, n_max)
  am = jnp.abs(m)
  x, s = jnp.cos(theta), jnp.sin(theta)
  # p_mm = (-1)^m sqrt((2m+1)/(4 pi) prod_{k=1}^m (2k-1)/(2k)) sin^m(theta)
  p_mm = jnp.full_like(x, 1 / np.sqrt(4 * np.pi))
  for k in range(1, n_max + 1):
    p_mm = jnp.where(k <= am, p_mm * (-np.sqrt((2 * k + 1) / (2 * k))) * s, p_mm)
  amf = am.astype(x.dtype)
  # upward in degree l from |m|: p_l = a_l (x p_{l-1} - p_{l-2} / a_{l-1})
  prev2, prev = jnp.zeros_like(x), p_mm
  result = jnp.where(n == am, p_mm, 0.0)
  for l in range(1, n_max + 1):
    lf = float(l)
    active = l > am
    a_l = jnp.sqrt((4 * lf * lf - 1) / jnp.maximum(lf * lf - amf * amf, 1.0))
    a_prev = jnp.sqrt((4 * (lf - 1) ** 2 - 1) / jnp.maximum((lf - 1) ** 2 - amf * amf, 1.0))
    nxt = a_l * (x * prev - jnp.where(l - 1 > am, prev2 / a_prev, 0.0))
    prev2, prev = jnp.where(active, prev, prev2), jnp.where(active, nxt, prev)
    result = jnp.where(active & (n == l), nxt, result)
  angle = amf * phi
  y = result * jnp.cos(angle) + 1j * (result * jnp.sin(angle))
  sign = jnp.where(am % 2 == 1, -1.0, 1.0)
  return jnp.where(m < 0, sign * jnp.conj(y), y)
