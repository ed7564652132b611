"""gymnax: CartPole reset and jitted steps with random actions, vmapped over keys."""
import gymnax
import jax
import jax.numpy as jnp


def run():
  env, params = gymnax.make("CartPole-v1")
  key = jax.random.PRNGKey(0)
  obs, state = env.reset(key, params)
  step = jax.jit(env.step)
  rewards = []
  for i in range(5):
    key, key_act, key_step = jax.random.split(key, 3)
    action = env.action_space(params).sample(key_act)
    obs, state, reward, terminated, truncated, _ = step(key_step, state, action, params)
    rewards.append(reward)
  batch_obs, _ = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(jax.random.PRNGKey(1), 3), params)
  return {"obs": obs, "rewards": rewards, "batch_obs": batch_obs[:, 0]}
