"""Matrix-free Krylov solvers (``jax.scipy.sparse.linalg``): conjugate gradients, BiCGSTAB
and restarted GMRES on pytrees of arrays.  Each runs in a ``while_loop`` (so it jit-compiles)
and is wrapped in ``custom_linear_solve`` so gradients flow through the linear map
implicitly instead of through the iterations."""
from __future__ import annotations

from functools import partial

import numpy as np

from xjax._src.foundations import dtypes, tree_util
from xjax._src.primitives.lax.control_flow.loops import fori_loop, while_loop
from xjax._src.primitives.lax.linear_solve import custom_linear_solve
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.numpy import linalg as jla


def _map(f, *trees):
  return tree_util.tree_map(f, *trees)


def _vdot(x, y):
  leaves = [jnp.vdot(a, b) for a, b in zip(tree_util.tree_leaves(x), tree_util.tree_leaves(y))]
  return sum(leaves[1:], leaves[0])


def _norm(x):
  return jnp.sqrt(jnp.real(_vdot(x, x)))


def _add(x, y):
  return _map(jnp.add, x, y)


def _sub(x, y):
  return _map(jnp.subtract, x, y)


def _scale(c, x):
  return _map(lambda v: (c * v).astype(v.dtype), x)


def _as_operator(a):
  """A callable matvec from a function or a dense matrix."""
  if callable(a):
    return a
  if hasattr(a, "ndim") and a.ndim == 2:
    return partial(jnp.dot, a)
  raise TypeError(f"linear operator must be either a function or ndarray: {a!r}")


def _check_shapes(b, x0, name):
  b_tree, x_tree = tree_util.tree_structure(b), tree_util.tree_structure(x0)
  if b_tree != x_tree:
    raise ValueError(f"{name}: x0 and b must have matching tree structure: {x_tree} vs "
                     f"{b_tree}")
  for xb, xx in zip(tree_util.tree_leaves(b), tree_util.tree_leaves(x0)):
    if jnp.shape(xb) != jnp.shape(xx):
      raise ValueError(f"{name}: arrays in x0 and b must have matching shapes: "
                       f"{jnp.shape(xx)} vs {jnp.shape(xb)}")


def _prepare(name, A, b, x0, M):
  b = _map(jnp.asarray, b)
  x0 = _map(jnp.zeros_like, b) if x0 is None else _map(jnp.asarray, x0)
  _check_shapes(b, x0, name)
  return _as_operator(A), b, x0, _identity if M is None else _as_operator(M)


def _threshold(b, tol, atol):
  return jnp.maximum(jnp.square(tol) * _vdot(b, b).real, jnp.square(atol))


def _identity(x):
  return x


def _cg_solve(A, b, x0, *, maxiter, tol, atol, M):
  bound = _threshold(b, tol, atol)

  def cond(state):
    _, r, _, _, k = state
    return (_vdot(r, r).real > bound) & (k < maxiter)

  def body(state):
    x, r, gamma, p, k = state
    ap = A(p)
    alpha = gamma / _vdot(p, ap).real
    x = _add(x, _scale(alpha, p))
    r = _sub(r, _scale(alpha, ap))
    z = M(r)
    gamma_new = _vdot(r, z).real
    p = _add(z, _scale(gamma_new / gamma, p))
    return x, r, gamma_new, p, k + 1

  r0 = _sub(b, A(x0))
  z0 = M(r0)
  state = (x0, r0, _vdot(r0, z0).real, z0, jnp.int32(0))
  return while_loop(cond, body, state)[0]


def _bicgstab_solve(A, b, x0, *, maxiter, tol, atol, M):
  bound = _threshold(b, tol, atol)

  def cond(state):
    x, r, *_, k = state
    rs = _vdot(r, r).real
    return (rs > bound) & (k < maxiter) & (k >= 0)

  def body(state):
    x, r, rhat, alpha, omega, rho, p, q, k = state
    rho_new = _vdot(rhat, r)
    beta = rho_new / rho * alpha / omega
    p = _add(r, _scale(beta, _sub(p, _scale(omega, q))))
    phat = M(p)
    q = A(phat)
    alpha = rho_new / _vdot(rhat, q)
    s = _sub(r, _scale(alpha, q))
    exit_early = _vdot(s, s).real < bound
    shat = M(s)
    t = A(shat)
    omega_new = _vdot(t, s) / _vdot(t, t)
    x = _add(x, _add(_scale(alpha, phat), _scale(jnp.where(exit_early, 0, omega_new), shat)))
    r = _map(lambda sv, tv: jnp.where(exit_early, sv, sv - omega_new * tv), s, t)
    k = jnp.where((omega_new == 0) | (alpha == 0), -11, k + 1)
    k = jnp.where((rho_new == 0), -10, k)
    return x, r, rhat, alpha, omega_new, rho_new, p, q, k

  r0 = _sub(b, A(x0))
  one = jnp.ones((), dtype=dtypes.result_type(*tree_util.tree_leaves(b)))
  state = (x0, r0, r0, one, one, one, _map(jnp.zeros_like, r0), _map(jnp.zeros_like, r0),
           jnp.int32(0))
  return while_loop(cond, body, state)[0]


def _solve(name, solver, A, b, x0, tol, atol, maxiter, M, symmetric):
  A, b, x0, M = _prepare(name, A, b, x0, M)
  if maxiter is None:
    maxiter = 10 * sum(int(np.size(v)) for v in tree_util.tree_leaves(b))
  run = partial(solver, x0=x0, maxiter=maxiter, tol=tol, atol=atol, M=M)
  if symmetric:
    x = custom_linear_solve(A, b, solve=lambda f, rhs: run(f, rhs), symmetric=True)
  else:
    x = custom_linear_solve(A, b, solve=lambda f, rhs: run(f, rhs),
                            transpose_solve=lambda f, rhs: run(f, rhs))
  return x, None


def cg(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
  """Solves A x = b for Hermitian positive-definite A by conjugate gradients.

  Returns ``(x, None)``; ``A`` and ``M`` (a preconditioner approximating A^-1) are
  functions (or dense matrices).  Stops when ||b - A x|| <= max(tol ||b||, atol).
  """
  return _solve("cg", _cg_solve, A, b, x0, tol, atol, maxiter, M, symmetric=True)


def bicgstab(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
  """Solves A x = b for general A by the stabilized biconjugate gradient method.

  Returns ``(x, None)``.
  """
  return _solve("bicgstab", _bicgstab_solve, A, b, x0, tol, atol, maxiter, M,
                symmetric=False)


def _flatten(tree):
  leaves, treedef = tree_util.tree_flatten(tree)
  shapes = [jnp.shape(v) for v in leaves]
  flat = jnp.concatenate([jnp.ravel(v) for v in leaves])

  def unflatten(vec):
    out, start = [], 0
    for shape, leaf in zip(shapes, leaves):
      size = int(np.prod(shape))
      out.append(jnp.reshape(vec[start:start + size], shape).astype(leaf.dtype))
      start += size
    return tree_util.tree_unflatten(treedef, out)
  return flat, unflatten


def _gmres_solve(A, b, x0, *, maxiter, tol, atol, M, restart):
  b_flat, unflatten = _flatten(b)
  n = b_flat.shape[0]
  restart = min(restart, n)

  def op(v):
    return _flatten(M(A(unflatten(v))))[0]

  def precond_residual(x):
    return _flatten(M(_sub(b, A(unflatten(x)))))[0]

  b_norm = jla.norm(_flatten(M(b))[0])
  bound = jnp.maximum(tol * b_norm, atol)

  def cycle(x):
    r = precond_residual(x)
    beta = jla.norm(r)
    v0 = r / jnp.where(beta == 0, 1, beta)
    basis = jnp.zeros((restart + 1, n), b_flat.dtype).at[0].set(v0)
    hess = jnp.zeros((restart + 1, restart), b_flat.dtype)

    def arnoldi(j, carry):
      basis, hess = carry
      w = op(basis[j])
      for _ in range(2):  # modified Gram-Schmidt, twice for stability
        coeffs = jnp.where(jnp.arange(restart + 1) <= j, basis.conj() @ w, 0)
        w = w - coeffs @ basis
        hess = hess.at[:, j].add(coeffs)
      h = jla.norm(w)
      hess = hess.at[j + 1, j].set(h)
      basis = basis.at[j + 1].set(w / jnp.where(h == 0, 1, h))
      return basis, hess
    basis, hess = fori_loop(0, restart, arnoldi, (basis, hess))
    e1 = jnp.zeros(restart + 1, b_flat.dtype).at[0].set(beta)
    y = jla.lstsq(hess, e1)[0]
    return x + y @ basis[:restart]

  def cond(state):
    x, k, res = state
    return (res > bound) & (k < maxiter)

  def body(state):
    x, k, _ = state
    x = cycle(x)
    return x, k + 1, jla.norm(precond_residual(x))

  x0_flat = _flatten(x0)[0]
  state = (x0_flat, jnp.int32(0), jla.norm(precond_residual(x0_flat)))
  return unflatten(while_loop(cond, body, state)[0])


def gmres(A, b, x0=None, *, tol=1e-5, atol=0.0, restart=20, maxiter=None, M=None,
          solve_method="batched"):
  """Solves A x = b for general A by restarted GMRES (``restart`` Krylov vectors per
  cycle, at most ``maxiter`` cycles).  Returns ``(x, None)``."""
  if solve_method not in ("incremental", "batched"):
    raise ValueError(f"invalid solve_method {solve_method!r}, must be either "
                     "'incremental' or 'batched'")
  A_, b_, x0_, M_ = _prepare("gmres", A, b, x0, M)
  size = sum(int(np.size(v)) for v in tree_util.tree_leaves(b_))
  if maxiter is None:
    maxiter = 10 * size
  run = partial(_gmres_solve, x0=x0_, maxiter=maxiter, tol=tol, atol=atol, M=M_,
                restart=restart)
  x = custom_linear_solve(A_, b_, solve=lambda f, rhs: run(f, rhs),
                          transpose_solve=lambda f, rhs: run(f, rhs))
  return x, None
