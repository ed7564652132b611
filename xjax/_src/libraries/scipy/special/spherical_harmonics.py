"""Spherical harmonics Y_n^m(theta, phi) (SciPy's ``sph_harm_y`` convention: theta polar,
phi azimuthal), from orthonormalized associated Legendre recurrences in the degree, and the
associated Legendre functions themselves (``lpmn``, ``lpmn_values``)."""
from __future__ import annotations

import numpy as np

from xjax._src.core.concrete import concrete_or_error
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.libraries.numpy import namespace as jnp


def _concrete_int(value, what):
  value = concrete_or_error(value, "sph_harm_y n_max")
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


def _lpmn_args(m, n, z):
  m = int(concrete_or_error(m, "lpmn m"))
  n = int(concrete_or_error(n, "lpmn n"))
  if m < 0 or n < 0:  # an IndexError, as JAX's
    raise IndexError(f"lpmn: the order m and degree n must be non-negative, got m={m}, n={n}")
  if m != n:
    raise NotImplementedError("Computations for m!=n are not yet supported.")
  z = jnp.asarray(z)
  if z.ndim != 1:
    raise ValueError(f"z must be a 1D array, got shape {z.shape}.")
  if z.dtype not in (np.float32, np.float64):
    raise TypeError(f"z.dtype={z.dtype} is not supported, see docstring for supported types.")
  return n, z


def _legendre_table(n, z, normalized):
  """P[k][l] = P_l^k(z) for 0 <= k, l <= n (zero for k > l), with the Condon-Shortley
  phase; with ``normalized``, times sqrt((2l+1)/(4 pi) (l-k)!/(l+k)!), computed by the
  normalized recurrences (no overflow for large degrees)."""
  # the table is strongly typed even for a weak z (a bool array over 10), as JAX's
  zero = jnp.zeros(z.shape, z.dtype)
  s = jnp.sqrt(1 - z * z)  # NaN outside [-1, 1], as JAX
  table = [[zero] * (n + 1) for _ in range(n + 1)]
  diag = jnp.full(z.shape, 1 / np.sqrt(4 * np.pi) if normalized else 1.0, z.dtype)
  for k in range(n + 1):
    if k:  # P_k^k from P_{k-1}^{k-1}
      diag = diag * s * (-np.sqrt((2 * k + 1) / (2 * k)) if normalized else -(2 * k - 1.0))
    table[k][k] = diag
    if k + 1 <= n:
      table[k][k + 1] = z * diag * (np.sqrt(2 * k + 3) if normalized else 2 * k + 1.0)
    for l in range(k + 2, n + 1):
      p1, p2 = table[k][l - 1], table[k][l - 2]
      if normalized:
        a = np.sqrt((4 * l * l - 1) / (l * l - k * k))
        a1 = np.sqrt((4 * (l - 1) ** 2 - 1) / ((l - 1) ** 2 - k * k))
        table[k][l] = a * (z * p1 - p2 / a1)
      else:
        table[k][l] = ((2 * l - 1) * z * p1 - (l + k - 1) * p2) / (l - k)
  return table


def _legendre_derivatives(table, z):
  """dP_l^k/dz = (l z P_l^k - (l+k) P_{l-1}^k) / (z^2 - 1), with SciPy's limits at |z| = 1."""
  n = len(table) - 1
  edge = jnp.abs(z) == 1
  z2m1 = jnp.where(edge, 1.0, z * z - 1)
  out = [[jnp.zeros_like(z)] * (n + 1) for _ in range(n + 1)]
  for k in range(n + 1):
    for l in range(max(k, 1), n + 1):
      below = table[k][l - 1] if l - 1 >= k else 0.0
      inner = (l * z * table[k][l] - (l + k) * below) / z2m1
      if k == 0:
        limit = l * (l + 1) / 2 * z ** (l + 1)
      elif k == 1:
        limit = jnp.where(z ** l > 0, np.inf, -np.inf)
      elif k == 2:
        limit = -np.prod(np.arange(l - 1, l + 3, dtype=np.float64)) / 4 * z ** (l + 1)
      else:
        limit = 0.0
      out[k][l] = jnp.where(edge, limit, inner)
  return out


@compiled_when_eager(static_argnames=("n", "derivatives", "normalized"))
def _lpmn(z, n, derivatives, normalized):
  table = _legendre_table(n, z, normalized)
  values = jnp.stack([jnp.stack(row) for row in table])
  if not derivatives:
    return values
  d = _legendre_derivatives(table, z)
  return values, jnp.stack([jnp.stack(row) for row in d])


def lpmn(m, n, z):
  """The associated Legendre functions P_l^k(z) for k <= m, l <= n, and their derivatives,
  each shaped (m + 1, n + 1, len(z)) (only m == n is supported, as JAX)."""
  n, z = _lpmn_args(m, n, z)
  return _lpmn(z, n=n, derivatives=True, normalized=False)


def lpmn_values(m, n, z, is_normalized):
  """The values of :func:`lpmn`, optionally normalized as spherical harmonics are
  (times sqrt((2l+1)/(4 pi) (l-k)!/(l+k)!))."""
  n, z = _lpmn_args(m, n, z)
  return _lpmn(z, n=n, derivatives=False, normalized=bool(is_normalized))
