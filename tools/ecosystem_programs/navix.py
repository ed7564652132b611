"""navix: the README's compiled collection step: MiniGrid environments (Empty-Random-8x8,
DoorKey-Random-5x5, FourRooms, Empty-5x5) reset and stepped by jax.lax.scan over random actions,
jitted and vmapped over seeds, with symbolic, categorical, first-person symbolic and first-person
RGB observations."""
import jax
import jax.numpy as jnp
import navix as nx

N_TIMESTEPS = 40


def rollout(env, seed):
  key = jax.random.PRNGKey(seed)
  timestep = env.reset(key)
  actions = jax.random.randint(key, (N_TIMESTEPS,), 0, env.action_space.n)

  def body_fun(timestep, action):
    timestep = env.step(timestep, action)
    return timestep, (timestep.reward, timestep.step_type)

  return jax.lax.scan(body_fun, timestep, actions)


def run():
  out = {}
  for name, observation_fn in [("Navix-Empty-Random-8x8-v0", nx.observations.symbolic),
                               ("Navix-DoorKey-Random-5x5-v0", nx.observations.categorical),
                               ("Navix-FourRooms-v0", nx.observations.symbolic_first_person),
                               ("Navix-Empty-5x5-v0", nx.observations.rgb_first_person)]:
    env = nx.make(name, observation_fn=observation_fn)
    final, (rewards, step_types) = jax.jit(jax.vmap(lambda s: rollout(env, s)))(jnp.arange(6))
    short = "_".join(name.split("-")[1:-1]).lower()
    out[short + "_rewards"] = rewards.sum(axis=1)
    out[short + "_step_types"] = step_types[:, ::5]
    out[short + "_positions"] = final.state.entities["player"].position.reshape(6, -1)
    out[short + "_directions"] = final.state.entities["player"].direction.reshape(6, -1)
    out[short + "_obs_shape"] = list(final.observation.shape)
    out[short + "_obs_sum"] = final.observation.astype(jnp.float32).sum(axis=tuple(
        range(1, final.observation.ndim)))
  return out
