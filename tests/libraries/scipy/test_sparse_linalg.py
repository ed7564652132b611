"""xjax.scipy.sparse.linalg's Krylov solvers (cg, bicgstab, gmres) against NumPy's solve:
operators as matrices or functions, pytrees, preconditioners, jit, implicit gradients and
bad input."""
import numpy as np
import pytest

import xjax as jax
import xjax.numpy as jnp
from xjax.scipy.sparse import linalg as sla

RNG = np.random.RandomState(0)
_A = RNG.randn(6, 6).astype(np.float32)
SPD = _A @ _A.T + 6 * np.eye(6, dtype=np.float32)
NONSYM = _A + 6 * np.eye(6, dtype=np.float32)
B = RNG.randn(6).astype(np.float32)


@pytest.mark.parametrize("solver,matrix", [(sla.cg, SPD), (sla.bicgstab, NONSYM),
                                           (sla.gmres, NONSYM)])
def test_krylov_solvers(solver, matrix):
  expected = np.linalg.solve(matrix, B)
  x, info = solver(lambda v: jnp.asarray(matrix) @ v, B, tol=1e-6)
  # (JAX's: cg and bicgstab give no info, gmres 0 when converged)
  assert info is None if solver is not sla.gmres else int(info) == 0
  np.testing.assert_allclose(x, expected, rtol=1e-4, atol=1e-5)
  x = jax.jit(lambda b: solver(jnp.asarray(matrix), b, tol=1e-6)[0])(B)
  np.testing.assert_allclose(x, expected, rtol=1e-4, atol=1e-5)
  # the gradient flows implicitly: d/db sum(A^-1 b) = A^-T 1
  g = jax.grad(lambda b: solver(lambda v: jnp.asarray(matrix) @ v, b, tol=1e-6)[0].sum())(B)
  np.testing.assert_allclose(g, np.linalg.solve(matrix.T, np.ones(6)), rtol=1e-3, atol=1e-5)


def test_krylov_pytrees_preconditioner_and_errors():
  tree = {"a": jnp.asarray(B[:3]), "b": jnp.asarray(B[3:])}
  x, _ = sla.cg(lambda t: {"a": 2 * t["a"], "b": 3 * t["b"]}, tree)
  np.testing.assert_allclose(x["a"], B[:3] / 2, rtol=1e-5)
  np.testing.assert_allclose(x["b"], B[3:] / 3, rtol=1e-5)
  jacobi = np.diag(1 / np.diag(SPD))
  x, _ = sla.cg(jnp.asarray(SPD), B, M=lambda v: jnp.asarray(jacobi) @ v, tol=1e-6)
  np.testing.assert_allclose(x, np.linalg.solve(SPD, B), rtol=1e-4, atol=1e-5)
  x, _ = sla.gmres(jnp.asarray(NONSYM), B, restart=2, tol=1e-6, solve_method="incremental")
  np.testing.assert_allclose(x, np.linalg.solve(NONSYM, B), rtol=1e-4, atol=1e-5)
  with pytest.raises(ValueError, match="matching shapes"):
    sla.cg(jnp.asarray(SPD), B, x0=np.zeros(5))
  with pytest.raises(ValueError, match="solve_method"):
    sla.gmres(jnp.asarray(SPD), B, solve_method="qr")
