"""flashbax: a flat replay buffer: init, jitted adds, and a sample."""
import flashbax as fbx
import jax
import jax.numpy as jnp


def run():
  buffer = fbx.make_flat_buffer(max_length=32, min_length=2, sample_batch_size=4)
  example = {"obs": jnp.zeros(2), "reward": jnp.array(0.0)}
  state = buffer.init(example)
  add = jax.jit(buffer.add, donate_argnums=0)
  for i in range(5):
    state = add(state, {"obs": jnp.full(2, float(i)), "reward": jnp.array(i * 0.5)})
  batch = jax.jit(buffer.sample)(state, jax.random.PRNGKey(0))
  return {"can_sample": buffer.can_sample(state), "first_obs": batch.experience.first["obs"][:, 0],
          "second_reward": batch.experience.second["reward"], "current_index": state.current_index}
