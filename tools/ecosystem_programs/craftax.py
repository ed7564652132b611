"""craftax: the symbolic Craftax-Classic environment reset and stepped with random actions
under jit, as its README's quickstart does."""
import jax
from craftax.craftax_env import make_craftax_env_from_name


def run():
  env = make_craftax_env_from_name("Craftax-Classic-Symbolic-v1", auto_reset=True)
  params = env.default_params
  rng = jax.random.PRNGKey(0)
  obs, state = env.reset(rng, params)
  step = jax.jit(env.step)
  rewards = []
  for _ in range(10):
    rng, act_key, step_key = jax.random.split(rng, 3)
    action = env.action_space(params).sample(act_key)
    obs, state, reward, done, info = step(step_key, state, action, params)
    rewards.append(reward)
  return {"obs_sum": obs.sum(), "rewards": jax.numpy.stack(rewards),
          "position": state.player_position}
