"""tinygp: a GaussianProcess with an ExpSquared kernel: log-likelihood, its gradient, prediction."""
import jax
import jax.numpy as jnp
from tinygp import GaussianProcess, kernels


def run():
  x = jnp.linspace(0.0, 5.0, 12)
  y = jnp.sin(x)

  def build(log_scale):
    return GaussianProcess(kernels.ExpSquared(scale=jnp.exp(log_scale)), x, diag=1e-3)

  log_likelihood = jax.jit(lambda s: build(s).log_probability(y))
  grad = jax.grad(lambda s: build(s).log_probability(y))(0.0)
  _, conditioned = build(0.0).condition(y, jnp.array([1.5, 2.5]))
  return {"log_likelihood": log_likelihood(0.0), "grad": grad, "mean": conditioned.mean,
          "variance": conditioned.variance}
