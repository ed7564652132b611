"""distrax: a Tanh-transformed Normal, sample_and_log_prob, and KL divergence."""
import distrax
import jax
import jax.numpy as jnp


def run():
  base = distrax.MultivariateNormalDiag(jnp.zeros(2), jnp.array([1.0, 0.5]))
  flow = distrax.Transformed(base, distrax.Block(distrax.Tanh(), 1))
  samples, log_prob = flow.sample_and_log_prob(seed=jax.random.PRNGKey(0), sample_shape=3)
  kl = distrax.Normal(0.0, 1.0).kl_divergence(distrax.Normal(1.0, 2.0))
  cat = distrax.Categorical(logits=jnp.array([0.1, 0.5, -1.0]))
  return {"samples": samples, "log_prob": log_prob, "kl": kl, "entropy": cat.entropy(),
          "cat_sample": cat.sample(seed=jax.random.PRNGKey(1), sample_shape=5)}
