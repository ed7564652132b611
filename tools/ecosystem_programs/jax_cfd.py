"""jax-cfd: a filtered random initial velocity on a 32x32 periodic grid stepped five times by
the semi-implicit Navier-Stokes solver under jit (its README's demo), and its vorticity."""
import jax
import jax.numpy as jnp
import jax_cfd.base as cfd


def run():
  grid = cfd.grids.Grid((32, 32), domain=((0, 2 * jnp.pi), (0, 2 * jnp.pi)))
  dt = cfd.equations.stable_time_step(1.0, 0.5, 1e-3, grid)
  v0 = cfd.initial_conditions.filtered_velocity_field(jax.random.PRNGKey(42), grid,
                                                      maximum_velocity=1.0, peak_wavenumber=4)
  step = cfd.funcutils.repeated(cfd.equations.semi_implicit_navier_stokes(
      density=1.0, viscosity=1e-3, dt=dt, grid=grid), steps=5)
  v = jax.jit(step)(v0)
  return {"dt": dt, "energy": jnp.stack([jnp.sum(c.data ** 2) for c in v]),
          "sample": jnp.stack([c.data[3, 5] for c in v]),
          "max_vorticity": jnp.abs(cfd.finite_differences.curl_2d(v).data).max()}
