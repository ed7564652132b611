"""scico (scientific computational imaging): total-variation denoising of a 1-D signal by
ADMM with a linear subproblem solver (its examples' pattern), its SNR, and a loss gradient."""
import warnings

import jax
import jax.numpy as jnp

with warnings.catch_warnings():  # (its import warns about names it wraps, on JAX too)
  warnings.simplefilter("ignore")
  from scico import functional, linop, loss, metric
  from scico.optimize.admm import ADMM, LinearSubproblemSolver


def run():
  x_gt = jnp.zeros(32).at[5:10].set(1.0).at[20:25].set(-0.5)
  A = linop.Identity(x_gt.shape)
  y = x_gt + 0.1 * jnp.sin(jnp.arange(32.0))
  D = linop.FiniteDifference(input_shape=x_gt.shape, append=0)
  f = loss.SquaredL2Loss(y=y, A=A)
  g = 0.3 * functional.L1Norm()
  solver = ADMM(f=f, g_list=[g], C_list=[D], rho_list=[1.0], x0=A.adj(y), maxiter=20,
                subproblem_solver=LinearSubproblemSolver())
  x = solver.solve()
  return {"x": x, "snr": metric.snr(x_gt, x), "f": f(x), "g": g(D @ x),
          "grad": jax.grad(lambda v: f(v))(y * 0.5)}
