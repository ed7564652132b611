"""Spherical harmonics Y_n^m(theta, phi) (SciPy's ``sph_harm_y`` convention: theta polar,
phi azimuthal) and the associated Legendre functions of the first kind (``lpmn``,
``lpmn_values``), computed as JAX computes them: a table over (order, degree, point) whose
diagonal and first off-diagonal come from cumulative products, and whose remaining entries
come from a degree recurrence run in a ``fori_loop`` over masked coefficient planes."""
from __future__ import annotations

import numpy as np

from xjax._src.core.concrete import concrete_or_error
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.foundations import dtypes
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.primitives.lax.control_flow.loops import fori_loop
from xjax._src.primitives.lax.elementwise import complex as lax_complex, dtype as lax_dtype


def _recurrence_planes(l_max, is_normalized, dtype):
  """The coefficients of P_l^m = a (x P_{l-1}^m) - b P_{l-2}^m, on the upper triangle (a from
  degree m + 1, b from m + 2; the divisions by l - m = 0 below it are made and masked off),
  spread into 3-D planes: plane i holds entry (m, l) where i + m == l."""
  order, degree = jnp.meshgrid(jnp.arange(l_max + 1, dtype=dtype),
                               jnp.arange(l_max + 1, dtype=dtype), indexing='ij')
  if is_normalized:
    l2 = degree * degree
    m2 = order * order
    two_l = 2.0 * degree
    lm1_2 = (degree - 1.0) * (degree - 1.0)
    a = jnp.sqrt((4.0 * l2 - 1.0) / (l2 - m2))
    b = jnp.sqrt(((two_l + 1.0) * (lm1_2 - m2)) / ((two_l - 3.0) * (l2 - m2)))
  else:
    a = (2.0 * degree - 1.0) / (degree - order)
    b = (degree + order - 1.0) / (degree - order)
  above1, above2 = jnp.triu_indices(l_max + 1, 1), jnp.triu_indices(l_max + 1, 2)
  zeros = jnp.zeros((l_max + 1, l_max + 1), dtype=dtype)
  a = zeros.at[above1].set(a[above1])
  b = zeros.at[above2].set(b[above2])
  i, m, l = jnp.ogrid[:l_max + 1, :l_max + 1, :l_max + 1]
  plane = (i + m - l == 0).astype(dtype)
  return jnp.einsum('jk,ijk->ijk', a, plane), jnp.einsum('jk,ijk->ijk', b, plane)


@compiled_when_eager(staged="_gen_associated_legendre", hashable_statics=True,
                     static_argnames=("l_max", "is_normalized"))
def _legendre_table(l_max, x, is_normalized):
  """P[m, l, :] = P_l^m(x) for 0 <= m, l <= l_max (zero for m > l), with the Condon-Shortley
  phase; with ``is_normalized``, times sqrt((2l+1)/(4 pi) (l-m)!/(l+m)!)."""
  table = jnp.zeros((l_max + 1, l_max + 1, x.shape[0]), dtype=x.dtype)
  ks = jnp.arange(1, l_max + 1, dtype=x.dtype)
  ls = jnp.arange(l_max, dtype=x.dtype)
  if is_normalized:
    p00 = 0.5 / jnp.sqrt(np.pi)
    diag_factors = jnp.cumprod(-1 * jnp.sqrt(1.0 + 0.5 / ks))
    offdiag_factors = jnp.sqrt(2.0 * ls + 3.0)
  else:
    p00 = 1.0
    diag_factors = jnp.cumprod(1.0 - 2.0 * ks)  # (-1)^k (2k - 1)!!
    offdiag_factors = 2.0 * ls + 1.0
  table = table.at[(0, 0)].set(p00)
  # P_k^k = p00 * factor_k * (1 - x^2)^(k/2), the powers a cumulative product
  sin_powers = jnp.cumprod(jnp.broadcast_to(jnp.sqrt(1.0 - x * x), (l_max, x.shape[0])),
                           axis=0)
  diagonal = jnp.diag_indices(l_max + 1)
  table = table.at[(diagonal[0][1:], diagonal[1][1:])].set(
      p00 * jnp.einsum('i,ij->ij', diag_factors, sin_powers))
  # P_{k+1}^k = factor_k x P_k^k
  below = jnp.einsum('ij,ij->ij', jnp.einsum('i,j->ij', offdiag_factors, x),
                     table[jnp.diag_indices(l_max)])
  table = table.at[(diagonal[0][:l_max], diagonal[1][:l_max] + 1)].set(below)
  a, b = _recurrence_planes(l_max, is_normalized, x.dtype)

  def step(i, p):  # fills the entries l = m + i from those at m + i - 1 and m + i - 2
    return p + (jnp.einsum('ij,ijk->ijk', a[i],
                           jnp.einsum('ijk,k->ijk', jnp.roll(p, shift=1, axis=1), x))
                - jnp.einsum('ij,ijk->ijk', b[i], jnp.roll(p, shift=2, axis=1)))

  table = table.astype(dtypes.result_type(table, x, a))
  if l_max > 1:
    table = fori_loop(2, l_max + 1, step, table)
  return table


@compiled_when_eager(staged="_gen_derivatives", hashable_statics=True,
                     static_argnames=("is_normalized",))
def _legendre_derivatives(p, x, is_normalized):
  """dP_l^m/dx from the table ``p`` (unnormalized only), through the order-raising and
  -lowering relations, with P_l^{-1} and P_l^{-2} from P_l^1 and P_l^2 and order 1 apart."""
  num_m, num_l, _ = p.shape
  prev = jnp.pad(p, ((0, 0), (1, 0), (0, 0)))[:, :num_l, :]  # P_{l-1}^m
  prev_up2 = jnp.pad(prev, ((0, 2), (0, 0), (0, 0)))[2:num_m + 2, :, :]  # P_{l-1}^{m+2}
  prev_down2 = jnp.pad(prev, ((2, 0), (0, 0), (0, 0)))[:num_m, :, :]  # P_{l-1}^{m-2}
  if is_normalized:
    raise NotImplementedError('Negative orders for normalization is not implemented yet.')
  if num_l > 1:  # P_{l-1}^{-1} = -(l-2)!/l! P_{l-1}^1
    ls = jnp.arange(1, num_l - 1, dtype=x.dtype)
    scaled = jnp.einsum('i,ij->ij', -1.0 / ((ls + 1) * ls), p[1, 1:num_l - 1, :])
    prev_down2 = prev_down2.at[1, 2:num_l, :].set(scaled)
  if num_l > 2:  # P_{l-1}^{-2} = (l-3)!/(l+1)! P_{l-1}^2
    ls = jnp.arange(2, num_l - 1, dtype=x.dtype)
    scaled = jnp.einsum('i,ij->ij', 1.0 / ((ls + 2) * (ls + 1) * ls * (ls - 1)),
                        p[2, 2:num_l - 1, :])
    prev_down2 = prev_down2.at[0, 3:num_l, :].set(scaled)
  order, degree = jnp.meshgrid(jnp.arange(num_m, dtype=x.dtype),
                               jnp.arange(num_l, dtype=x.dtype), indexing='ij')
  zeros = jnp.zeros((num_m, num_l), dtype=x.dtype)
  upper = jnp.triu_indices(num_m, 0, num_l)
  no_order1 = jnp.zeros((num_l,), dtype=x.dtype)

  def on_upper(c):
    return zeros.at[upper].set(c[upper])

  lower_a = -0.5 / (order - 1.0)
  total = degree + order
  lower_b = lower_a * (total - 2.0) * (total - 1.0)
  lower_a = on_upper(lower_a).at[1, :].set(no_order1)
  lower_b = on_upper(lower_b).at[1, :].set(no_order1)
  lowered = (jnp.einsum('ij,ijk->ijk', lower_a, prev)
             + jnp.einsum('ij,ijk->ijk', lower_b, prev_down2))  # P_l^{m-1} / sqrt(1-x^2)
  raise_a = -0.5 / (order + 1.0)
  raise_b = raise_a * total * (total + 1.0)
  raised = (jnp.einsum('ij,ijk->ijk', on_upper(raise_a), prev_up2)
            + jnp.einsum('ij,ijk->ijk', on_upper(raise_b), prev))  # P_l^{m+1} / sqrt(1-x^2)
  weight = on_upper(total * (degree - order + 1.0) / 2.0)
  out = jnp.einsum('ij,ijk->ijk', weight, lowered) - 0.5 * raised
  if num_m > 1:  # order 1 directly: (l(l+1) P_l^0 - P_l^2) / (2 sqrt(1-x^2))
    ls = jnp.arange(num_l, dtype=p.dtype)
    g = jnp.einsum('i,ij->ij', (ls + 1) * ls, p[0, :, :])
    if num_l > 2:
      g = g - p[2, :, :]
    out = out.at[1, :, :].set(jnp.einsum('j,ij->ij', 0.5 / jnp.sqrt(1 - x * x), g))
    out = out.at[1, 0, :].set(0)
  return out


def _lpmn_degree(m, n, z):
  """The degree n of an ``lpmn`` call, after JAX's checks of its arguments."""
  dtype = lax_dtype(z)
  if dtype not in (np.float32, np.float64):
    raise TypeError(f'z.dtype={dtype} is not supported, see docstring for supported types.')
  if z.ndim != 1:
    raise ValueError('z must be a 1D array.')
  m = int(concrete_or_error(m, "lpmn m"))
  n = int(concrete_or_error(n, "lpmn n"))
  if m != n:
    raise NotImplementedError('Computations for m!=n are not yet supported.')
  return n


def lpmn(m, n, z):
  """The associated Legendre functions P_l^k(z) for k <= m, l <= n, and their derivatives,
  each shaped (m + 1, n + 1, len(z)) (only m == n is supported, as JAX)."""
  l_max = _lpmn_degree(m, n, z)
  values = _legendre_table(l_max, z, False)
  return values, _legendre_derivatives(values, z, False)


def lpmn_values(m, n, z, is_normalized):
  """The values of :func:`lpmn`, optionally normalized as spherical harmonics are
  (times sqrt((2l+1)/(4 pi) (l-k)!/(l+k)!))."""
  return _legendre_table(_lpmn_degree(m, n, z), z, is_normalized)


@compiled_when_eager(staged="_sph_harm", hashable_statics=True, static_argnames=("n_max",))
def _sph_harm(n, m, theta, phi, n_max):
  table = _legendre_table(n_max, jnp.cos(theta), True)
  value = table.at[abs(m), n, jnp.arange(len(n))].get(mode="clip")
  angle = abs(m) * phi
  phase = lax_complex(jnp.cos(angle), jnp.sin(angle))
  y = lax_complex(value * jnp.real(phase), value * jnp.imag(phase))
  return jnp.where(m < 0, (-1.0) ** abs(m) * jnp.conjugate(y), y)


def sph_harm_y(n, m, theta, phi, diff_n=None, n_max=None):
  """Y_n^m(theta, phi), orthonormal on the sphere, with the Condon-Shortley phase, for 1-D
  ``n`` and ``m``; degrees are clipped to ``n_max`` (default max(n), which must be
  concrete)."""
  if diff_n is not None:
    raise NotImplementedError(
        "The 'diff_n' argument to jax.scipy.special.sph_harm_y is not supported.")
  if jnp.isscalar(theta):
    theta = jnp.array([theta])
  if n_max is None:
    n_max = np.max(n)
  n_max = concrete_or_error(n_max, "sph_harm_y n_max")
  return _sph_harm(n, m, theta, phi, int(n_max))
