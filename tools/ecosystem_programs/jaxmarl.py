"""jaxmarl: the MPE simple-spread and Hanabi multi-agent environments reset and stepped under
jit with sampled actions, as its README shows."""
import jax
import jax.numpy as jnp
import jaxmarl


def run():
  env = jaxmarl.make("MPE_simple_spread_v3")
  key, reset_key, act_key, step_key = jax.random.split(jax.random.PRNGKey(0), 4)
  obs, state = env.reset(reset_key)
  actions = {agent: env.action_space(agent).sample(k)
             for agent, k in zip(env.agents, jax.random.split(act_key, env.num_agents))}
  obs, state, rewards, dones, infos = jax.jit(env.step)(step_key, state, actions)
  hanabi = jaxmarl.make("hanabi")
  hanabi_obs, _ = hanabi.reset(reset_key)
  return {"rewards": jnp.stack([rewards[a] for a in env.agents]),
          "obs": jnp.stack([obs[a].sum() for a in env.agents]),
          "hanabi_obs": jnp.stack([hanabi_obs[a].sum() for a in hanabi.agents])}
