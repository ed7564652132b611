"""brax: an inverted pendulum environment reset and stepped with jitted functions."""
import jax
import jax.numpy as jnp
from brax import envs


def run():
  env = envs.get_environment("inverted_pendulum", backend="positional")
  state = jax.jit(env.reset)(jax.random.PRNGKey(0))
  step = jax.jit(env.step)
  rewards = []
  for i in range(3):
    state = step(state, jnp.array([0.1 * i]))
    rewards.append(state.reward)
  return {"obs": state.obs, "rewards": rewards}
