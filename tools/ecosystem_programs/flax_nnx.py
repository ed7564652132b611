"""flax.nnx: an MLP trained with nnx.Optimizer and optax, as flax's README shows."""
import jax.numpy as jnp
import optax
from flax import nnx


class MLP(nnx.Module):
  def __init__(self, din, dhidden, dout, *, rngs):
    self.linear1 = nnx.Linear(din, dhidden, rngs=rngs)
    self.dropout = nnx.Dropout(0.0, rngs=rngs)
    self.bn = nnx.BatchNorm(dhidden, rngs=rngs)
    self.linear2 = nnx.Linear(dhidden, dout, rngs=rngs)

  def __call__(self, x):
    return self.linear2(nnx.relu(self.bn(self.dropout(self.linear1(x)))))


def run():
  model = MLP(3, 16, 1, rngs=nnx.Rngs(0))
  optimizer = nnx.Optimizer(model, optax.adam(1e-2), wrt=nnx.Param)
  x = jnp.linspace(-1.0, 1.0, 24).reshape(8, 3)
  y = jnp.sum(x ** 2, axis=1, keepdims=True)

  @nnx.jit
  def train_step(model, optimizer, x, y):
    def loss_fn(model):
      return jnp.mean((model(x) - y) ** 2)
    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss

  losses = [train_step(model, optimizer, x, y) for _ in range(5)]
  model.eval()
  return {"losses": losses, "prediction": model(x[:2]), "kernel_sum": model.linear1.kernel.value.sum()}
