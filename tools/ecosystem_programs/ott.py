"""ott-jax: entropic optimal transport between point clouds with Sinkhorn."""
import jax
import jax.numpy as jnp
from ott.geometry import pointcloud
from ott.problems.linear import linear_problem
from ott.solvers.linear import sinkhorn


def run():
  kx, ky = jax.random.split(jax.random.PRNGKey(0))
  x = jax.random.normal(kx, (12, 2))
  y = jax.random.normal(ky, (10, 2)) + 1.0
  geom = pointcloud.PointCloud(x, y, epsilon=0.1)
  out = jax.jit(lambda g: sinkhorn.Sinkhorn()(linear_problem.LinearProblem(g)))(geom)
  grad = jax.grad(lambda x: sinkhorn.Sinkhorn()(linear_problem.LinearProblem(
      pointcloud.PointCloud(x, y, epsilon=0.1))).reg_ot_cost)(x)
  return {"reg_ot_cost": out.reg_ot_cost, "converged": out.converged, "row_sums": out.matrix.sum(1)[:4],
          "grad": grad[0]}
