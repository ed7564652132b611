"""``qdwh``: the polar decomposition ``x = u h`` by the QR-based dynamically weighted Halley
iteration (Nakatsukasa, Bai and Gygi, SIAM J. Matrix Anal. Appl. 31(5), 2010).

``x`` is scaled so its singular values lie in ``(0, 1]``; each step maps them through the
rational function ``s (a + b s^2) / (1 + c s^2)`` whose weights come from a lower bound
``l`` on the smallest one (starting at ``eps``).  The weights depend only on ``l``, so they
are computed in Python; steps with large ``c`` use a QR factorization (stable), the others
a Cholesky factorization (cheaper), and plain Halley steps continue until the iterate stops
moving.  A Newton-Schulz step polishes ``u``; ``h = (u^H x + x^H u) / 2``.
(Exported as ``lax.linalg.qdwh``, as JAX does; it is built from lax operations and runs as
one compiled program when called eagerly.)
"""
from __future__ import annotations

import math

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.values import get_aval
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax.control_flow.loops import while_loop
from xjax._src.primitives.lax.elementwise import (abs as lax_abs, add, bitwise_and, bitwise_not,
                                                  conj, convert_element_type, div, eq, gt, lt, mul,
                                                  rsqrt, select, sqrt, sub)
from xjax._src.primitives.lax.reductions import reduce_max, reduce_sum
from xjax._src.primitives.lax.shapes import (broadcasted_iota, dynamic_slice_in_dim,
                                             dynamic_update_slice_in_dim, full, pad,
                                             slice as lax_slice)
from xjax._src.primitives.lax.linalg.cholesky import cholesky
from xjax._src.primitives.lax.linalg.matrices import eye, matmul, mH, real
from xjax._src.primitives.lax.linalg.qr import qr
from xjax._src.primitives.lax.linalg.triangular_solve import triangular_solve

_QR_BELOW = 100  # steps whose c exceeds this use QR: Cholesky of I + c u^H u is too inexact


def _weights(l: float, eps: float, max_iterations: int) -> list[tuple[float, float, float]]:
  """The ``(a, b, c)`` of each step, as the lower bound ``l`` grows to 1."""
  out = []
  tol = 5 * eps
  while l + tol < 1 and len(out) < max_iterations:
    l2 = l * l
    d = (4 * (1 - l2) / (l2 * l2)) ** (1 / 3)
    root = math.sqrt(1 + d)
    a = root + math.sqrt(2 - d + 2 * (2 - l2) / (l2 * root))
    b = (a - 1) ** 2 / 4
    c = a + b - 1
    l = l * (a + b * l2) / (1 + c * l2)
    out.append((a, b, c))
  return out


def _mask(x, rows, cols, other=None):
  """``x`` outside its leading ``rows x cols`` block replaced by ``other`` (default 0)."""
  s = get_aval(x).shape
  index = lambda v: convert_element_type(v, np.int32)
  keep = bitwise_and(lt(broadcasted_iota(np.int32, s, 0), index(rows)),
                         lt(broadcasted_iota(np.int32, s, 1), index(cols)))
  return select(keep, x, full(s, 0, get_aval(x).dtype) if other is None else other)


def _frobenius(x):
  return sqrt(reduce_sum(real(mul(conj(x), x) if dtypes.is_complex(
      get_aval(x).dtype) else mul(x, x)), (0, 1)))


def _qr_step(u, m, n, a, b, c):
  """``u <- (b/c) u + (a - b/c)/sqrt(c) q1 q2^H`` with ``[sqrt(c) u; I] = [q1; q2] r``."""
  big_m, big_n = get_aval(u).shape
  dt = get_aval(u).dtype
  e = b / c
  stacked = dynamic_update_slice_in_dim(
      pad(mul(full((), math.sqrt(c), dt), u), full((), 0, dt),
              [(0, big_n, 0), (0, 0, 0)]),
      eye(dt, (big_n, big_n)), m, 0)
  q, _ = qr(stacked, full_matrices=False)
  q1 = _mask(lax_slice(q, (0, 0), (big_m, big_n)), m, n)
  q2 = _mask(dynamic_slice_in_dim(q, m, big_n, 0), n, n)
  return add(mul(full((), e, dt), u),
                 mul(full((), (a - e) / math.sqrt(c), dt), matmul(q1, mH(q2))))


def _cholesky_step(u, m, n, a, b, c):
  """``u <- (b/c) u + (a - b/c) u (I + c u^H u)^{-1}``, the inverse by a Cholesky factor."""
  big_n = get_aval(u).shape[1]
  dt = get_aval(u).dtype
  ident = eye(dt, (big_n, big_n))
  z = add(mul(full((), c, dt), matmul(mH(u), u)), ident)
  factor = cholesky(_mask(z, n, n, ident), symmetrize_input=False)
  # u z^{-1} = ((factor factor^H)^{-1} u^H)^H
  y = triangular_solve(factor, mH(u), left_side=True, lower=True)
  y = triangular_solve(factor, y, left_side=True, lower=True, transpose_a=True,
                       conjugate_a=True)
  return add(mul(full((), b / c, dt), u),
                 mul(full((), a - b / c, dt), mH(y)))


def _max_abs_sum(x, axis):
  return reduce_max(reduce_sum(lax_abs(x), (axis,)), (0,))


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
    x = _mask(x, m, n)
  else:
    m, n = big_m, big_n
  dt = aval.dtype
  eps = float(dtypes.finfo(dt).eps) if eps is None else float(eps)
  rdt = dtypes.finfo(dt).dtype

  norm1, norm_inf = _max_abs_sum(x, 0), _max_abs_sum(x, 1)
  scale = mul(rsqrt(norm1), rsqrt(norm_inf))
  scale = select(eq(norm1, full((), 0, rdt)), full((), 1, rdt), scale)
  u = mul(x, convert_element_type(scale, dt))

  weights = _weights(eps, eps, max_iterations)
  tol_norm = (5 * eps) ** (1 / 3)
  moving = True
  for a, b, c in weights:
    if c > _QR_BELOW:
      u = _qr_step(u, m, n, a, b, c)
    else:
      previous, u = u, _cholesky_step(u, m, n, a, b, c)
      moving = gt(_frobenius(sub(u, previous)), full((), tol_norm, rdt))

  def keep_going(state):
    k, _, moving = state
    return bitwise_and(moving, lt(k, max_iterations))

  def halley(state):
    k, u, _ = state
    new = _cholesky_step(u, m, n, 3., 1., 3.)
    return k + 1, new, gt(_frobenius(sub(new, u)), full((), tol_norm, rdt))

  num_iters, u, moving = while_loop(keep_going, halley, (len(weights), u, moving))
  u = sub(mul(full((), 1.5, dt), u),
              mul(full((), 0.5, dt), matmul(u, matmul(mH(u), u))))
  h = matmul(mH(u), x)
  h = div(add(h, mH(h)), full((), 2, dt))
  return u, h, num_iters, bitwise_not(moving)
