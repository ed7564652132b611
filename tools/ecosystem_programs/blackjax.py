"""blackjax: NUTS steps with a jitted kernel on a 2-d Gaussian, and an MALA chain."""
import blackjax
import jax
import jax.numpy as jnp


def logdensity(x):
  return -0.5 * jnp.sum((x - jnp.array([1.0, -1.0])) ** 2 / jnp.array([1.0, 4.0]))


def run():
  nuts = blackjax.nuts(logdensity, step_size=0.5, inverse_mass_matrix=jnp.ones(2))
  state = nuts.init(jnp.zeros(2))
  step = jax.jit(nuts.step)
  keys = jax.random.split(jax.random.PRNGKey(0), 5)
  positions = []
  for key in keys:
    state, info = step(key, state)
    positions.append(state.position)
  mala = blackjax.mala(logdensity, step_size=0.3)

  def one(state, key):
    state, _ = mala.step(key, state)
    return state, state.position

  _, chain = jax.lax.scan(one, mala.init(jnp.zeros(2)), jax.random.split(jax.random.PRNGKey(1), 10))
  return {"nuts": positions, "mala_last": chain[-1], "mala_mean": chain.mean(0)}
