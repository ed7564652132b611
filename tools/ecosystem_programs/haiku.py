"""dm-haiku: hk.transform an MLP, init, apply and a gradient step."""
import haiku as hk
import jax
import jax.numpy as jnp


def forward(x):
  return hk.nets.MLP([8, 4, 1])(x)


def run():
  model = hk.transform(forward)
  x = jnp.linspace(-1.0, 1.0, 12).reshape(4, 3)
  params = model.init(jax.random.PRNGKey(42), x)
  loss = lambda p: jnp.mean(model.apply(p, None, x) ** 2)
  grads = jax.jit(jax.grad(loss))(params)
  params = jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)
  stateful = hk.transform_with_state(lambda x: hk.BatchNorm(True, True, 0.9)(x, is_training=True))
  bn_params, bn_state = stateful.init(None, x)
  bn_out, _ = stateful.apply(bn_params, bn_state, None, x)
  return {"loss": loss(params), "names": " ".join(sorted(params)),
          "grad_norm": sum(jnp.sum(g ** 2) for g in jax.tree.leaves(grads)), "bn": bn_out[0]}
