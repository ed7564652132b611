"""``jax.scipy.linalg.eigh_tridiagonal``: eigenvalues of a symmetric (Hermitian) tridiagonal
matrix by bisection on Sturm counts, all wanted eigenvalues at once; eigenvectors by
inverse iteration (``tridiagonal_solve`` with perturbed pivots) from random starts, the
vectors of each cluster of close eigenvalues orthonormalised together by a QR
factorization.  The steps are JAX's (its Sturm recurrence in blocks of 16, its bisection
interval and stopping rule, its clusters), so the results are JAX's bit for bit."""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax.control_flow.loops import fori_loop, while_loop
from xjax._src.primitives.lax import linalg as lax_linalg
from xjax._src.primitives.lax.shapes import dynamic_slice, dynamic_update_slice
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.numpy import linalg as jnp_linalg
from xjax._src.libraries.random.continuous import normal
from xjax._src.libraries.random.keys import key as make_key

_SUPPORTED = tuple(map(np.dtype, (np.float32, np.float64, np.complex64, np.complex128)))
_BLOCK = 16   # Sturm steps per loop iteration (the first ``(n - 1) % 16`` run before it)


def _sturm_counts(alpha, beta_sq, pivmin, alpha0_perturbation, x):
  """How many eigenvalues lie below each entry of ``x``: the negative pivots of the LDL^T
  factorization of ``T - x``, a pivot at or below ``pivmin`` counted and clamped to it."""
  n = alpha.shape[0]
  zeros, ones = jnp.zeros(x.shape, dtype=np.int32), jnp.ones(x.shape, dtype=np.int32)
  q = alpha[0] - x
  count = jnp.where(q < 0, ones, zeros)
  q = jnp.where(alpha[0] == x, alpha0_perturbation, q)

  def step(i, q, count):
    q = alpha[i] - beta_sq[i - 1] / q - x
    count = jnp.where(q <= pivmin, count + 1, count)
    return jnp.where(q <= pivmin, jnp.minimum(q, -pivmin), q), count

  def steps(k):
    def run(state):
      start, q, count = state
      for j in range(k):
        q, count = step(start + j, q, count)
      return start + k, q, count
    return run

  state = steps((n - 1) % _BLOCK)((1, q, count))
  return while_loop(lambda s: jnp.less(s[0], n), steps(_BLOCK), state)[2]


def _eigenvectors(alpha, beta, eigvals, key):
  """Rows: unit eigenvectors for the ascending ``eigvals`` by inverse iteration
  (at most 5 steps, LAPACK's stein, while some norm still grows by 10%)."""
  n, k = alpha.shape[0], eigvals.shape[0]
  dl, du = jnp.pad(jnp.conj(beta), (1, 0)), jnp.pad(beta, (0, 1))
  gap = eigvals[1:] - eigvals[:-1]
  t_norm = jnp.maximum(jnp.abs(eigvals[0]), jnp.abs(eigvals[-1]))
  close = gap < np.sqrt(np.finfo(eigvals.dtype).eps) * t_norm
  left_close = jnp.pad(close, (1, 0), constant_values=False)
  right_close = jnp.pad(close, (0, 1), constant_values=False)
  max_clusters = k // 2 + 1
  starts = jnp.nonzero(jnp.logical_and(jnp.logical_not(left_close), right_close),
                       size=max_clusters)[0]
  ends = jnp.nonzero(jnp.logical_and(left_close, jnp.logical_not(right_close)),
                     size=max_clusters)[0] + 1
  num_clusters = jnp.sum(jnp.logical_and(jnp.logical_not(left_close), right_close))
  rows = jnp.arange(k)
  solve_dtype = np.result_type(alpha.dtype, beta.dtype)
  v = normal(key, (k, n), dtype=np.finfo(solve_dtype).dtype).astype(solve_dtype)
  v = v / jnp_linalg.norm(v, axis=-1, keepdims=True).astype(solve_dtype)

  def orthonormalise(ev):
    def cluster(i, ev):
      start, end = starts[i], ends[i]
      mask = (rows < end - start).astype(ev.dtype)
      block = dynamic_slice(jnp.pad(ev, ((0, k), (0, 0))), (start, 0), (k, n)) * mask[:, None]
      q, _ = jnp_linalg.qr(block.T)
      update = dynamic_update_slice(jnp.zeros((2 * k, n), dtype=ev.dtype),
                                    q.T * mask[:, None], (start, 0))[:k, :]
      inside = (rows >= start) & (rows < end)
      return jnp.where(inside[:, None], update, ev)
    return fori_loop(0, num_clusters, cluster, ev)

  shifted = alpha[None, :] - eigvals[:, None]
  dl_k, du_k = jnp.broadcast_to(dl[None, :], (k, n)), jnp.broadcast_to(du[None, :], (k, n))

  def iterate(state):
    i, v, norm, _ = state
    x = lax_linalg.tridiagonal_solve(dl_k.astype(solve_dtype), shifted.astype(solve_dtype),
                                     du_k.astype(solve_dtype), v[:, :, None].astype(solve_dtype),
                                     perturb_singular=True)
    x = jnp.squeeze(x, axis=-1)
    new_norm = jnp_linalg.norm(x, axis=-1, keepdims=True)
    x = x / new_norm.astype(x.dtype)
    return i + 1, orthonormalise(x), jnp.squeeze(new_norm, axis=-1), norm

  def growing(state):
    i, _, norm, old = state
    return jnp.logical_and(i < 5, jnp.any(norm >= (1 + 0.1) * old))

  return while_loop(growing, iterate, (0, v, jnp.ones(k, dtype=eigvals.dtype),
                                       jnp.zeros(k, dtype=eigvals.dtype)))[1]


@compiled_when_eager(static_argnames=("eigvals_only", "select", "select_range"),
                     staged="eigh_tridiagonal")
def eigh_tridiagonal(d, e, *, eigvals_only: bool = False, select: str = "a",
                     select_range=None, tol=None, key=None):
  """Eigenvalues (ascending) and, unless ``eigvals_only``, eigenvectors (columns) of the
  Hermitian tridiagonal matrix with diagonal ``d`` and off-diagonal ``e``; ``select="i"``
  keeps the eigenvalues with indices ``select_range[0] <= i <= select_range[1]``.  ``key``
  seeds the inverse iteration (default ``random.key(42)``)."""
  if not eigvals_only and key is None:
    key = make_key(42)
  alpha, beta = jnp.asarray(d), jnp.asarray(e)
  if alpha.dtype != beta.dtype:
    raise TypeError(f"diagonal and off-diagonal values must have same dtype, got "
                    f"{alpha.dtype} and {beta.dtype}")
  if alpha.dtype not in _SUPPORTED or beta.dtype not in _SUPPORTED:
    raise TypeError(f"Only float32 and float64 inputs are supported as inputs to "
                    f"jax.scipy.linalg.eigh_tridiagonal, got {alpha.dtype} and {beta.dtype}")
  n = alpha.shape[0]
  if n <= 1:
    w = jnp.real(alpha)
    return w if eigvals_only else (w, jnp.eye(n, dtype=alpha.dtype))
  if dtypes.is_complex(alpha.dtype):
    alpha = jnp.real(alpha)
    beta_sq = jnp.real(beta * jnp.conj(beta))
    beta_abs = jnp.sqrt(beta_sq)
  else:
    beta_abs, beta_sq = jnp.abs(beta), jnp.square(beta)

  # The Gershgorin interval, widened a little, and LAPACK's pivot floor and tolerance.
  row_sums = jnp.concatenate([beta_abs[:1], beta_abs[:-1] + beta_abs[1:], beta_abs[-1:]])
  est_max, est_min = jnp.amax(alpha + row_sums), jnp.amin(alpha - row_sums)
  t_norm = jnp.maximum(jnp.abs(est_min), jnp.abs(est_max))
  finfo = np.finfo(alpha.dtype)
  one = np.ones([], dtype=alpha.dtype)
  safemin = np.maximum(one / finfo.max, (one + finfo.eps) * finfo.tiny)
  pivmin = safemin * jnp.maximum(1, jnp.amax(beta_sq))
  alpha0_perturbation = jnp.square(finfo.eps * beta_abs[0])
  abs_tol = finfo.eps * t_norm
  if tol is not None:
    abs_tol = jnp.maximum(tol, abs_tol)
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
  fudge = 2.1
  slack = jnp.array(n, alpha.dtype) * fudge * finfo.eps * t_norm
  shape = np.shape(targets)
  lower = jnp.broadcast_to(est_min - slack - 2 * fudge * pivmin, shape)
  upper = jnp.broadcast_to(est_max + slack + fudge * pivmin, shape)
  pivmin = jnp.broadcast_to(pivmin, shape)
  alpha0_perturbation = jnp.broadcast_to(alpha0_perturbation, shape)

  def unfinished(state):
    i, lower, _, upper = state
    return jnp.logical_and(jnp.less(i, finfo.nmant + 1),
                           jnp.less(abs_tol, jnp.amax(upper - lower)))

  def halve(state):
    i, lower, mid, upper = state
    counts = _sturm_counts(alpha, beta_sq, pivmin, alpha0_perturbation, mid)
    lower = jnp.where(counts <= targets, mid, lower)
    upper = jnp.where(counts > targets, mid, upper)
    return i + 1, lower, 0.5 * (lower + upper), upper

  mid = while_loop(unfinished, halve, (0, lower, 0.5 * (upper + lower), upper))[2]
  if eigvals_only:
    return mid
  return mid, _eigenvectors(alpha, beta, mid, key).T
