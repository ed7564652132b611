"""brainstate: a Module of Linear layers with ParamStates trained by its own jit and grad
(states read and written inside), vmap over a model and a for_loop writing a State (its
documentation's transformations)."""
import jax
import jax.numpy as jnp
import brainstate


class MLP(brainstate.nn.Module):
  def __init__(self, din, dhidden, dout):
    super().__init__()
    self.l1 = brainstate.nn.Linear(din, dhidden)
    self.l2 = brainstate.nn.Linear(dhidden, dout)

  def __call__(self, x):
    return self.l2(jax.nn.relu(self.l1(x)))


def run():
  brainstate.random.seed(0)
  model = MLP(3, 8, 2)
  x = jnp.linspace(-1, 1, 12).reshape(4, 3)
  y = jnp.sin(x[:, :2])
  params = model.states(brainstate.ParamState)

  @brainstate.transform.jit
  def step():
    def loss_fn():
      return jnp.mean((model(x) - y) ** 2)
    grads, loss = brainstate.transform.grad(loss_fn, params, return_value=True)()
    for k in grads:
      params[k].value = jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params[k].value, grads[k])
    return loss

  losses = jnp.stack([step() for _ in range(10)])
  batched = brainstate.transform.vmap(lambda v: model(v))(x)
  counter = brainstate.State(jnp.zeros(()))

  def body(i):
    counter.value = counter.value + i
    return counter.value * 2
  outs = brainstate.transform.for_loop(body, jnp.arange(5.0))
  return {"losses": losses, "batched": batched, "for_loop": outs, "counter": counter.value}
