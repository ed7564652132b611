"""optimistix: a Newton root find and a BFGS minimisation of the Rosenbrock function."""
import jax.numpy as jnp
import optimistix as optx


def run():
  root = optx.root_find(lambda y, args: jnp.tanh(y + 1) - args, optx.Newton(rtol=1e-5, atol=1e-5),
                        jnp.array([-0.5, -1.0]), args=jnp.array([0.2, -0.3]))
  rosenbrock = lambda y, args: (1 - y[0]) ** 2 + 100 * (y[1] - y[0] ** 2) ** 2
  minimum = optx.minimise(rosenbrock, optx.BFGS(rtol=1e-5, atol=1e-5), jnp.array([-1.0, 1.0]),
                          max_steps=1000)
  fixed = optx.fixed_point(lambda y, args: jnp.cos(y), optx.FixedPointIteration(rtol=1e-5, atol=1e-5),
                           jnp.array(1.0), max_steps=200)
  return {"root": root.value, "minimum": minimum.value, "fixed_point": fixed.value}
