"""pgx: tic-tac-toe with vmapped init and step and random legal actions."""
import jax
import jax.numpy as jnp
import pgx


def run():
  env = pgx.make("tic_tac_toe")
  init, step = jax.jit(jax.vmap(env.init)), jax.jit(jax.vmap(env.step))
  key = jax.random.PRNGKey(0)
  state = init(jax.random.split(key, 4))
  for i in range(5):
    key, sub = jax.random.split(key)
    logits = jnp.log(state.legal_action_mask.astype(jnp.float32))
    action = jax.random.categorical(sub, logits, axis=1)
    state = step(state, action)
  return {"observation": state.observation[:, :, :, 0].reshape(4, -1).sum(1), "rewards": state.rewards,
          "terminated": state.terminated, "legal": state.legal_action_mask.sum(1)}
