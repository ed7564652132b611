"""diffrax: an ODE solved with Tsit5 and a PID controller, saved at times, and its gradient."""
import diffrax
import jax
import jax.numpy as jnp


def run():
  term = diffrax.ODETerm(lambda t, y, args: -args * y + jnp.sin(t))
  solver = diffrax.Tsit5()
  saveat = diffrax.SaveAt(ts=jnp.linspace(0.0, 2.0, 5))
  controller = diffrax.PIDController(rtol=1e-6, atol=1e-6)

  def solve(y0, k):
    return diffrax.diffeqsolve(term, solver, t0=0.0, t1=2.0, dt0=0.1, y0=y0, args=k,
                               saveat=saveat, stepsize_controller=controller)

  sol = solve(jnp.array([1.0, 2.0]), 0.7)
  grad = jax.jit(jax.grad(lambda k: solve(jnp.array([1.0, 2.0]), k).ys[-1].sum()))(0.7)
  return {"ys": sol.ys, "steps": sol.stats["num_steps"], "grad": grad}
