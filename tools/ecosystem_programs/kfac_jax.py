"""kfac-jax: an MLP trained with kfac_jax.Optimizer on a registered squared-error loss."""
import jax
import jax.numpy as jnp
import kfac_jax


def model(params, x):
  h = jnp.tanh(x @ params["w1"] + params["b1"])
  return h @ params["w2"] + params["b2"]


def loss_fn(params, batch):
  x, y = batch
  prediction = model(params, x)
  kfac_jax.register_squared_error_loss(prediction, y)
  return jnp.mean(jnp.sum((prediction - y) ** 2, axis=-1)) / 2


def run():
  key = jax.random.PRNGKey(0)
  k1, k2, k3 = jax.random.split(key, 3)
  params = {"w1": jax.random.normal(k1, (3, 8)) * 0.5, "b1": jnp.zeros(8),
            "w2": jax.random.normal(k2, (8, 1)) * 0.5, "b2": jnp.zeros(1)}
  x = jax.random.normal(k3, (16, 3))
  batch = (x, jnp.sin(x[:, :1]))
  optimizer = kfac_jax.Optimizer(value_and_grad_func=jax.value_and_grad(loss_fn), l2_reg=0.0,
                                 value_func_has_aux=False, value_func_has_state=False,
                                 value_func_has_rng=False, use_adaptive_learning_rate=True,
                                 use_adaptive_momentum=True, use_adaptive_damping=True,
                                 initial_damping=1.0, num_burnin_steps=0, multi_device=False)
  rng = jax.random.PRNGKey(1)
  state = optimizer.init(params, rng, batch)
  losses = []
  for _ in range(3):
    rng, sub = jax.random.split(rng)
    params, state, stats = optimizer.step(params, state, sub, batch=batch, global_step_int=None)
    losses.append(stats["loss"])
  return {"losses": losses}
