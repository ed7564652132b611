"""mctx: Gumbel MuZero and MuZero policies searching a small deterministic model, jitted."""
import jax
import jax.numpy as jnp
import mctx


def run():
  batch, num_actions = 2, 3
  rewards = jnp.array([[0.0, 1.0, 0.5], [0.2, 0.1, 0.9]])

  def recurrent_fn(params, rng_key, action, embedding):
    del rng_key
    reward = params[jnp.arange(batch), action] * (1.0 + embedding)
    output = mctx.RecurrentFnOutput(reward=reward, discount=jnp.full(batch, 0.9),
                                    prior_logits=jnp.zeros((batch, num_actions)),
                                    value=jnp.zeros(batch))
    return output, embedding + 1.0

  root = mctx.RootFnOutput(prior_logits=jnp.array([[0.0, 0.5, -0.5], [1.0, 0.0, 0.0]]),
                           value=jnp.zeros(batch), embedding=jnp.zeros(batch))

  @jax.jit
  def search(key):
    gumbel = mctx.gumbel_muzero_policy(rewards, key, root, recurrent_fn, num_simulations=16,
                                       max_depth=4)
    muzero = mctx.muzero_policy(rewards, key, root, recurrent_fn, num_simulations=16,
                                dirichlet_fraction=0.0)
    return gumbel, muzero

  gumbel, muzero = search(jax.random.PRNGKey(0))
  return {"gumbel_action": gumbel.action, "gumbel_weights": gumbel.action_weights,
          "muzero_action": muzero.action, "muzero_weights": muzero.action_weights,
          "root_value": gumbel.search_tree.summary().value}
