"""lineax: linear solves with LU, Cholesky and CG, and a gradient through the solve."""
import jax
import jax.numpy as jnp
import lineax as lx


def run():
  matrix = jnp.array([[4.0, 1.0, 0.0], [1.0, 3.0, 0.5], [0.0, 0.5, 2.0]])
  vector = jnp.array([1.0, 2.0, 3.0])
  operator = lx.MatrixLinearOperator(matrix)
  lu = lx.linear_solve(operator, vector, solver=lx.LU())
  spd = lx.MatrixLinearOperator(matrix, lx.positive_semidefinite_tag)
  chol = lx.linear_solve(spd, vector, solver=lx.Cholesky())
  cg = lx.linear_solve(spd, vector, solver=lx.CG(rtol=1e-6, atol=1e-6))
  grad = jax.jit(jax.grad(lambda m: lx.linear_solve(lx.MatrixLinearOperator(m), vector).value.sum()))(matrix)
  return {"lu": lu.value, "cholesky": chol.value, "cg": cg.value, "grad": grad[0]}
