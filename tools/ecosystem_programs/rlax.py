"""rlax: Q-learning and TD(lambda) targets, batched with jax.vmap, and a policy-gradient loss."""
import jax
import jax.numpy as jnp
import rlax


def run():
  q_tm1 = jnp.array([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]])
  q_t = jnp.array([[0.5, 1.5, 2.0], [1.0, 0.0, -2.0]])
  a_tm1, r_t, discount_t = jnp.array([1, 2]), jnp.array([1.0, -1.0]), jnp.array([0.9, 0.0])
  td = jax.jit(jax.vmap(rlax.q_learning))(q_tm1, a_tm1, r_t, discount_t, q_t)
  rewards, discounts = jnp.array([1.0, 0.0, 2.0, 1.0]), jnp.full(4, 0.9)
  values = jnp.array([0.5, 1.0, 1.5, 0.2])
  returns = rlax.lambda_returns(rewards, discounts, values, 0.8)
  logits = jnp.array([[0.2, 0.8], [1.0, -1.0], [0.0, 0.0], [0.3, 0.1]])
  pg = rlax.policy_gradient_loss(logits, jnp.array([1, 0, 1, 0]), returns, jnp.ones(4))
  eps = rlax.epsilon_greedy(0.1).sample(jax.random.PRNGKey(0), q_tm1)
  return {"td": td, "returns": returns, "pg_loss": pg, "eps_greedy": eps,
          "huber": rlax.huber_loss(jnp.array([-2.0, 0.3, 1.5]), 1.0)}
