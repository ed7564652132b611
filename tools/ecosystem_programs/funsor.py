"""funsor (Pyro's functional tensors) on its JAX backend: named-dimension reductions, a Normal
funsor evaluated at a tensor and at a value, and a gradient through a reduced log density."""
import jax
import jax.numpy as jnp
import funsor
import funsor.ops as ops

funsor.set_backend("jax")
import funsor.jax.distributions as dist  # noqa: E402  (after the backend is set, as it asks)


def run():
  x = funsor.Tensor(jnp.arange(6.0).reshape(2, 3))["i", "j"]
  normal = dist.Normal(funsor.Tensor(jnp.zeros(3))["i"], 1.0, value="x")
  y = funsor.Variable("y", funsor.Real)

  def loss(m):
    value = funsor.Tensor(jnp.array([0.1, 0.2, 0.3]))["k"]
    return dist.Normal(m, 1.0, value=value).reduce(ops.add, "k").data
  return {"sum_j": x.reduce(ops.add, "j").data, "logsumexp": x.reduce(ops.logaddexp).data,
          "normal_at": normal(x=funsor.Tensor(jnp.ones(3))["i"]).data,
          "normal_value": dist.Normal(0.0, 1.0, value=y)(y=jnp.float32(0.5)).data,
          "grad": jax.grad(loss)(0.5)}
