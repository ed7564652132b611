"""jaxkan: a Kolmogorov-Arnold network of B-spline ("base") layers fitted to a 2-D function
with an nnx.Optimizer (optax adam) and nnx.jit train steps, its grid extension (a least
squares refit), and a Chebyshev KAN's forward pass."""
import jax
import jax.numpy as jnp
import optax
from flax import nnx
from jaxkan.models.KAN import KAN


def run():
  x = jax.random.uniform(jax.random.key(0), (64, 2), minval=-1.0, maxval=1.0)
  y = (jnp.sin(jnp.pi * x[:, 0]) * x[:, 1])[:, None]
  model = KAN(layer_dims=[2, 5, 1], layer_type="base",
              required_parameters={"k": 3, "G": 5}, seed=42)
  optimizer = nnx.Optimizer(model, optax.adam(1e-2), wrt=nnx.Param)

  @nnx.jit
  def train_step(model, optimizer, x, y):
    def loss_fn(model):
      return jnp.mean((model(x) - y) ** 2)
    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss

  losses = [train_step(model, optimizer, x, y) for _ in range(30)]
  before = model(x[:4])
  model.update_grids(x=x, G_new=8)
  cheby = KAN(layer_dims=[2, 4, 1], layer_type="chebyshev", required_parameters={"D": 4},
              seed=1)
  return {"first_loss": losses[0], "last_loss": losses[-1], "prediction": before,
          "after_grid_update": model(x[:4]), "chebyshev": cheby(x[:4])}
