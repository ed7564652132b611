"""``jax.scipy.linalg.eigh_tridiagonal``: eigenvalues of a symmetric (Hermitian) tridiagonal
matrix by bisection on Sturm counts, all wanted eigenvalues at once; eigenvectors by
inverse iteration (``tridiagonal_solve`` with perturbed pivots) from random starts, with
vectors of clustered eigenvalues orthogonalised against each other."""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax.control_flow.loops import fori_loop, scan, while_loop
from xjax._src.primitives.lax import linalg as lax_linalg
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.numpy import linalg as jnp_linalg
from xjax._src.libraries.random.continuous import normal
from xjax._src.libraries.random.keys import key as make_key

_SUPPORTED = tuple(map(np.dtype, (np.float32, np.float64, np.complex64, np.complex128)))


def _count_below(alpha, beta_sq, pivmin, x):
  """How many eigenvalues lie below each entry of ``x`` (the negative pivots of the LDL^T
  factorization of ``T - x``); pivots too close to 0 count as ``-pivmin``."""
  def pivot(q):
    return jnp.where(jnp.abs(q) <= pivmin, -pivmin, q)

  q0 = pivot(alpha[0] - x)

  def step(carry, ab):
    q, count = carry
    a, b2 = ab
    q = pivot(a - x - b2 / q)
    return (q, count + (q < 0)), None

  (_, count), _ = scan(step, (q0, (q0 < 0).astype(np.int32)), (alpha[1:], beta_sq))
  return count


def _bisect(alpha, beta_abs, beta_sq, targets, tol):
  """The ``targets``-th smallest eigenvalues, bisecting inside the Gershgorin interval."""
  n = alpha.shape[0]
  finfo = dtypes.finfo(alpha.dtype)
  radius = jnp.concatenate([beta_abs, jnp.zeros(1, alpha.dtype)]) + jnp.concatenate(
      [jnp.zeros(1, alpha.dtype), beta_abs])
  lo, hi = jnp.min(alpha - radius), jnp.max(alpha + radius)
  norm = jnp.maximum(jnp.abs(lo), jnp.abs(hi))
  safemin = max(1 / finfo.max, (1 + finfo.eps) * finfo.tiny)
  pivmin = safemin * jnp.maximum(1, jnp.max(beta_sq))
  abs_tol = finfo.eps * norm if tol is None else jnp.maximum(tol, finfo.eps * norm)
  slack = n * 2.1 * finfo.eps * norm + 2.1 * pivmin
  lower = jnp.broadcast_to(lo - slack, targets.shape)
  upper = jnp.broadcast_to(hi + slack, targets.shape)

  def unfinished(state):
    i, lower, upper = state
    return (i < finfo.nmant + 1) & (jnp.max(upper - lower) > abs_tol)

  def halve(state):
    i, lower, upper = state
    mid = (lower + upper) / 2
    below = _count_below(alpha, beta_sq, pivmin, mid) <= targets
    return i + 1, jnp.where(below, mid, lower), jnp.where(below, upper, mid)

  _, lower, upper = while_loop(unfinished, halve, (0, lower, upper))
  return (lower + upper) / 2


def _orthogonalise_clusters(v, cluster):
  """Gram-Schmidt on the rows of ``v``, each against the earlier rows of its cluster."""
  k = v.shape[0]

  def one(i, v):
    same = (cluster == cluster[i]) & (jnp.arange(k) < i)
    coeff = jnp.where(same, jnp.matmul(jnp.conj(v), v[i]), 0)
    row = v[i] - jnp.matmul(coeff, v)
    return v.at[i].set(row / jnp_linalg.norm(row).astype(v.dtype))
  return fori_loop(0, k, one, v)


def _eigenvectors(alpha, beta, w, key):
  """Rows: unit eigenvectors for the ascending eigenvalues ``w``, by inverse iteration (at
  most 5 steps, LAPACK's stein, stopping once no norm grows by 10%)."""
  n, k = alpha.shape[0], w.shape[0]
  dt = beta.dtype
  dl = jnp.broadcast_to(jnp.pad(jnp.conj(beta), (1, 0)), (k, n))
  du = jnp.broadcast_to(jnp.pad(beta, (0, 1)), (k, n))
  d = (alpha[None, :] - w[:, None]).astype(dt)
  gap_tol = np.sqrt(dtypes.finfo(w.dtype).eps) * jnp.maximum(jnp.abs(w[0]), jnp.abs(w[-1]))
  cluster = jnp.cumsum(jnp.concatenate([jnp.zeros(1, bool), w[1:] - w[:-1] >= gap_tol]))
  v = normal(key, (k, n), dtype=dtypes.finfo(dt).dtype).astype(dt)
  v = v / jnp_linalg.norm(v, axis=-1, keepdims=True).astype(dt)

  def growing(state):
    i, _, norm, old = state
    return (i < 5) & jnp.any(norm >= 1.1 * old)

  def iterate(state):
    i, v, norm, _ = state
    x = lax_linalg.tridiagonal_solve(dl, d, du, v[:, :, None], perturb_singular=True)[..., 0]
    new_norm = jnp_linalg.norm(x, axis=-1)
    return i + 1, _orthogonalise_clusters(x / new_norm[:, None].astype(dt), cluster), \
        new_norm, norm

  _, v, _, _ = while_loop(growing, iterate,
                              (0, v, jnp.ones(k, w.dtype), jnp.zeros(k, w.dtype)))
  return v


@compiled_when_eager(static_argnames=("eigvals_only", "select", "select_range"),
                     staged="eigh_tridiagonal")
def eigh_tridiagonal(d, e, *, eigvals_only: bool = False, select: str = "a",
                     select_range=None, tol=None, key=None):
  """Eigenvalues (ascending) and, unless ``eigvals_only``, eigenvectors (columns) of the
  Hermitian tridiagonal matrix with diagonal ``d`` and off-diagonal ``e``; ``select="i"``
  keeps the eigenvalues with indices ``select_range[0] <= i <= select_range[1]``.  ``key``
  seeds the inverse iteration (default ``random.key(42)``)."""
  alpha, beta = jnp.asarray(d), jnp.asarray(e)
  if alpha.dtype != beta.dtype:
    raise TypeError(f"diagonal and off-diagonal values must have same dtype, got "
                    f"{alpha.dtype} and {beta.dtype}")
  if alpha.dtype not in _SUPPORTED:
    raise TypeError(f"Only float32 and float64 inputs are supported as inputs to "
                    f"jax.scipy.linalg.eigh_tridiagonal, got {alpha.dtype} and {beta.dtype}")
  n = alpha.shape[0]
  if n <= 1:
    w = jnp.real(alpha)
    return w if eigvals_only else (w, jnp.eye(n, dtype=alpha.dtype))
  alpha = jnp.real(alpha)
  beta_sq = jnp.real(beta * jnp.conj(beta)) if dtypes.is_complex(beta.dtype) else beta * beta
  if select == "a":
    targets = jnp.arange(n, dtype=np.int32)
  elif select == "i":
    if select_range is None:
      raise ValueError("for select='i', select_range must be specified.")
    if select_range[0] > select_range[1]:
      raise ValueError("Got empty index range in select_range.")
    targets = jnp.arange(select_range[0], select_range[1] + 1, dtype=np.int32)
  elif select == "v":
    raise NotImplementedError("eigh_tridiagonal(..., select='v') is not implemented")
  else:
    raise ValueError("'select must have a value in {'a', 'i', 'v'}.")
  w = _bisect(alpha, jnp.sqrt(beta_sq), beta_sq, targets, tol)
  if eigvals_only:
    return w
  key = make_key(42) if key is None else key
  return w, _eigenvectors(alpha, beta, w, key).T
