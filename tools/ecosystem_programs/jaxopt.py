"""jaxopt: ridge regression by LBFGS and a projected-gradient box problem, with implicit diff."""
import jax
import jax.numpy as jnp
import jaxopt
from jaxopt import projection


def run():
  x = jax.random.normal(jax.random.PRNGKey(0), (20, 3))
  y = x @ jnp.array([1.0, -2.0, 0.5]) + 0.1

  def ridge(w, lam):
    return jnp.mean((x @ w - y) ** 2) + lam * jnp.sum(w ** 2)

  solver = jaxopt.LBFGS(fun=ridge, maxiter=50, tol=1e-8)
  w = solver.run(jnp.zeros(3), lam=0.1).params
  dw_dlam = jax.jacobian(lambda lam: solver.run(jnp.zeros(3), lam=lam).params)(0.1)
  pg = jaxopt.ProjectedGradient(fun=lambda w: ridge(w, 0.0), projection=projection.projection_box)
  boxed = pg.run(jnp.zeros(3), hyperparams_proj=(-1.0, 1.0)).params
  return {"w": w, "dw_dlam": dw_dlam, "boxed": boxed}
