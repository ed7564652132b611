"""optax: a chained clip + adamw optimizer minimizing a loss in a jitted step."""
import jax
import jax.numpy as jnp
import optax


def run():
  key = jax.random.PRNGKey(0)
  x = jax.random.normal(key, (16, 4))
  labels = jnp.arange(16) % 3
  params = {"w": jnp.zeros((4, 3)), "b": jnp.zeros(3)}

  def loss_fn(params):
    logits = x @ params["w"] + params["b"]
    return optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()

  optimizer = optax.chain(optax.clip_by_global_norm(1.0),
                          optax.adamw(optax.exponential_decay(0.1, 5, 0.5), weight_decay=1e-3))
  opt_state = optimizer.init(params)

  @jax.jit
  def step(params, opt_state):
    loss, grads = jax.value_and_grad(loss_fn)(params)
    updates, opt_state = optimizer.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss

  losses = []
  for _ in range(10):
    params, opt_state, loss = step(params, opt_state)
    losses.append(loss)
  return {"losses": losses, "w": params["w"], "global_norm": optax.global_norm(params)}
