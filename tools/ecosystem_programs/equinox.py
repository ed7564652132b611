"""equinox: an eqx.nn.MLP trained with filter_jit and filter_value_and_grad and optax."""
import equinox as eqx
import jax
import jax.numpy as jnp
import optax


def run():
  key, data_key = jax.random.split(jax.random.PRNGKey(0))
  model = eqx.nn.MLP(in_size=2, out_size=1, width_size=8, depth=2, key=key)
  x = jax.random.normal(data_key, (16, 2))
  y = jnp.sin(x[:, :1]) + x[:, 1:] ** 2
  optim = optax.sgd(0.05)
  opt_state = optim.init(eqx.filter(model, eqx.is_array))

  @eqx.filter_jit
  def step(model, opt_state):
    def loss(model):
      return jnp.mean((jax.vmap(model)(x) - y) ** 2)
    value, grads = eqx.filter_value_and_grad(loss)(model)
    updates, opt_state = optim.update(grads, opt_state)
    return eqx.apply_updates(model, updates), opt_state, value

  losses = []
  for _ in range(5):
    model, opt_state, value = step(model, opt_state)
    losses.append(value)
  return {"losses": losses, "out": jax.vmap(model)(x[:3])[:, 0]}
