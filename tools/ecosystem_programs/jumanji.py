"""jumanji: the README's registry make, jitted reset and steps, on Snake-v1 and Game2048-v1."""
import jax
import jax.numpy as jnp
import jumanji


def run():
  outputs = {}
  for name in ("Snake-v1", "Game2048-v1"):
    env = jumanji.make(name)
    state, timestep = jax.jit(env.reset)(jax.random.PRNGKey(0))
    step = jax.jit(env.step)
    rewards = []
    for action in (0, 1, 2, 3):
      state, timestep = step(state, jnp.asarray(action, env.action_spec.dtype))
      rewards.append(timestep.reward)
    leaves = jax.tree_util.tree_leaves(timestep.observation)
    outputs[name] = {"rewards": rewards, "step_type": timestep.step_type,
                     "observation_sum": sum(jnp.sum(leaf.astype(jnp.float32)) for leaf in leaves)}
  return {f"{name}_{key}": value for name, entry in outputs.items() for key, value in entry.items()}
