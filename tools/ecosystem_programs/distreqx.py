"""distreqx: Normal and MultivariateNormalDiag distributions and a Tanh-transformed normal
(equinox modules), with jitted log-probabilities, samples and a gradient."""
import equinox as eqx
import jax
import jax.numpy as jnp
from distreqx import bijectors, distributions


def run():
  normal = distributions.Normal(jnp.array(0.5), jnp.array(2.0))
  mvn = distributions.MultivariateNormalDiag(jnp.zeros(3), jnp.array([1.0, 2.0, 0.5]))
  squashed = distributions.Transformed(normal, bijectors.Tanh())
  x = jnp.array([0.1, -0.4, 1.2])
  log_prob = eqx.filter_jit(lambda d, v: d.log_prob(v))
  grad = jax.grad(lambda loc: distributions.Normal(loc, jnp.array(2.0)).log_prob(1.0))(0.5)
  return {"normal_log_prob": jax.vmap(normal.log_prob)(x), "mvn_log_prob": log_prob(mvn, x),
          "mvn_sample": mvn.sample(jax.random.PRNGKey(0)), "entropy": mvn.entropy(),
          "squashed_log_prob": squashed.log_prob(jnp.array(0.3)), "grad": grad}
