"""flax.linen: a Dense MLP's init, apply and a jitted SGD step (flax's linen quickstart)."""
import jax
import jax.numpy as jnp
import flax.linen as nn


class MLP(nn.Module):
  features: tuple

  @nn.compact
  def __call__(self, x):
    for i, f in enumerate(self.features):
      x = nn.Dense(f)(x)
      if i != len(self.features) - 1:
        x = nn.gelu(x)
    return x


def run():
  model = MLP((8, 4, 1))
  x = jax.random.normal(jax.random.key(0), (5, 3))
  params = model.init(jax.random.key(1), x)
  y = jnp.arange(5.0)[:, None]

  @jax.jit
  def step(params):
    loss, grads = jax.value_and_grad(lambda p: jnp.mean((model.apply(p, x) - y) ** 2))(params)
    return jax.tree.map(lambda p, g: p - 0.05 * g, params, grads), loss

  losses = []
  for _ in range(4):
    params, loss = step(params)
    losses.append(loss)
  shapes = jax.tree.map(jnp.shape, params)
  return {"losses": losses, "out": model.apply(params, x)[:, 0],
          "shapes": str(sorted(jax.tree_util.tree_leaves_with_path(shapes), key=str))[:200]}
