"""jax-md: a soft-sphere system in a periodic box, FIRE minimization and NVE steps."""
import jax
import jax.numpy as jnp
from jax_md import energy, minimize, simulate, space


def run():
  box = 4.0
  displacement, shift = space.periodic(box)
  positions = jax.random.uniform(jax.random.PRNGKey(0), (16, 2), maxval=box)
  energy_fn = energy.soft_sphere_pair(displacement, sigma=1.0)
  init, apply = minimize.fire_descent(energy_fn, shift)
  state = init(positions)
  apply = jax.jit(apply)
  for _ in range(20):
    state = apply(state)
  nve_init, nve_apply = simulate.nve(energy_fn, shift, dt=1e-3)
  md = nve_init(jax.random.PRNGKey(1), state.position, kT=0.1)
  md = jax.lax.fori_loop(0, 10, lambda i, s: nve_apply(s), md)
  return {"e0": energy_fn(positions), "e_fire": energy_fn(state.position),
          "e_nve": energy_fn(md.position), "position": md.position[0]}
