"""TensorFlow Probability on JAX: distributions, a bijector, and a jitted gradient of log_prob."""
import jax
import jax.numpy as jnp
from tensorflow_probability.substrates import jax as tfp

tfd, tfb = tfp.distributions, tfp.bijectors


def run():
  normal = tfd.Normal(loc=0.5, scale=2.0)
  samples = normal.sample(4, seed=jax.random.PRNGKey(0))
  mvn = tfd.MultivariateNormalTriL(loc=jnp.zeros(2), scale_tril=jnp.array([[1.0, 0.0], [0.5, 2.0]]))
  log_normal = tfd.TransformedDistribution(tfd.Normal(0.0, 1.0), tfb.Exp())
  grad = jax.jit(jax.grad(lambda mu: tfd.Normal(mu, 1.0).log_prob(jnp.arange(3.0)).sum()))(0.3)
  gamma = tfd.Gamma(concentration=2.0, rate=1.5)
  return {"samples": samples, "normal_log_prob": normal.log_prob(jnp.array([0.0, 1.0])),
          "mvn_log_prob": mvn.log_prob(jnp.array([0.3, -0.2])), "mvn_sample": mvn.sample(seed=jax.random.PRNGKey(1)),
          "log_normal": log_normal.log_prob(2.0), "grad": grad, "gamma_cdf": gamma.cdf(1.0),
          "gamma_sample": gamma.sample(3, seed=jax.random.PRNGKey(2))}
