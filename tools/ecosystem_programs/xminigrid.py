"""xminigrid: a MiniGrid environment reset and stepped under jit, and a vmapped scan rollout
(its README's loop, on a built-in environment: no benchmark download)."""
import jax
import jax.numpy as jnp
import xminigrid


def run():
  key = jax.random.key(0)
  env, env_params = xminigrid.make("MiniGrid-EmptyRandom-8x8")
  timestep = jax.jit(env.reset)(env_params, key)
  step = jax.jit(env.step)
  for action in [0, 1, 2, 2, 1, 0, 2]:
    timestep = step(env_params, timestep, action)

  def rollout(k):
    ts = env.reset(env_params, k)

    def body(ts, a):
      ts = env.step(env_params, ts, a)
      return ts, (ts.reward, ts.state.agent.position)
    return jax.lax.scan(body, ts, jnp.array([0, 1, 2, 2, 2, 1, 2, 0]))[1]
  rewards, positions = jax.jit(jax.vmap(rollout))(jax.random.split(key, 4))
  return {"observation": timestep.observation, "position": timestep.state.agent.position,
          "step_type": timestep.step_type, "rewards": rewards, "positions": positions}
