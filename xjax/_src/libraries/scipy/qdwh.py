"""``qdwh``: the polar decomposition ``x = u h`` by the QR-based dynamically weighted Halley
iteration (Nakatsukasa, Bai and Gygi, SIAM J. Matrix Anal. Appl. 31(5), 2010).

``x`` is scaled so its singular values lie in ``(0, 1]``; each step maps them through the
rational function ``s (a + b s^2) / (1 + c s^2)`` whose weights come from a lower bound
``l`` on the smallest one (starting at ``eps``).  The weights depend only on ``l``, so they
are computed in Python; steps with large ``c`` use a QR factorization (stable), the others
a Cholesky factorization (cheaper), and plain Halley steps continue until the iterate stops
moving.  A Newton-Schulz step polishes ``u``; ``h = (u^H x + x^H u) / 2``.  The steps run as
JAX's do (weights as arrays indexed in ``fori_loop``s, the same products in the same order),
so the results are JAX's bit for bit.  (Exported as ``lax.linalg.qdwh``, as JAX does; it
runs as one compiled program when called eagerly.)
"""
from __future__ import annotations


import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.values import get_aval
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax.control_flow.loops import fori_loop, while_loop
from xjax._src.primitives.lax.elementwise import rsqrt
from xjax._src.primitives.lax.shapes import (broadcasted_iota, dynamic_index_in_dim,
                                             dynamic_slice_in_dim,
                                             dynamic_update_slice_in_dim, pad,
                                             slice as lax_slice)
from xjax._src.primitives.lax.linalg.cholesky import cholesky
from xjax._src.primitives.lax.linalg.qr import qr
from xjax._src.primitives.lax.linalg.triangular_solve import triangular_solve
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.numpy.linalg import norm

_CHOLESKY_BELOW = 100  # steps whose c exceeds this use QR (Cholesky of I + c u^H u: inexact)


def _weights(eps: float, max_iterations: int):
  """(QR steps' (a - e) / sqrt(c), sqrt(c), e; Cholesky steps' a - e, c, e), e = b / c, of
  the steps taken as the lower bound on the smallest singular value grows to 1."""
  qr_steps, chol_steps = [], []
  l, tol_l = eps, 10.0 * eps / 2.0
  while l + tol_l < 1 and len(qr_steps) + len(chol_steps) < max_iterations:
    l2 = l * l
    dd = (4 * (1 / l2 - 1) / l2) ** (1 / 3)
    sqd = (1.0 + dd) ** (1 / 2)
    a = sqd + (2 - dd + 2 * (2 - l2) / (l2 * sqd)) ** (1 / 2)
    b = (a - 1) ** 2 / 4
    c = a + b - 1
    l = l * (a + b * l2) / (1 + c * l2)
    e = b / c
    if c > _CHOLESKY_BELOW:
      qr_steps.append(((a - e) / c ** (1 / 2), c ** (1 / 2), e))
    else:
      chol_steps.append((a - e, c, e))
  return qr_steps, chol_steps


def _mask(x, dims, other=0):
  """``x`` outside its leading block of sizes ``dims`` (None: the whole axis) set to
  ``other``."""
  keep = None
  for axis, d in enumerate(dims):
    if d is not None:
      inside = broadcasted_iota(np.int32, get_aval(x).shape, axis) < d
      keep = inside if keep is None else keep & inside
  return x if keep is None else jnp.where(keep, x, other)


def _stack_rows(a, b, m):
  """``b`` below the first ``m`` rows of ``a`` (``a`` padded with zeros to hold it)."""
  rows = get_aval(b).shape[0]
  padded = pad(a, jnp.array(0, a.dtype), [(0, rows, 0), (0, 0, 0)])
  return dynamic_update_slice_in_dim(padded, b, m, 0)


def _qr_step(u, m, n, params):
  """``u <- e u + (a - e)/sqrt(c) q1 q2^H`` with ``[sqrt(c) u; I] = [q1; q2] r``."""
  a_minus_e_by_sqrt_c, sqrt_c, e = params
  big_m, big_n = get_aval(u).shape
  q, _ = qr(_stack_rows(sqrt_c * u, jnp.eye(big_n, dtype=u.dtype), m), full_matrices=False)
  q1 = _mask(lax_slice(q, (0, 0), (big_m, big_n)), (m, n))
  q2 = _mask(dynamic_slice_in_dim(q, m, big_n, 0), (n, n)).T.conj()
  return e * u + a_minus_e_by_sqrt_c * (q1 @ q2)


def _cholesky_step(u, m, n, params):
  """``u <- e u + (a - e) u (I + c u^H u)^{-1}``, the inverse by a Cholesky factor."""
  a_minus_e, c, e = params
  big_n = get_aval(u).shape[1]
  x = c * (u.T.conj() @ u) + jnp.eye(big_n, dtype=u.dtype)
  y = cholesky(_mask(x, (n, n), jnp.eye(big_n, dtype=x.dtype)), symmetrize_input=False)
  z = triangular_solve(y, u.T, left_side=True, lower=True, conjugate_a=True).conj()
  z = triangular_solve(y, z, left_side=True, lower=True, transpose_a=True,
                       conjugate_a=True).T.conj()
  return e * u + a_minus_e * z


@compiled_when_eager(static_argnames=("is_hermitian", "max_iterations", "eps",
                                      "dynamic_shape"))
def qdwh(x, *, is_hermitian: bool = False, max_iterations: int | None = None,
         eps: float | None = None, dynamic_shape: tuple[int, int] | None = None):
  """``(u, h, num_iters, is_converged)``: the polar decomposition ``x = u h`` of a full-rank
  ``M x N`` matrix (``M >= N``), with ``u`` having orthonormal columns and ``h`` Hermitian
  positive definite; ``dynamic_shape=(m, n)`` treats ``x`` as an ``m x n`` matrix padded
  with zeros.  ``is_hermitian`` is accepted for compatibility and unused."""
  del is_hermitian
  max_iterations = 10 if max_iterations is None else int(max_iterations)
  aval = get_aval(x)
  if not dtypes.is_inexact(aval.dtype):
    raise ValueError(f"data type {aval.dtype} not inexact")
  big_m, big_n = aval.shape
  if big_m < big_n:
    raise ValueError("The input matrix of shape M x N must have M >= N.")
  if dynamic_shape is not None:
    m, n = dynamic_shape
    x = _mask(x, (m, n))
  else:
    m, n = big_m, big_n
  eps = float(dtypes.finfo(aval.dtype).eps) if eps is None else eps

  one_norm, inf_norm = norm(x, ord=1), norm(x, ord=np.inf)
  scale = jnp.where(one_norm == 0, 1, rsqrt(one_norm) * rsqrt(inf_norm))
  u = x * scale.astype(x.dtype)
  tol_norm = jnp.cbrt(10.0 * eps / 2.0)
  qr_steps, chol_steps = _weights(eps, max_iterations)

  def steps(u, weights, step, converging):
    if not weights:
      return u, True
    table = jnp.array(weights).astype(x.dtype)

    def one(k, state):
      previous, _ = state
      new = step(previous, m, n, dynamic_index_in_dim(table, k, keepdims=False))
      return new, (norm(new - previous) > tol_norm) if converging else True
    return fori_loop(0, len(weights), one, (u, True))

  u, _ = steps(u, qr_steps, _qr_step, False)
  u, moving = steps(u, chol_steps, _cholesky_step, True)
  halley = (3 - 1 / 3, 3, 1 / 3)   # a - e, c, e of the plain Halley step (a, b, c = 3, 1, 3)

  def keep_going(state):
    k, _, moving = state
    return jnp.logical_and(moving, k < max_iterations)

  def halley_step(state):
    k, u, _ = state
    new = _cholesky_step(u, m, n, halley)
    return k + 1, new, norm(new - u) > tol_norm

  num_iters, u, moving = while_loop(keep_going, halley_step,
                                    (len(qr_steps) + len(chol_steps), u, moving))
  u = 1.5 * u - 0.5 * u @ (u.T.conj() @ u)
  h = u.T.conj() @ x
  h = (h + h.T.conj()) / 2
  return u, h, num_iters, jnp.logical_not(moving)
