"""Matrix-free Krylov solvers (``jax.scipy.sparse.linalg``): conjugate gradients, BiCGSTAB
and restarted GMRES on pytrees of arrays.  Each runs in a ``while_loop`` (so it jit-compiles)
and is wrapped in ``custom_linear_solve`` so gradients flow through the linear map
implicitly instead of through the iterations.  The arithmetic follows JAX's step for step,
so results agree bit for bit."""
from __future__ import annotations

import operator
from functools import partial

import numpy as np

from xjax._src.foundations import dtypes, tree_util
from xjax._src.api.placement import device_put
from xjax._src.execution.basearray import Array
from xjax._src.primitives.lax.control_flow.loops import fori_loop, while_loop
from xjax._src.primitives.lax.dot import Precision
from xjax._src.primitives.lax.elementwise import convert_element_type, rsqrt
from xjax._src.primitives.lax.linear_solve import custom_linear_solve
from xjax._src.primitives.lax import linalg as lax_linalg
from xjax._src.libraries.numpy import namespace as jnp

_dot = partial(jnp.dot, precision=Precision.HIGHEST)
_vdot = partial(jnp.vdot, precision=Precision.HIGHEST)
_add = partial(tree_util.tree_map, operator.add)
_sub = partial(tree_util.tree_map, operator.sub)


def _mul(c, tree):
  return tree_util.tree_map(lambda v: c * v, tree)


def _vdot_real(x, y):
  """The real part of ``vdot(x, y)`` as ``x.real . y.real + x.imag . y.imag``."""
  out = _vdot(x.real, y.real)
  if jnp.iscomplexobj(x) or jnp.iscomplexobj(y):
    out += _vdot(x.imag, y.imag)
  return out


def _vdot_real_tree(x, y):
  return sum(tree_util.tree_leaves(tree_util.tree_map(_vdot_real, x, y)))


def _vdot_tree(x, y):
  return sum(tree_util.tree_leaves(tree_util.tree_map(_vdot, x, y)))


def _norm(x):
  leaves = tree_util.tree_leaves(x)
  return jnp.sqrt(sum(map(_vdot_real, leaves, leaves)))


def _identity(x):
  return x


def _as_operator(a):
  """A callable matvec from a function, a square matrix or an object with ``@``."""
  if callable(a):
    return a
  is_array = isinstance(a, (np.ndarray, Array))
  if is_array or hasattr(a, "__matmul__"):
    if len(a.shape) != 2 or a.shape[0] != a.shape[1]:
      raise ValueError(f"linear operator must be a square matrix, but has shape: {a.shape}")
    return partial(_dot, a) if is_array else partial(operator.matmul, a)
  raise TypeError(f"linear operator must be either a function or ndarray: {a}")


def _check_structure(b, x0):
  b_tree, x_tree = tree_util.tree_structure(b), tree_util.tree_structure(x0)
  if x_tree != b_tree:
    raise ValueError(f"x0 and b must have matching tree structure: {x_tree} vs {b_tree}")


def _shapes(tree):
  return [np.shape(v) for v in tree_util.tree_leaves(tree)]


def _cg_solve(A, b, x0, *, maxiter, tol, atol, M):
  bound = jnp.maximum(jnp.square(tol) * _vdot_real_tree(b, b), jnp.square(atol))

  def cond(state):
    _, r, gamma, _, k = state
    rs = gamma.real if M is _identity else _vdot_real_tree(r, r)
    return (rs > bound) & (k < maxiter)

  def body(state):
    x, r, gamma, p, k = state
    ap = A(p)
    alpha = gamma / _vdot_real_tree(p, ap).astype(dtype)
    x = _add(x, _mul(alpha, p))
    r = _sub(r, _mul(alpha, ap))
    z = M(r)
    gamma_new = _vdot_real_tree(r, z).astype(dtype)
    p = _add(z, _mul(gamma_new / gamma, p))
    return x, r, gamma_new, p, k + 1

  r0 = _sub(b, A(x0))
  z0 = M(r0)
  dtype = dtypes.result_type(*tree_util.tree_leaves(z0))
  state = (x0, r0, _vdot_real_tree(r0, z0).astype(dtype), z0, 0)
  return while_loop(cond, body, state)[0]


def _bicgstab_solve(A, b, x0, *, maxiter, tol, atol, M):
  bound = jnp.maximum(jnp.square(tol) * _vdot_real_tree(b, b), jnp.square(atol))

  def cond(state):
    x, r, *_, k = state
    return (_vdot_real_tree(r, r) > bound) & (k < maxiter) & (k >= 0)  # k < 0: breakdown

  def body(state):
    x, r, rhat, alpha, omega, rho, p, q, k = state
    rho_new = _vdot_tree(rhat, r)
    beta = rho_new / rho * alpha / omega
    p = _add(r, _mul(beta, _sub(p, _mul(omega, q))))
    phat = M(p)
    q = A(phat)
    alpha = rho_new / _vdot_tree(rhat, q)
    s = _sub(r, _mul(alpha, q))
    exit_early = _vdot_real_tree(s, s) < bound
    shat = M(s)
    t = A(shat)
    omega_new = _vdot_tree(t, s) / _vdot_tree(t, t)
    pick = partial(tree_util.tree_map, partial(jnp.where, exit_early))
    x = pick(_add(x, _mul(alpha, phat)),
             _add(x, _add(_mul(alpha, phat), _mul(omega_new, shat))))
    r = pick(s, _sub(s, _mul(omega_new, t)))
    k = jnp.where((omega_new == 0) | (alpha == 0), -11, k + 1)
    k = jnp.where(rho_new == 0, -10, k)
    return x, r, rhat, alpha, omega_new, rho_new, p, q, k

  r0 = _sub(b, A(x0))
  one = convert_element_type(1, *dtypes.result_type(*tree_util.tree_leaves(b),
                                                    return_weak_type_flag=True))
  state = (x0, r0, r0, one, one, one, r0, r0, 0)
  return while_loop(cond, body, state)[0]


def _isolve(solver, A, b, x0, tol, atol, maxiter, M, check_symmetric=False):
  if x0 is None:
    x0 = tree_util.tree_map(jnp.zeros_like, b)
  b, x0 = device_put((b, x0))
  if maxiter is None:
    maxiter = 10 * sum(v.size for v in tree_util.tree_leaves(b))
  A = _as_operator(A)
  M = _identity if M is None else _as_operator(M)
  _check_structure(b, x0)
  if _shapes(x0) != _shapes(b):
    raise ValueError(f"arrays in x0 and b must have matching shapes: {_shapes(x0)} vs "
                     f"{_shapes(b)}")
  run = partial(solver, x0=x0, maxiter=maxiter, tol=tol, atol=atol, M=M)
  symmetric = check_symmetric and not any(
      jnp.iscomplexobj(v) for v in tree_util.tree_leaves(b))
  x = custom_linear_solve(A, b, solve=run, transpose_solve=run, symmetric=symmetric)
  return x, None


def cg(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
  """Solves A x = b for Hermitian positive-definite A by conjugate gradients.

  Returns ``(x, None)``; ``A`` and ``M`` (a preconditioner approximating A^-1) are
  functions (or square matrices).  Stops when ||b - A x|| <= max(tol ||b||, atol).
  """
  return _isolve(_cg_solve, A, b, x0, tol, atol, maxiter, M, check_symmetric=True)


def bicgstab(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
  """Solves A x = b for general A by the stabilized biconjugate gradient method.

  Returns ``(x, None)``.
  """
  return _isolve(_bicgstab_solve, A, b, x0, tol, atol, maxiter, M)


# -- GMRES -------------------------------------------------------------------------------
# The Krylov basis V holds one extra trailing axis per leaf (``restart + 1`` columns); the
# Hessenberg matrix H is stored transposed, row k holding the overlaps of the k-th step.

def _safe_normalize(x, thresh=None):
  """``(x / ||x||, ||x||)``, or zeros and a zero norm where ||x|| <= ``thresh`` (by default
  the dtype's epsilon)."""
  norm = _norm(x)
  dtype, weak = dtypes.result_type(*tree_util.tree_leaves(x), return_weak_type_flag=True)
  if thresh is None:
    thresh = dtypes.finfo(norm.dtype).eps
  use_norm = norm > thresh
  divisor = convert_element_type(norm, dtype, weak)
  unit = tree_util.tree_map(lambda v: jnp.where(use_norm, v / divisor, 0.0), x)
  return unit, jnp.where(use_norm, norm, 0.0)


def _gram_schmidt(V, v):
  """``v`` orthogonalized against V's columns by one classical Gram-Schmidt pass, and the
  overlaps.  (JAX's re-orthogonalization loop stops before a second pass: its iteration
  bound of 2 admits only the first.)"""
  overlaps = tree_util.tree_reduce(operator.add, tree_util.tree_map(
      lambda X, y: jnp.einsum("...n,...->n", X.conj(), y, precision=Precision.HIGHEST),
      V, v))
  return _sub(v, tree_util.tree_map(lambda X: _dot(X, overlaps), V)), overlaps


def _arnoldi_step(k, A, M, V, H):
  """Appends the unit part of M(A(V[:, k])) orthogonal to V[:, :k+1] as V[:, k+1], its
  overlaps as H[k]; ``breakdown`` when it has none (an invariant subspace)."""
  dtype = dtypes.result_type(*tree_util.tree_leaves(V))
  v = M(A(tree_util.tree_map(lambda X: X[..., k], V)))
  _, v_norm = _safe_normalize(v)
  v, h = _gram_schmidt(V, v)
  unit, h_next = _safe_normalize(v, thresh=dtypes.finfo(dtype).eps * v_norm)
  V = tree_util.tree_map(lambda X, u: X.at[..., k + 1].set(u), V, unit)
  H = H.at[k, :].set(h.at[k + 1].set(h_next.astype(dtype)))
  return V, H, h_next == 0.


def _rotate(v, i, cs, sn):
  """Applies the Givens rotation ``(cs, sn)`` to entries i and i+1 of ``v``."""
  a, b = v[i], v[i + 1]
  v = v.at[i].set(cs.conj() * a - sn.conj() * b)
  return v.at[i + 1].set(sn * a + cs * b)


def _givens(a, b):
  """The rotation ``(cs, sn)`` that zeroes ``b`` against ``a``."""
  a_lt_b = abs(a) < abs(b)
  t = -jnp.where(a_lt_b, a, b) / jnp.where(a_lt_b, b, a)
  r = rsqrt(1 + abs(t) ** 2).astype(t.dtype)
  b_zero = abs(b) == 0
  return (jnp.where(b_zero, 1, jnp.where(a_lt_b, r * t, r)),
          jnp.where(b_zero, 0, jnp.where(a_lt_b, r, r * t)))


def _krylov_basis(unit_residual, restart):
  return tree_util.tree_map(
      lambda v: jnp.pad(v[..., None], ((0, 0),) * v.ndim + ((0, restart),)), unit_residual)


def _restart_from(A, b, M, x0, V, y):
  """``x0 + V[:, :-1] y`` and its normalized preconditioned residual."""
  x = _add(x0, tree_util.tree_map(lambda X: _dot(X[..., :-1], y), V))
  return (x, *_safe_normalize(M(_sub(b, A(x)))))


def _gmres_incremental(A, b, x0, unit_residual, residual_norm, ptol, restart, M):
  """One restart cycle, QR-factorizing the Hessenberg matrix by Givens rotations as the
  basis grows, so the cycle stops once the residual estimate drops to ``ptol``."""
  dtype = dtypes.result_type(*tree_util.tree_leaves(b))
  R = jnp.eye(restart, restart + 1, dtype=dtype)  # (rows an early stop leaves stay regular)
  givens = jnp.zeros((restart, 2), dtype=dtype)
  beta = jnp.zeros(restart + 1, dtype=dtype).at[0].set(residual_norm.astype(dtype))

  def cond(state):
    k, err, *_ = state
    return (k < restart) & (err > ptol)

  def body(state):
    k, _, V, R, beta, givens = state
    V, H, _ = _arnoldi_step(k, A, M, V, R)
    row = fori_loop(0, k, lambda i, row: _rotate(row, i, *givens[i, :]), H[k, :])
    rotation = _givens(row[k], row[k + 1])
    givens = givens.at[k, :].set(rotation)
    R = R.at[k, :].set(_rotate(row, k, *rotation))
    beta = _rotate(beta, k, *givens[k, :])
    return k + 1, abs(beta[k + 1]), V, R, beta, givens

  state = (0, residual_norm, _krylov_basis(unit_residual, restart), R, beta, givens)
  _, _, V, R, beta, _ = while_loop(cond, body, state)
  y = lax_linalg.triangular_solve(R[:, :-1].T, beta[:-1], left_side=True)
  return _restart_from(A, b, M, x0, V, y)


def _least_squares(a, b):
  """The least squares solution of ``a y = b`` by the normal equations, solved with the
  upper Cholesky factor of ``a^H a``."""
  adjoint = a.T.conj()
  gram, rhs = _dot(adjoint, a), _dot(adjoint, b)
  upper = lax_linalg.cholesky(gram.mT.conj(), symmetrize_input=False).mT.conj()
  y = lax_linalg.triangular_solve(upper, rhs, left_side=True, transpose_a=True,
                                  conjugate_a=True)
  return lax_linalg.triangular_solve(upper, y, left_side=True)


def _gmres_batched(A, b, x0, unit_residual, residual_norm, ptol, restart, M):
  """One restart cycle: the whole Arnoldi basis (unless it breaks down), then the least
  squares problem by the normal equations."""
  del ptol
  dtype, weak = dtypes.result_type(*tree_util.tree_leaves(b), return_weak_type_flag=True)
  H = convert_element_type(jnp.eye(restart, restart + 1, dtype=dtype), dtype, weak)

  def cond(state):
    _, _, breakdown, k = state
    return (k < restart) & ~breakdown

  def body(state):
    V, H, _, k = state
    return (*_arnoldi_step(k, A, M, V, H), k + 1)

  V, H, _, _ = while_loop(cond, body, (_krylov_basis(unit_residual, restart), H, False, 0))
  beta = jnp.zeros_like(H, shape=(restart + 1,)).at[0].set(residual_norm.astype(dtype))
  return _restart_from(A, b, M, x0, V, _least_squares(H.T, beta))


def _gmres_solve(A, b, x0, atol, ptol, restart, maxiter, M, cycle):
  """Restart cycles from ``x0`` until the preconditioned residual is within ``atol``."""
  def cond(state):
    _, k, _, residual_norm = state
    return (k < maxiter) & (residual_norm > atol)

  def body(state):
    x, k, unit_residual, residual_norm = state
    x, unit_residual, residual_norm = cycle(A, b, x, unit_residual, residual_norm, ptol,
                                            restart, M)
    return x, k + 1, unit_residual, residual_norm

  unit_residual, residual_norm = _safe_normalize(M(_sub(b, A(x0))))
  return while_loop(cond, body, (x0, 0, unit_residual, residual_norm))[0]


_GMRES_CYCLES = {"incremental": _gmres_incremental, "batched": _gmres_batched}


def gmres(A, b, x0=None, *, tol=1e-5, atol=0.0, restart=20, maxiter=None, M=None,
          solve_method="batched"):
  """Solves A x = b for general A by restarted GMRES (``restart`` Krylov vectors per
  cycle, at most ``maxiter`` cycles).  ``solve_method`` 'batched' solves each cycle's least
  squares problem at its end; 'incremental' updates a QR factorization as it goes and may
  end a cycle early.  Returns ``(x, info)``, ``info`` -1 where x has NaNs, else 0."""
  if x0 is None:
    x0 = tree_util.tree_map(jnp.zeros_like, b)
  A = _as_operator(A)
  M = _identity if M is None else _as_operator(M)
  b, x0 = device_put((b, x0))
  size = sum(v.size for v in tree_util.tree_leaves(b))
  if maxiter is None:
    maxiter = 10 * size
  restart = min(restart, size)
  _check_structure(b, x0)
  b_norm = _norm(b)
  atol = jnp.maximum(tol * b_norm, atol)
  ptol = _norm(M(b)) * jnp.minimum(1.0, atol / b_norm)
  if solve_method not in _GMRES_CYCLES:
    raise ValueError(f"invalid solve_method {solve_method}, must be either 'incremental' "
                     "or 'batched'")
  run = partial(_gmres_solve, x0=x0, atol=atol, ptol=ptol, restart=restart, maxiter=maxiter,
                M=M, cycle=_GMRES_CYCLES[solve_method])
  x = custom_linear_solve(A, b, solve=run, transpose_solve=run)
  return x, jnp.where(jnp.isnan(_norm(x)), -1, 0)
